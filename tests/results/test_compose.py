"""``compose``: the grade of record from the machine's result, decisions and the late policy,
without changing the machine's result (issue 51: decisions an overlay on it, as nbgrader keeps
auto and manual scores apart)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from autograder.results import late_policy
from autograder.results.compose import compose
from autograder.results.decisions import Decisions
from autograder.results.result import (
    STATUS_ERROR,
    STATUS_GRADED,
    PartResult,
    SubmissionResult,
)
from autograder.results.result import (
    TestResult as CheckResult,
)

DUE = datetime(2026, 12, 1, 23, 59, tzinfo=UTC)


def machine() -> SubmissionResult:
    parts = [PartResult("dot", 3.0, 3.0), PartResult("limitation", 2.0, 8.0, needs_review=True)]
    tests = [CheckResult("dot", "dot", 3.0, 3.0, "passed"),
             CheckResult("limitation", "limitation", 2.0, 8.0, "failed")]
    return SubmissionResult("s1", "hw", STATUS_GRADED, parts=parts, tests=tests,
                            needs_review=True, submission_hash="abc", late=True,
                            submitted_at="2026-12-03 10:00:00 UTC", due="2026-12-01 23:59 UTC")


def test_a_decision_and_the_policy_make_the_record_and_leave_the_machine_result(tmp_path: Path):
    graded = machine()
    before = graded.to_gradescope()
    decisions = Decisions(tmp_path / "decisions.json")
    decisions.set(graded, "limitation", 6, by="ta", note="sound")
    record = compose(graded, decisions, late_policy.parse("10%/day"), DUE)
    assert graded.to_gradescope() == before  # the machine's result is as it was
    assert record.part("limitation").points == 6 and record.part("limitation").auto_points == 2
    assert record.late_penalty == 2.2  # two started days, 10% of 11 each
    assert record.score == 3 + 6 - 2.2 and not record.needs_review
    assert [t.score for t in record.tests] == [3.0, 6.0]  # the part shown as one test follows


def test_composing_the_record_again_gives_the_same_record(tmp_path: Path):
    decisions = Decisions(tmp_path / "decisions.json")
    decisions.set(machine(), "limitation", 5, by="ta")
    policy = late_policy.parse("10%/day")
    once = compose(machine(), decisions, policy, DUE)
    twice = compose(once, decisions, policy, DUE)
    assert twice.to_gradescope() == once.to_gradescope()
    decisions.clear("s1", "limitation", by="ta")  # taken back: the machine's points again
    assert compose(once, decisions, policy, DUE).part("limitation").points == 2


def test_a_grader_error_is_its_own_row(tmp_path: Path):
    failed = SubmissionResult("s1", "hw", STATUS_ERROR, reason="internal grader error")
    assert compose(failed, Decisions(tmp_path / "d.json")) is failed
