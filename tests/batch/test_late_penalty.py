"""A late policy and extensions through the real `autograde` (issue 27): the penalty is applied
once, to the total that results.json, feedback.html, grades.csv and nbgrader export all show;
an extension makes its student on time and regrades that student only; both are remembered by
the course root."""

from __future__ import annotations

import csv
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from autograder.base.course import RESULTS_JSON, TIMESTAMP_TXT, Course
from autograder.base.nbgrader_command import nbgrader_command
from autograder.batch import receipts
from autograder.results.result import load
from tests.support.commands import autograde_ok, grades_rows
from tests.support.vectors import BUNDLES, VECTORS, submit

pytestmark = pytest.mark.slow

DEMO_DUE = datetime(2026, 12, 14, 23, 59, tzinfo=UTC)
LATE_BY = timedelta(hours=26)  # two started days
DUE = f"{DEMO_DUE:%Y-%m-%d %H:%M} UTC"
EXTENDED = f"{DEMO_DUE + timedelta(days=3):%Y-%m-%d %H:%M} UTC"
FULL = VECTORS.total  # 10 points: 10% of the maximum per started day is 1 point a day


def _autograde(root: Path, *args: str) -> str:
    return autograde_ok(root, VECTORS.name, "--assignments", str(BUNDLES), *args)


def _hand_in(root: Path, student: str, when: datetime) -> None:
    """A correct submission of the vectors bundle, with nbgrader's timestamp.txt."""
    folder = submit(root, student)
    (folder / TIMESTAMP_TXT).write_text(receipts.time_text(when), encoding="utf-8")


def _rows(course: Course) -> dict[str, dict[str, str]]:
    return grades_rows(course.grades_csv())


def _export(root: Path) -> dict[str, tuple[float, float]]:
    out = root / "export.csv"
    subprocess.run([*nbgrader_command(), "export", f"--CourseDirectory.root={root}",
                    "--to", str(out), "--log-level=ERROR"], check=True, capture_output=True,
                   timeout=120)
    with out.open(encoding="utf-8") as handle:
        return {row["student_id"]: (float(row["late_submission_penalty"]), float(row["score"]))
                for row in csv.DictReader(handle)}


def test_a_penalty_and_an_extension_show_everywhere_and_are_remembered(tmp_path):
    root = tmp_path / "course"
    _hand_in(root, "s1-on-time", DEMO_DUE - LATE_BY)
    _hand_in(root, "s2-late", DEMO_DUE + LATE_BY)  # 26 h late: two started days
    _hand_in(root, "s3-extended", DEMO_DUE + LATE_BY)
    course = Course(root, VECTORS.name)

    said = _autograde(root, "--due", DUE, "--late-policy", "10%/day, cap 50%, grace 15m",
                      "--extension", f"s3-extended={EXTENDED}")
    assert "late policy" in said and "extension for s3-extended" in said
    assert "(due 2026-12-14 23:59:00 UTC; 1 penalised: 10% of the maximum" in said

    late = load(course.autograded("s2-late") / RESULTS_JSON)
    assert late.late and late.parts_score == FULL and late.late_penalty == 2 and late.score == 8
    extended = load(course.autograded("s3-extended") / RESULTS_JSON)
    assert not extended.late and extended.late_penalty == 0 and extended.score == FULL
    assert extended.due.startswith(EXTENDED[:16])
    rows = _rows(course)
    assert (rows["s2-late"]["total"], rows["s2-late"]["late_penalty"]) == ("8", "2")
    assert (rows["s3-extended"]["late"], rows["s3-extended"]["total"]) == ("no", "10")
    assert _export(root)["s2-late"] == (2.0, 8.0)
    page = (course.autograded("s2-late") / "feedback.html").read_text(encoding="utf-8")
    assert "the late penalty took 2 points off" in page and "per started day" in page

    # Remembered: a plain run in the root, and --student, keep both.
    again = _autograde(root, "--student", "s2-late", "--force")
    assert load(course.autograded("s2-late") / RESULTS_JSON).score == 8
    assert _rows(course)["s3-extended"]["late"] == "no"
    assert "1 penalised: 10% of the maximum per started day late" in again

    # Taking the extension back regrades that student only, who is then late and penalised.
    taken = _autograde(root, "--extension", "s3-extended=none")
    assert "1 assessed in this run, 2 unchanged" in taken
    assert load(course.autograded("s3-extended") / RESULTS_JSON).score == 8
    assert _export(root)["s3-extended"] == (2.0, 8.0)

    # --no-due: lateness is judged for nobody, an extended student included (issue 37: the
    # extended student stayed `late = no` while everyone else was `unknown`).
    _autograde(root, "--extension", f"s3-extended={EXTENDED}")
    assert _rows(course)["s3-extended"]["late"] == "no"
    _autograde(root, "--no-due")
    assert {student: row["late"] for student, row in _rows(course).items()} == dict.fromkeys(
        ("s1-on-time", "s2-late", "s3-extended"), "unknown")
