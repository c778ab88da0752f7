"""A grader fault is never the student's zero (issue 11): a hidden check that crashes for
the grader's own reasons makes the submission a ``grader_error`` (retried on the next run,
never recorded as a grade), with the internal error kept for the TA in ``extra_data``."""

from __future__ import annotations

import pytest

from autograder.grading import grade_one
from autograder.grading.grade_one import GradingSession, grade_submission
from autograder.grading.plugin import GENERIC_MESSAGE, verdict
from autograder.grading.submission import load_submission
from autograder.results.result import STATUS_ERROR
from tests.support.vectors import VECTORS, submit

pytestmark = pytest.mark.slow


def test_a_crashing_check_makes_a_grader_error_not_a_zero(tmp_path, monkeypatch):
    folder = submit(tmp_path, "s1")  # correct: every point, but for the broken check
    real = grade_one.run_checks
    broken: list[str] = []

    def with_a_broken_check(student, assignment):  # noqa: ANN001, ANN202 - the grader's own bug
        results = real(student, assignment)
        first = results[0]
        broken.append(first.name)
        common = {"name": first.name, "title": first.title, "part": first.part,
                  "max_points": first.max_points}
        return [verdict(common, KeyError("a bug in the check")), *results[1:]]

    monkeypatch.setattr(grade_one, "run_checks", with_a_broken_check)
    session = GradingSession.start(VECTORS)
    try:
        result = grade_submission(load_submission(folder, "s1", assignment=VECTORS), session)
    finally:
        session.close()
    assert result.status == STATUS_ERROR
    assert "not the student's doing" in result.reason
    assert result.faults == [f"{broken[0]}: KeyError: 'a bug in the check'"]
    assert "::" in broken[0]  # the check's module and name, for the TA
    saved = result.to_gradescope()
    assert saved["extra_data"]["grader_faults"] == result.faults
    assert GENERIC_MESSAGE in saved["tests"][0]["output"]
    assert "a bug in the check" not in saved["tests"][0]["output"]  # the detail is the TA's
