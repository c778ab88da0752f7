"""What `review set` says (issue 51, item 8): on an ungradable submission, that it has no total
(none of the outputs gives it one), not "22/100 in results.json, ... the gradebook"; and a
Ctrl-C during it says what was recorded, not that "what was already graded is kept"."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from autograder import cli
from autograder.base.course import RESULTS_JSON, Course
from autograder.results.result import STATUS_UNGRADABLE, PartResult, SubmissionResult, save
from autograder.review import command as review
from tests.support.h2 import SPEC

GRADING_LINE = "what was already graded is kept"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A root whose one student's notebook could not be graded (its evidence part could)."""
    course = Course(tmp_path / "course", SPEC.name)
    course.submitted("s1").mkdir(parents=True)
    parts = [PartResult(part.name, 0, part.points) for part in SPEC.parts]
    save(SubmissionResult("s1", SPEC.name, STATUS_UNGRADABLE, parts=parts, needs_review=True,
                          reason=f"{SPEC.notebook} is missing"),
         course.autograded("s1") / RESULTS_JSON)
    return course.root


def test_a_decision_on_an_ungradable_submission_says_it_has_no_total(root):
    done = subprocess.run([sys.executable, "-m", "autograder", "review", "--root", str(root),
                           "set", "s1", "evidence", "5", "--note", "read by hand"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("s1: ")]
    assert "no total" in line and "/100" not in line and "ungradable" in line


def _interrupted(monkeypatch, capsys, name: str, argv: list[str]) -> str:
    """stderr of the command when Ctrl-C comes as ``review.name`` runs."""
    def ctrl_c(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(review, name, ctrl_c)
    assert cli.main(argv) == 130
    return capsys.readouterr().err


def test_ctrl_c_before_the_decision_is_saved_says_nothing_was_recorded(root, monkeypatch, capsys):
    said = _interrupted(monkeypatch, capsys, "unknown_student",
                        ["review", "--root", str(root), "set", "nobody", "evidence", "5"])
    assert "interrupted: nothing was recorded" in said and GRADING_LINE not in said


def test_ctrl_c_after_the_decision_is_saved_says_nothing_was_recorded_and_nothing_was(
        root, monkeypatch, capsys):
    """`review set` is all or nothing (issue 51's journal): Ctrl-C after decisions.json was
    saved rolls it back with everything else, and the line says so."""
    said = _interrupted(monkeypatch, capsys, "rewrite_student",
                        ["review", "--root", str(root), "set", "s1", "evidence", "5"])
    assert "interrupted: nothing was recorded" in said and GRADING_LINE not in said
    assert not (root / "decisions.json").exists()
