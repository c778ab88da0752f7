"""From part scores to a submission's result: parts, tests, notes, status and review.

``grade_submission`` (``autograder.grading.grade_one``) grades; this module turns what it
found into the ``SubmissionResult`` every output is written from, and decides from
structured fields (a check's ``reached_out``, a grader fault, what the submission's files
leave open) whether a person must look at it.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from autograder.grading import diagnoses
from autograder.grading.part_inputs import part_inputs
from autograder.grading.scoring import PartScore, check_message
from autograder.grading.submission import Submission
from autograder.results import note_codes
from autograder.results.message import Message
from autograder.results.result import (
    STATUS_ERROR,
    STATUS_GRADED,
    STATUS_UNGRADABLE,
    PartResult,
    SubmissionResult,
    TestResult,
)

if TYPE_CHECKING:
    from autograder.assignments import Assignment

# The notes that tell a student why a person checks a submission whose code named a path
# of the grading machine (the sandbox hid it, and said so: ``CheckResult.reached_out``).
REACHED_OUT_CELL = ("a cell of your notebook tried to open a file outside your submission, "
                    "on the machine that graded it: your notebook may read only the files "
                    "you submit with it; a person will check this submission before its "
                    "grade is final")
REACHED_OUT_FUNCTION = ("one of your functions tried to open a file outside your submission, "
                        "on the machine that graded it: a function may use only its "
                        "inputs; a person will check this submission before its grade is "
                        "final")


def zero_code_parts(assignment: Assignment, reason: str) -> list[PartScore]:
    """Every function part at zero, for ``reason`` (a notebook that cannot be graded)."""
    return [PartScore(part, 0, points, messages=(Message(reason),))
            for part, points in assignment.function_points.items()]


def submission_result(
    submission: Submission,
    assignment: Assignment,
    scores: Iterable[PartScore],
    notes: Sequence[Message],
    *,
    started: float,
    cell_reached_out: bool = False,
    isolation: Sequence[str] = (),
    ta_notes: Sequence[Message] = (),
    cohort: str | None = None,
    plugin_faults: Sequence[str] = (),
) -> SubmissionResult:
    """The result of ``submission`` from its parts' ``scores`` and the student-facing
    ``notes`` grading made (``cell_reached_out``: a cell's error named a path of the
    grading machine); ``started``: when grading began (``time.monotonic``); ``plugin_faults``:
    the evidence plugin's answers that broke its contract, for the TA."""
    order = list(assignment.part_points)
    scores = sorted(scores, key=lambda score: order.index(score.part))
    table = diagnoses.known(assignment)
    notes = list(notes)
    inputs = part_inputs(submission, assignment)
    parts = [_part_result(score, inputs.get(score.part, "")) for score in scores]
    function_reached_out = any(check.reached_out for score in scores for check in score.checks)
    if function_reached_out:
        notes.append(Message(REACHED_OUT_FUNCTION, code=note_codes.REACHED_OUT_FUNCTION,
                             review=True))
    # A check that crashed for the grader's own reasons, or an evidence plugin that broke its
    # contract, decides nothing: the submission is a grader error (not saved as graded,
    # retried on the next run), the detail is the TA's.
    crashed = [f"{check.name}: {check.internal}" for score in scores for check in score.checks
               if check.internal]
    faults = [*crashed, *plugin_faults]
    status = STATUS_UNGRADABLE if submission.fatal else STATUS_GRADED
    reason = submission.fatal or "; ".join(note.text for note in notes)
    review_apart = any(note.review for note in notes)
    if faults:
        status = STATUS_ERROR
        where = " and ".join(([f"{len(crashed)} hidden check(s)"] if crashed else [])
                             + (["the evidence plugin"] if plugin_faults else []))
        reason = (f"internal grader error in {where}, not the student's "
                  "doing: the submission will be graded again on the next run")
    return SubmissionResult(
        student=submission.student,
        assignment=assignment.name,
        status=status,
        reason=reason,
        faults=faults,
        parts=parts,
        tests=[test for score in scores for test in _tests(score, table)],
        notes=notes,
        # A person looks at what could not be graded, at code that reached outside its
        # sandbox, and at what the submission's files leave open (the notes say which).
        needs_review=(any(part.needs_review for part in parts) or status == STATUS_UNGRADABLE
                      or cell_reached_out or review_apart),
        # Not the parts' to settle: a decision on a part leaves it for a person
        # (autograder.results.decisions keeps a review_apart it finds set).
        review_apart=True if review_apart else None,
        submission_hash=submission.content_hash,
        grading_key=assignment.grading_key,
        isolation=list(isolation),
        seconds=time.monotonic() - started,
        # What the student must not read (whose inputs a copied evidence file holds): the TA's.
        ta_notes=list(ta_notes),
        cohort=cohort or "",
        graded_on=f"{datetime.now(UTC):%Y-%m-%d}",
    )


def _part_result(score: PartScore, inputs_hash: str) -> PartResult:
    return PartResult(
        part=score.part,
        points=float(score.points),
        max_points=float(score.max_points),
        messages=list(score.messages),
        diagnoses=list(score.diagnoses),
        explanations=list(score.explanations),
        needs_review=score.needs_review,
        inputs_hash=inputs_hash,
    )


def _tests(score: PartScore, table: Mapping[str, str]) -> list[TestResult]:
    if not score.checks:  # evidence parts: one entry per part
        return [
            TestResult(
                score.part,
                score.part,
                float(score.points),
                float(score.max_points),
                "passed" if score.points == score.max_points else "failed",
                list(score.messages),
            )
        ]
    return [
        TestResult(
            check.title,
            check.part,
            float(check.points),
            float(check.max_points),
            "passed" if check.status == "passed" else "failed",
            [check_message(check)] if check.message else [],
            list(diagnoses.explanations(check.diagnoses, table)),
        )
        for check in score.checks
    ]
