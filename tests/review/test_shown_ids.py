"""`review` shows a student id as a TA can read it safely (issue 50, item 14): an id taken
from a folder or an LMS file name may carry terminal controls (ESC, BEL), which reach the
TA's terminal escaped, never raw. Results saved as the grader saves them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from autograder.base.course import RESULTS_JSON, Course
from autograder.results.result import STATUS_GRADED, PartResult, SubmissionResult, save
from tests.support.h2 import SPEC

HOSTILE_ID = "s9\x1b]0;owned\x07\x1b[2J"
SHOWN = "s9\\x1b]0;owned\\x07\\x1b[2J"


def _root(tmp_path: Path) -> Path:
    course = Course(tmp_path / "course", SPEC.name)
    parts = [PartResult(part.name, part.points, part.points, needs_review=part.name == "limitation")
             for part in SPEC.parts]
    result = SubmissionResult(HOSTILE_ID, SPEC.name, STATUS_GRADED, parts=parts,
                              needs_review=True, reason="a person will check")
    course.submitted(HOSTILE_ID).mkdir(parents=True)
    save(result, course.autograded(HOSTILE_ID) / RESULTS_JSON)
    return course.root


def _review(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", "review", "--root", str(root),
                           *args], capture_output=True, text=True, timeout=120, check=False)


def test_review_list_shows_an_id_with_terminal_controls_escaped(tmp_path):
    listed = _review(_root(tmp_path), "list")
    assert listed.returncode == 0, listed.stderr
    assert "\x1b" not in listed.stdout and "\x07" not in listed.stdout
    assert listed.stdout.startswith(f"{SHOWN}: 100/100 (a person will check)")


def test_review_history_of_an_unknown_id_names_the_graded_ones_escaped(tmp_path):
    refused = _review(_root(tmp_path), "history", "nobody")
    assert refused.returncode == 2
    assert "\x1b" not in refused.stderr and "\x07" not in refused.stderr
    assert SHOWN in refused.stderr
