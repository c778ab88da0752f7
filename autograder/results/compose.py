"""The grade of record of one student, composed from what the machine graded, what people
decided and the course's settings: one pure function, written nowhere.

``compose`` takes the machine's result of the counted version (as grading saved it), the
root's decisions and the late policy with this student's due date, and returns the record
every output renders. The machine's own points stay in the record beside a decision
(``PartResult.auto_points``: nbgrader's auto score beside its manual one), so applying it
again, after a new decision or a new policy, starts from them: composing is idempotent and
never takes what a machine graded for what a person decided.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime

from autograder.base.course import parse_time
from autograder.results import decisions as decided
from autograder.results import late_policy
from autograder.results.late_policy import LatePolicy
from autograder.results.result import STATUS_ERROR, SubmissionResult


def compose(machine: SubmissionResult, decisions: decided.Decisions,
            policy: LatePolicy | None = None, due: datetime | None = None) -> SubmissionResult:
    """The record of ``machine``'s student (a new object; ``machine`` is left as it was):
    its decisions applied, then the late policy (``None``: the penalty ``machine`` holds
    stands) against ``due``, this student's due date. A grader error is its own row, and a
    result nobody decided about with no policy to apply is its own record: both as they are."""
    if machine.status == STATUS_ERROR or not _touched(machine, decisions, policy):
        return machine
    record = _copy(machine)
    decided.apply(record, decisions)
    if policy is not None:
        late_policy.apply(record, policy, due, submitted_time(record))
    return record


def _touched(result: SubmissionResult, decisions: decided.Decisions,
             policy: LatePolicy | None) -> bool:
    """Whether composing changes anything: a decision about the student (or one applied to
    the result before), or a late policy (or a penalty applied before)."""
    return bool(decisions.for_student(result.student)) or any(
        part.decided or part.auto_review is not None for part in result.parts) or (
        policy is not None and bool(policy.active or result.late_penalty or result.late_policy))


def _copy(result: SubmissionResult) -> SubmissionResult:
    """A copy of ``result`` that composing may change: what ``decisions.apply`` and
    ``late_policy.apply`` set (the result's fields, its parts' and its tests') is its own; the
    messages, which composing never changes, are shared (a deep copy costs ten times more,
    for every student of every run with a late policy)."""
    return dataclasses.replace(result, parts=[dataclasses.replace(p) for p in result.parts],
                               tests=[dataclasses.replace(t) for t in result.tests])


def submitted_time(result: SubmissionResult) -> datetime | None:
    """When the result's submission was handed in, as a time (None: none, or unreadable)."""
    try:
        return parse_time(result.submitted_at) if result.submitted_at else None
    except (ValueError, OverflowError):
        return None
