"""What becomes of one graded submission, wherever it was graded: written once, here.

A process of the local pool (``engine``) and the coordinator of a Dask batch
(``cluster.executor``) both end a submission the same way: its time is judged against
the due date (``mark_submission_time``), then its ``results.json``, ``feedback.html`` and
the graded notebook formgrader opens are written (``save_result``). A submission the
grader failed on is a row of its own (``internal_error_result``), never saved as graded.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.base.course import RESULTS_JSON, Course
from autograder.base.stages import stage
from autograder.batch import lateness, resume
from autograder.results import note_codes
from autograder.results.compose import compose
from autograder.results.result import STATUS_ERROR, PartResult, SubmissionResult
from autograder.results.root_settings import due_text
from autograder.views.student_files import write_student, write_version

if TYPE_CHECKING:
    from autograder.assignments import Assignment
    from autograder.batch.versions import Version
    from autograder.results.decisions import Decisions
    from autograder.results.late_policy import LatePolicy


def internal_error_result(student: str, assignment: Assignment, detail: str) -> SubmissionResult:
    """The row of a submission the grader failed on (never saved as graded: retried on
    the next run); ``detail`` says what failed, for the TA."""
    reason = f"internal grader error (not the student's doing): {detail}"
    parts = [PartResult(part, 0.0, float(points), [reason])
             for part, points in assignment.part_points.items()]
    return SubmissionResult(student, assignment.name, STATUS_ERROR, reason[:500], parts)


def error_result(student: str, assignment: Assignment, error: BaseException) -> SubmissionResult:
    """``internal_error_result`` for an exception the grader raised."""
    return internal_error_result(student, assignment, f"{type(error).__name__}: {error}")


def mark_submission_time(result: SubmissionResult, folder: Path, due: datetime | None,
                         decided: lateness.Lateness | None = None) -> None:
    """``submitted_at``, ``due``, ``late`` and where the time comes from, of ``result``: the
    submission's ``timestamp.txt`` checked against the receipt ``cohort collect`` recorded
    (``autograder.batch.lateness``). With a due date, a submission whose time is missing,
    unreadable or contradicted by its receipt is ``late: unknown`` and goes to review, with
    the reason (both times, when they disagree). Without a due date ``late`` is ``unknown``
    too, never "no" (nothing was judged), with ``lateness.NOT_JUDGED`` as the TA's reason
    and no review. ``decided``: the lateness already judged (a kept version's, from its own
    receipt), instead of the course's judgement of ``folder``."""
    if due is not None and due.tzinfo is None:
        due = due.replace(tzinfo=UTC)
    if decided is None:
        decided = lateness.decide(folder, due)
    result.submitted_at = decided.submitted_at
    result.due = due_text(due)
    result.late = decided.late
    result.late_unknown = decided.unknown
    result.time_source = decided.time_source
    result.received_at = decided.received_at
    if due is None:  # late: unknown, not "no"
        result.ta_note(lateness.NOT_JUDGED, note_codes.LATE_NOT_JUDGED)
    if decided.note:
        result.note(decided.note, note_codes.TIME_UNCONFIRMED, review=True)


_RECORD_INPUTS: tuple[Decisions, LatePolicy] | None = None


@contextmanager
def composing(decisions: Decisions, policy: LatePolicy) -> Iterator[None]:
    """While a batch grades: each result is saved as the grade of record (the root's
    decisions and late policy composed in, ``autograder.results.compose``), so a student's
    files are written once a run, by whichever process graded them (the grading processes
    are forked inside the block, and inherit it)."""
    global _RECORD_INPUTS
    _RECORD_INPUTS = (decisions, policy)
    try:
        yield
    finally:
        _RECORD_INPUTS = None


def save_result(course: Course, assignment: Assignment, result: SubmissionResult, *,
                due: datetime | None, notebook: Path | None = None) -> SubmissionResult:
    """Judge ``result``'s time (before anything is saved), compose the grade of record (inside
    ``composing``), then write its ``results.json``, ``feedback.html`` and graded notebook
    (``notebook``: the one graded, found in the submission folder when not given); returns
    what was written."""
    folder = course.submitted(result.student)
    with stage("write: lateness (receipt, timestamp)"):
        mark_submission_time(result, folder, due)
    if _RECORD_INPUTS is not None:
        decisions, policy = _RECORD_INPUTS
        result = compose(result, decisions, policy, due)
    write_student(course, assignment, result, notebook=notebook)
    resume.keep(course, result.student, course.autograded(result.student) / RESULTS_JSON)
    return result


def save_version_result(kept: Version, result: SubmissionResult, *,
                        due: datetime | None) -> SubmissionResult:
    """Judge the time of a kept version's ``result`` from its own receipt, and write its
    ``results.json`` beside it (``autograder.batch.versions``); which version counts, and
    what the student sees, is decided once all are graded (``autograder.batch.counted``)."""
    if due is not None and due.tzinfo is None:
        due = due.replace(tzinfo=UTC)
    mark_submission_time(result, kept.files, due,
                         lateness.decide_kept(kept.files, kept.receipt, due))
    write_version(result, kept.results_json)
    return result


def write_record_files(course: Course, assignment: Assignment,
                       result: SubmissionResult) -> None:
    """Write ``result`` (its time already judged: taken from ``autograder.batch.resume``) as
    ``save_result`` does, into this run's change of the root."""
    write_student(course, assignment, result)
