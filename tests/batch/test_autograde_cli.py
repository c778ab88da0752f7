"""The single-student command a TA runs: ``python -m autograder autograde``."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.spec import REPO
from tests.sandbox.hostile.hostile_cases import new_course_root, write_submission
from tests.support.h2 import SPEC

ASSIGNMENT = SPEC.name


@pytest.mark.slow
def test_cli_grades_one_student(tmp_path: Path) -> None:
    root = new_course_root(tmp_path / "course")
    for student in ("s1", "s2"):  # s2 is in the course but not asked for
        write_submission(root / "submitted" / student / ASSIGNMENT, student)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "autograde",
            ASSIGNMENT,
            "--root",
            str(root),
            "--student",
            "s1",
            "--no-progress",
            "--jobs",
            "1",
            "--cell-timeout",
            "10",
            "--call-timeout",
            "5",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = root / "autograded" / "s1" / ASSIGNMENT
    results = json.loads((out / "results.json").read_text())
    assert results["score"] == results["max_score"] == 100
    assert results["extra_data"]["status"] == "graded"
    assert (out / "feedback.html").read_text().strip()
    with (root / "grades.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["student"], r["status"], r["total"]) for r in rows] == [("s1", "graded", "100")]
    assert not (root / "autograded" / "s2").exists()
    assert "1 graded" in done.stdout


def test_the_progress_line_shows_a_student_id_with_terminal_controls_escaped(tmp_path: Path
                                                                             ) -> None:
    """Issue 50, item 14: an id (a folder name in submitted/) carrying a screen-clearing
    escape and a bell reaches the TA's terminal written out, not obeyed."""
    from tests.support.vectors import VECTORS, submit

    hostile = "s1\x1b[2J\x07"
    submit(tmp_path, hostile)
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "autograde", VECTORS.name, "--root", str(tmp_path),
         "--assignments", str(VECTORS.root.parent)],
        capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "s1\\x1b[2J\\x07: 10/10" in done.stderr, done.stderr
    assert "\x1b[2J" not in done.stderr + done.stdout and "\x07" not in done.stderr + done.stdout
