"""`make demo`'s `nbgrader export` reads the demo's own gradebook, not the repository's.

The export runs from the repository (whose ``nbgrader_config.py`` nbgrader loads first)
with ``--CourseDirectory.root`` pointing at a graded course root: every student graded
there must be in the export, with the score we gave.
"""

from __future__ import annotations

import csv
import re
import shlex
import subprocess
import sys

import pytest

from autograder.authoring.release import nbgrader_env
from autograder.base.course import Course
from autograder.batch.engine import grade_course
from autograder.spec import REPO
from tests.support.h2 import SPEC

pytestmark = pytest.mark.slow

ROSTER = {"s001-correct": "correct", "s002-wrong-axis": "softmax_wrong_axis"}


def makefile_export_command(root: str) -> list[str]:
    """The demo target's `nbgrader export` line, with the Makefile's variables filled in."""
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    lines = [line.strip() for line in makefile.splitlines() if "nbgrader export" in line]
    assert len(lines) == 1, "the Makefile should run `nbgrader export` once (make demo)"
    line = lines[0].replace("$(PY)", sys.executable).replace("$(DEMO)", root)
    line = line.replace("$(CURDIR)", str(REPO))
    assert not re.search(r"\$\(", line), f"a Makefile variable the test does not know: {line}"
    return shlex.split(line)


def test_the_demos_export_lists_every_graded_student(tmp_path, options, course_factory):
    root = tmp_path / "demo"
    course = Course(course_factory(root, ROSTER), SPEC.name)
    summary = grade_course(course, options=options)
    ours = {result.student: result.score for result in summary.results}
    assert set(ours) == set(ROSTER) and ours["s001-correct"] == 100

    command = makefile_export_command(str(root))
    done = subprocess.run(command, cwd=REPO, env=nbgrader_env(), capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    with (root / "nbgrader-export.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    theirs = {row["student_id"]: float(row["score"]) for row in rows}
    assert theirs == ours, "nbgrader export must show the course root's gradebook"
