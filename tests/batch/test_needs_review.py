"""A person looks at what could not be graded and at code that reached for the grading
machine's files (real submissions of the small `vectors` bundle through ``grade_course``:
review is the engine's, whatever the assignment)."""

from __future__ import annotations

import csv
import json

import pytest

from autograder.base.course import RESULTS_JSON, Course
from autograder.batch.engine import grade_course
from autograder.grading.grade_one import REACHED_OUT_CELL, REACHED_OUT_FUNCTION
from tests.support.said import said
from tests.support.vectors import BUNDLES, REFERENCE, VECTORS, solved_notebook, submit

pytestmark = pytest.mark.slow

CELL = REACHED_OUT_CELL  # the notes, as the grader words them for the student
FUNCTION = REACHED_OUT_FUNCTION
TARGET = BUNDLES / "vectors" / "reference.py"  # the reference, a file of the grading machine
STUDENTS = ["a-correct", "b-broken", "c-reads", "d-reads-when-called"]


def _write(course: Course, student: str, notebook: dict | str) -> None:
    folder = submit(course.root, student)
    text = notebook if isinstance(notebook, str) else json.dumps(notebook)
    (folder / VECTORS.notebook).write_text(text, encoding="utf-8")


def test_ungradable_and_reaching_out_go_to_review(tmp_path, options):
    course = Course(tmp_path, VECTORS.name)
    submit(course.root, "a-correct")
    whole = json.dumps(solved_notebook(REFERENCE))
    _write(course, "b-broken", whole[: len(whole) // 2])  # the notebook's JSON cut off
    reads = solved_notebook(REFERENCE)  # a cell that tries to run the reference's file
    reads["cells"].append({"cell_type": "code", "metadata": {}, "outputs": [],
                           "execution_count": None,
                           "source": f"exec(open({str(TARGET)!r}).read())  # if it can be read"})
    _write(course, "c-reads", reads)
    when_called = REFERENCE | {"normalize": REFERENCE["normalize"].replace(
        "    length = ", f"    open({str(TARGET)!r}).read()\n    length = ", 1)}
    assert when_called != REFERENCE
    _write(course, "d-reads-when-called", solved_notebook(when_called))

    summary = grade_course(course, options=options, assignment=VECTORS)
    results = {r.student: r for r in summary.results}
    with course.grades_csv().open(newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    saved = {s: json.loads((course.autograded(s) / RESULTS_JSON).read_text())["extra_data"]
             for s in STUDENTS}

    # no evidence file in this bundle: only the status asks for review
    assert results["b-broken"].status == "ungradable"
    assert rows["b-broken"]["needs_review"] == "yes" and saved["b-broken"]["needs_review"] is True

    reads = results["c-reads"]
    assert reads.status == "graded" and reads.score == VECTORS.total  # reading failed; nothing gained
    assert any("<path>" in note for note in said(reads.notes))  # the path itself never shows
    assert CELL in said(reads.notes) and CELL in reads.reason
    assert {"text": CELL, "code": "reached_out_cell", "review": True}.items() <= next(
        n for n in saved["c-reads"]["notes"] if n["text"] == CELL).items()
    assert rows["c-reads"]["needs_review"] == "yes" and saved["c-reads"]["needs_review"] is True

    when_called = results["d-reads-when-called"]
    assert when_called.part("normalize").points == 0
    assert FUNCTION in said(when_called.notes) and when_called.needs_review
    assert CELL not in said(when_called.notes)

    assert rows["a-correct"]["needs_review"] == "no" and results["a-correct"].notes == []
