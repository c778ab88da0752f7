"""Grade one submission: sandboxed code parts, then (if the assignment has one) its
evidence file.

Runs in a trusted grading process (``autograder.grading.session``). Student code runs only
in the sandboxed worker (``SandboxStudent``); the checks, the reference and the
comparisons run here, on plain data. The result is assembled by
``autograder.grading.assemble``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, Any

from autograder.base.safe_text import PRIVATE_PATH, hide_paths
from autograder.base.stages import stage
from autograder.grading import run_checks, score_parts
from autograder.grading.assemble import (
    REACHED_OUT_CELL,
    REACHED_OUT_FUNCTION,
    submission_result,
    zero_code_parts,
)
from autograder.grading.cells import cell_name
from autograder.grading.evidence_scores import evidence_part_scores
from autograder.grading.paths import private_paths
from autograder.grading.session import GradingSession, warm_up_checks
from autograder.grading.student import reached_out
from autograder.grading.submission import Submission
from autograder.results import note_codes
from autograder.results.message import Message
from autograder.results.result import SubmissionResult
from autograder.sandbox.client import SandboxReport, SandboxStudent

if TYPE_CHECKING:
    from autograder.assignments import Assignment

__all__ = ["PRIVATE_PATH", "REACHED_OUT_CELL", "REACHED_OUT_FUNCTION", "GradingSession",
           "cell_name", "grade_submission", "private_paths", "reference_stand_in",
           "warm_up_checks"]

OUTPUT_KEPT = 1_000_000  # characters of printed output a note is made about


def reference_stand_in(assignment: Assignment) -> Callable[[str, list, dict], Any]:
    """The reference's answer for one call of a building block that hung or crashed (the
    sandbox asks it on the student's behalf, with plain data; see ``SandboxStudent``)."""
    reference = assignment.reference

    def answer(function: str, args: list, kwargs: dict) -> object:
        return getattr(reference, function)(*args, **kwargs)

    return answer


def cell_notes(
    submission: Submission, report: SandboxReport, hidden: Sequence[str],
    function_parts: Collection[str],
) -> tuple[list[Message], bool]:
    """Cells that raised or were skipped, named as the student sees them (``cell_name``;
    no path of ``hidden`` shown), and whether one named a path of the grading machine."""
    ran = [cell for cell in submission.cells if cell.source is not None]
    notes = []
    reached = False
    for outcome in report.cells:
        if outcome.index >= len(ran) or (outcome.error is None and not outcome.skipped):
            continue
        cell = ran[outcome.index]
        # Paths hidden before the name is shortened: it reads the same wherever the grader runs.
        first = next((line for line in (cell.source or "").splitlines() if line.strip()), "")
        first, hid = hide_paths(first, hidden)
        where = cell_name(first, cell.grade_id, function_parts)
        reached = reached or hid
        if outcome.skipped:
            notes.append(Message(f"{where} was skipped: {outcome.skipped}",
                                 code=note_codes.CELL_SKIPPED))
            continue
        error = outcome.error
        reached = reached or reached_out(error)
        notes.append(Message(
            f"{where} raised {error.type_name}" + (f": {error.message}" if error.message else ""),
            code=note_codes.CELL_RAISED))
    return notes, reached


def grade_submission(
    submission: Submission, session: GradingSession, *, cohort: str | None = None,
    hidden_paths: Sequence[str] = (),
) -> SubmissionResult:
    """The complete result for one submission of the session's assignment; never raises for
    a student's doing.

    ``hidden_paths``: more absolute paths no message may show, besides those of
    ``private_paths(submission.folder)``: a cluster worker grading a copy of the folder
    passes the coordinator's, so its messages read as the local grader's would."""
    started = time.monotonic()
    assignment = session.assignment
    evidence = assignment.evidence  # None: the assignment has no evidence file
    notes = list(submission.notes)
    isolation: list[str] = []
    cell_reached_out = False
    report = None
    if evidence is not None:
        path = submission.evidence or submission.folder / evidence.file_name
        # No student id ("": Gradescope gave none): the file's own is used, and flagged.
        with stage("evidence: verify the file (schema, numbers)"):
            report = evidence.verify(path, student_id=submission.student or None, cohort=cohort)
    if submission.fatal:
        scores = zero_code_parts(assignment, submission.fatal)
        # No functions: no section of the evidence file is reproduced.
        provenance = evidence.without_code(report) if evidence is not None else None
    else:
        hidden = [*private_paths(submission.folder), *hidden_paths, *assignment.private_folders]
        with SandboxStudent(
            submission.runnable,
            session.zygote,
            limits=session.limits,
            uid=session.lease.uid,
            isolate=session.isolate,
            allow_weaker=session.allow_weaker,
            private_paths=hidden,
            reap_later=True,  # the session holds its uid until it closes its zygote
            stand_in=reference_stand_in(assignment),  # a block that hangs or crashes is charged once
            stand_in_names=assignment.building_blocks,
        ) as student:
            scores = list(score_parts(run_checks(student, assignment), assignment).values())
            provenance = None
            if evidence is not None:  # the file's numbers must come from these functions
                with stage("evidence: provenance (the file's numbers from the code)"):
                    provenance = evidence.provenance(
                        report, student, student_id=submission.student or None, cohort=cohort,
                        failed_functions={score.part for score in scores if score.points == 0},
                        charged_functions={score.part for score in scores
                                           if score.points < score.max_points
                                           or any(check.carried_from for check in score.checks)},
                    )
            found, cell_reached_out = cell_notes(submission, student.report, hidden,
                                                 assignment.function_parts)
            notes += found
            if cell_reached_out:
                notes.append(Message(REACHED_OUT_CELL, code=note_codes.REACHED_OUT_CELL,
                                     review=True))
            notes += [Message(event, code=note_codes.FUNCTION_STOPPED, part=function)
                      for event, function in zip(student.report.events,
                                                  student.report.event_functions, strict=True)]
            isolation = student.report.isolation
            if student.report.output_bytes > OUTPUT_KEPT:
                notes.append(Message(
                    f"your code printed {student.report.output_bytes:,} characters; "
                    "only the start was kept", code=note_codes.OUTPUT_CUT))
    ta_notes: list[Message] = []
    faults: list[str] = []
    if evidence is not None:
        # Checked at the call: a plugin's bug is a grader fault, never the student's zero.
        with stage("evidence: part scores"):
            evidence_scores, fault = evidence_part_scores(evidence, report, provenance,
                                                          assignment)
        scores += evidence_scores
        faults += [fault] if fault else []
        ta_notes = [Message(text, code=note_codes.EVIDENCE_FINDING)
                    for text in evidence.ta_notes(report)]
    with stage("assemble the result (scores, messages)"):
        return submission_result(
            submission, assignment, scores, notes, started=started,
            cell_reached_out=cell_reached_out, isolation=isolation, ta_notes=ta_notes,
            cohort=cohort, plugin_faults=faults,
        )
