"""A copied evidence file (issue 15): the copier's feedback says the file is not theirs and never
names whose it is; the TA reads whose it is in results.json (``ta_notes``) and grades.csv."""

from __future__ import annotations

import csv
import json
import shutil

import pytest

from autograder.base.course import FEEDBACK_HTML, RESULTS_JSON, Course
from autograder.batch.engine import grade_course
from autograder.batch.lateness import NOT_JUDGED
from tests.support.h2 import SPEC
from tests.support.said import said

pytestmark = pytest.mark.slow

ORIGINAL, COPIER = "alice-original", "dave-copier"


def test_the_copiers_feedback_never_names_the_student_copied_from(tmp_path, options,
                                                                  course_factory):
    root = course_factory(tmp_path / "course", {ORIGINAL: "correct", COPIER: "correct"})
    theirs = root / "submitted" / ORIGINAL / SPEC.name / SPEC.evidence_file
    shutil.copyfile(theirs, root / "submitted" / COPIER / SPEC.name / SPEC.evidence_file)
    summary = grade_course(Course(root, SPEC.name), options=options)
    copier = next(result for result in summary.results if result.student == COPIER)

    assert copier.needs_review and copier.part("evidence").points < copier.part(
        "evidence").max_points
    student_texts = [copier.reason, *said(copier.notes),
                     *(m for part in copier.parts for m in said(part.messages)),
                     *(test.output for test in copier.tests)]
    assert any("not yours" in text for text in student_texts)
    assert not any(ORIGINAL in text for text in student_texts), student_texts
    page = (root / "autograded" / COPIER / SPEC.name / FEEDBACK_HTML).read_text()
    assert ORIGINAL not in page and "not yours" in page

    saved = json.loads((root / "autograded" / COPIER / SPEC.name / RESULTS_JSON).read_text())
    assert any(repr(ORIGINAL) in note["text"] for note in saved["extra_data"]["ta_notes"])
    with (root / "grades.csv").open(newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    assert repr(ORIGINAL) in rows[COPIER]["ta_notes"] and rows[COPIER]["needs_review"] == "yes"
    assert ORIGINAL not in rows[COPIER]["reason"]  # the student may be shown their reason
    # Nothing about copying on the original's row (graded without a due date: only that).
    assert rows[ORIGINAL]["ta_notes"] == NOT_JUDGED and rows[ORIGINAL]["needs_review"] == "no"
