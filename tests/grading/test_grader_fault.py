"""A grader fault is never the student's zero (issue 11): a hidden check that crashes for
the grader's own reasons makes the submission a ``grader_error`` (retried on the next run,
never recorded as a grade), with the internal error kept for the TA in ``extra_data``."""

from __future__ import annotations

import nbformat
import pytest

from autograder.bundles.h2_attention.samples import solved_notebook, write_evidence
from autograder.grading import grade_one
from autograder.grading.grade_one import GradingSession, grade_submission
from autograder.grading.plugin import GENERIC_MESSAGE, verdict
from autograder.grading.submission import load_submission
from autograder.results.result import STATUS_ERROR
from tests.support.h2 import H2, SPEC

pytestmark = pytest.mark.slow


def test_a_crashing_check_makes_a_grader_error_not_a_zero(tmp_path, monkeypatch):
    folder = tmp_path / "submitted" / "s1" / SPEC.name
    folder.mkdir(parents=True)
    (folder / SPEC.notebook).write_text(nbformat.writes(solved_notebook("s1")))
    write_evidence(folder, "s1")
    real = grade_one.run_checks

    def with_a_broken_check(student, assignment):  # noqa: ANN001, ANN202 - the grader's own bug
        results = real(student, assignment)
        first = results[0]
        common = {"name": first.name, "title": first.title, "part": first.part,
                  "max_points": first.max_points}
        return [verdict(common, KeyError("a bug in the check")), *results[1:]]

    monkeypatch.setattr(grade_one, "run_checks", with_a_broken_check)
    session = GradingSession.start(H2)
    try:
        result = grade_submission(load_submission(folder, "s1", assignment=H2), session)
    finally:
        session.close()
    assert result.status == STATUS_ERROR
    assert "not the student's doing" in result.reason
    assert result.faults == ["test_scores::test_hand_example: KeyError: 'a bug in the check'"]
    saved = result.to_gradescope()
    assert saved["extra_data"]["grader_faults"] == result.faults
    assert GENERIC_MESSAGE in saved["tests"][0]["output"]
    assert "a bug in the check" not in saved["tests"][0]["output"]  # the detail is the TA's
