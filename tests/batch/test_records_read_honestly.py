"""A results.json read honestly by `autograde` (issue 51, item 12): an unreadable one is
named and regraded (never silently), one a newer grader wrote is refused in one line and
never overwritten by this older grader."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.base.course import RESULTS_JSON, Course
from autograder.results.result import FORMAT, load
from autograder.spec import REPO
from tests.support.cli import one_line_error
from tests.support.vectors import BUNDLES, VECTORS, submit

pytestmark = pytest.mark.slow

FAST = ["--no-progress", "--jobs", "1", "--cell-timeout", "10", "--call-timeout", "5"]


def _autograde(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", "autograde", VECTORS.name,
                           "--root", str(root), "--assignments", str(BUNDLES), *FAST],
                          cwd=REPO, capture_output=True, text=True, timeout=300, check=False)


def test_an_unreadable_record_is_named_and_regraded_a_newer_one_refused(tmp_path):
    root = tmp_path / "course"
    course = Course(root, VECTORS.name)
    for student in ("s1", "s2"):
        submit(root, student)
    first = _autograde(root)
    assert first.returncode == 0, first.stdout + first.stderr
    truncated = course.autograded("s1") / RESULTS_JSON
    truncated.write_text(truncated.read_text(encoding="utf-8")[:200], encoding="utf-8")

    again = _autograde(root)
    assert again.returncode == 0, again.stdout + again.stderr
    where = truncated.relative_to(root).as_posix()
    assert f"{where} is unreadable (" in again.stdout and "): s1 is regraded" in again.stdout
    assert "autograded/s2/" not in again.stdout  # readable and up to date: not graded again
    assert load(truncated) is not None  # regraded

    newer = course.autograded("s2") / RESULTS_JSON
    data = json.loads(newer.read_text(encoding="utf-8"))
    data["extra_data"]["format"] = FORMAT + 1
    newer.write_text(json.dumps(data), encoding="utf-8")
    before = newer.read_bytes()
    for run in (_autograde, _autograde_forced):
        line = one_line_error(run(root))
        assert str(newer) in line and "newer grader" in line, line
        assert newer.read_bytes() == before


def _autograde_forced(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", "autograde", VECTORS.name,
                           "--root", str(root), "--assignments", str(BUNDLES), "--force", *FAST],
                          cwd=REPO, capture_output=True, text=True, timeout=300, check=False)
