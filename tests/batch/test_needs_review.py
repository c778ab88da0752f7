"""A person looks at what could not be graded and at code that reached for the grading
machine's files (real submissions through ``grade_course``)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import nbformat
import pytest

import solutions
from autograder.base.course import RESULTS_JSON, Course
from autograder.batch.engine import grade_course
from autograder.bundles.h2_attention.samples import set_cell
from autograder.grading.grade_one import REACHED_OUT_CELL, REACHED_OUT_FUNCTION
from tests.support.h2 import SPEC
from tests.support.said import said

pytestmark = pytest.mark.slow

ROSTER = {"a-correct": "correct", "b-broken": "broken_notebook", "c-reads": "reads_reference",
          "d-reads-when-called": "correct", "e-broken-no-evidence": "broken_notebook"}
CELL = REACHED_OUT_CELL  # the notes, as the grader words them for the student
FUNCTION = REACHED_OUT_FUNCTION


def reads_reference_when_called(folder: Path) -> None:
    """stable_softmax opens the reference each time it is called (not in a cell)."""
    target = Path(solutions.__file__).with_name("attention.py")
    path = folder / SPEC.notebook
    notebook = nbformat.read(path, as_version=4)
    set_cell(notebook, "stable_softmax", lambda source: source.replace(
        '    """\n', f'    """\n    open({str(target)!r}).read()\n', 1))
    nbformat.write(notebook, path)


def test_ungradable_and_reaching_out_go_to_review(tmp_path, options, course_factory):
    course = Course(course_factory(tmp_path, ROSTER), SPEC.name)
    reads_reference_when_called(course.submitted("d-reads-when-called"))
    # Without an evidence file no evidence section asks for review: only the status can.
    (course.submitted("e-broken-no-evidence") / SPEC.evidence_file).unlink()
    summary = grade_course(course, options=options)
    results = {r.student: r for r in summary.results}
    with course.grades_csv().open(newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    saved = {s: json.loads((course.autograded(s) / RESULTS_JSON).read_text())["extra_data"]
             for s in ROSTER}

    for broken in ("b-broken", "e-broken-no-evidence"):
        assert results[broken].status == "ungradable", broken
        assert rows[broken]["needs_review"] == "yes" and saved[broken]["needs_review"] is True

    reads = results["c-reads"]
    assert reads.status == "graded" and reads.score == 100  # reading failed; nothing gained
    assert any("<path>" in note for note in said(reads.notes))  # the path itself never shows
    assert CELL in said(reads.notes) and CELL in reads.reason
    assert {"text": CELL, "code": "reached_out_cell", "review": True}.items() <= next(
        n for n in saved["c-reads"]["notes"] if n["text"] == CELL).items()
    assert rows["c-reads"]["needs_review"] == "yes" and saved["c-reads"]["needs_review"] is True

    when_called = results["d-reads-when-called"]
    assert when_called.part("stable_softmax").points == 0
    assert FUNCTION in said(when_called.notes) and when_called.needs_review
    assert CELL not in said(when_called.notes)

    assert rows["a-correct"]["needs_review"] == "no" and results["a-correct"].notes == []
