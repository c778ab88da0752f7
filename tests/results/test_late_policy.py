"""The late policy (issue 27): a share of the maximum per started day or hour late, a cap and
a grace period, read from cohorts.toml or the command line, applied once to the total of
record; unknown lateness is never penalised."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from autograder.results.late_policy import LatePolicy, LatePolicyError, apply, from_table, parse
from autograder.results.result import STATUS_GRADED, PartResult, SubmissionResult
from tests.support.vectors import VECTORS as SPEC

DUE = datetime(2026, 12, 14, 23, 59, tzinfo=UTC)
POLICY = LatePolicy(percent=10, per="day", cap=30, grace_minutes=15)


def _result(points: float = 90.0, late: bool = True, unknown: bool = False) -> SubmissionResult:
    result = SubmissionResult("s1", SPEC.name, STATUS_GRADED,
                              parts=[PartResult("a", points, 100.0)])
    result.late, result.late_unknown = late, unknown
    return result


@pytest.mark.parametrize(("late_by", "penalty"), [
    (timedelta(minutes=10), 0),  # within the grace
    (timedelta(minutes=16), 10),  # one started day
    (timedelta(days=1, minutes=15), 10),  # still the first day after the grace
    (timedelta(days=1, minutes=16), 20),
    (timedelta(days=9), 30),  # capped
])
def test_penalty_per_started_day_after_grace_with_a_cap(late_by, penalty):
    assert POLICY.penalty(DUE + late_by, DUE, 100) == penalty


def test_per_hour_and_the_words_a_student_reads():
    hourly = parse("2%/hour, cap 50%, grace 1h")
    assert hourly == LatePolicy(percent=2, per="hour", cap=50, grace_minutes=60)
    assert hourly.penalty(DUE + timedelta(hours=3, minutes=1), DUE, 100) == 6
    assert hourly.describe() == ("2% of the maximum per started hour late, at most 50%, after a "
                                 "grace of 60 minutes")
    assert parse("none").describe() == "no late penalty"


def test_applied_once_to_the_total_of_record():
    result = apply(_result(), POLICY, DUE, DUE + timedelta(days=2))
    assert (result.parts_score, result.late_penalty, result.score) == (90, 20, 70)
    again = apply(result, POLICY, DUE, DUE + timedelta(days=2))  # applied twice: still once
    assert again.score == 70
    extra = again.to_gradescope()["extra_data"]
    assert extra["late_penalty"] == 20 and "per started day" in extra["late_policy"]
    assert SubmissionResult.from_gradescope(again.to_gradescope()).score == 70


def test_never_more_than_the_points_and_never_for_unknown_or_on_time():
    assert apply(_result(points=5), POLICY, DUE, DUE + timedelta(days=9)).score == 0
    assert apply(_result(unknown=True), POLICY, DUE, DUE + timedelta(days=2)).late_penalty == 0
    assert apply(_result(late=False), POLICY, DUE, DUE + timedelta(days=2)).late_penalty == 0


@pytest.mark.parametrize("text", ["10 per day", "10%/week", "cap fifty", "grace 5 days"])
def test_a_policy_that_cannot_be_read_says_how_to_write_it(text):
    with pytest.raises(LatePolicyError, match="e.g. '10%/day, cap 50%, grace 15m'"):
        parse(text)


def test_a_toml_table_with_unknown_keys_or_bad_values_is_refused():
    with pytest.raises(LatePolicyError, match="unknown key"):
        from_table({"percent": 10, "penalty": 3})
    with pytest.raises(LatePolicyError, match="at most 100"):
        from_table({"percent": 10, "cap": 150})
    with pytest.raises(LatePolicyError, match="'day' or 'hour'"):
        from_table({"percent": 10, "per": "week"})


def test_the_lms_files_and_grades_csv_carry_the_total_after_the_penalty():
    from autograder.integrations.lms.grades import split
    from autograder.views import grades_csv

    result = apply(_result(), POLICY, DUE, DUE + timedelta(days=2))
    row = grades_csv.row(result)
    assert (row["total"], row["late_penalty"]) == ("70", "20")
    (grade,), _ = split([result])
    assert grade.points == "70"
