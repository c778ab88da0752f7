"""grades.csv's ``reason`` is what the student may be told; what only TAs read (``ta_notes``,
e.g. whose inputs a copied evidence file holds) has its own column (issue 51, item 8)."""

from __future__ import annotations

import csv

from autograder.results.result import STATUS_GRADED, PartResult, SubmissionResult
from autograder.views import grades_csv
from tests.support.h2 import SPEC

FINDING = "the evidence file holds the inputs of student 'alice-original'"


def test_a_ta_only_note_is_in_its_own_column_never_in_the_reason(tmp_path):
    parts = [PartResult(part.name, part.points, part.points) for part in SPEC.parts]
    result = SubmissionResult("dave-copier", SPEC.name, STATUS_GRADED, parts=parts,
                              needs_review=True)
    result.note("the evidence file is not yours", "copied", review=True)
    result.ta_note(FINDING, "copied")
    grades_csv.write([result], tmp_path / "grades.csv", SPEC)
    with (tmp_path / "grades.csv").open(newline="", encoding="utf-8") as handle:
        (row,) = csv.DictReader(handle)
    assert row["reason"] == "the evidence file is not yours"
    assert row["ta_notes"] == FINDING
