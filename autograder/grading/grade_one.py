"""Grade one submission: sandboxed code parts, then the evidence file.

Runs in a trusted grading process. Student code runs only in the sandboxed
worker (``SandboxStudent``); the checks, the reference and the comparisons run
here, on plain data.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from autograder.evidence import verify_evidence
from autograder.grading import run_checks, score_parts
from autograder.grading.carried_forward import BUILDING_BLOCKS
from autograder.grading.evidence_parts import evidence_part_scores
from autograder.grading.provenance import check_provenance, without_code
from autograder.grading.scoring import PartScore
from autograder.grading.submission import Submission
from autograder.results.result import (
    STATUS_ERROR,
    STATUS_GRADED,
    STATUS_UNGRADABLE,
    PartResult,
    SubmissionResult,
    TestResult,
)
from autograder.results.safe_text import without_paths
from autograder.sandbox.client import SandboxReport, SandboxStudent
from autograder.sandbox.limits import Limits
from autograder.sandbox.uids import UidLease
from autograder.sandbox.zygote import Zygote
from autograder.spec import REPO, SPEC


@dataclass
class GradingSession:
    """What one trusted grading process keeps between submissions: a warm zygote."""

    zygote: Zygote
    lease: UidLease
    limits: Limits = field(default_factory=Limits)
    isolate: bool = True
    allow_weaker: bool = False  # the TA's explicit consent to less than full isolation

    @classmethod
    def start(
        cls,
        limits: Limits | None = None,
        *,
        isolate: bool = True,
        allow_weaker: bool = False,
    ) -> GradingSession:
        """Start a zygote (workers see only the system and Python; see autograder.untrusted.isolation)."""
        (zygote,) = Zygote.launch()
        warm_up_checks()  # imports torch, pytest and the checks while the zygote starts
        return cls(zygote.wait_ready(), UidLease.acquire(), limits or Limits(), isolate,
                   allow_weaker)

    def close(self) -> None:
        self.zygote.close()
        self.lease.release()


# What ``safe_text.without_paths`` writes for a path of the grading machine: an error that
# names one means the student's code reached for a file outside its sandbox.
PRIVATE_PATH = "<path>"
REACHED_OUT_CELL = ("a cell of your notebook tried to open a file outside your submission, "
                    "on the machine that graded it: your notebook may read only the files "
                    "you submit with it; a person will check this submission before its "
                    "grade is final")
REACHED_OUT_FUNCTION = ("one of your functions tried to open a file outside your submission, "
                        "on the machine that graded it: a function may use only its "
                        "inputs; a person will check this submission before its grade is "
                        "final")


def private_paths(folder: Path) -> list[str]:
    """Absolute paths of the grading machine that no message may show: the course root
    (``<root>/submitted/<student>/<assignment>``), this repository and the TA's home."""
    resolved = folder.resolve()
    root = resolved.parents[2] if len(resolved.parents) > 2 else resolved
    return [str(root), str(resolved), str(REPO), str(Path.home())]


_WARM = False  # warm_up_checks has imported, collected and frozen in this process


def warm_up_checks() -> None:
    """Import and collect what the first ``run_checks`` would, so no submission pays
    for it (and processes forked afterwards start warm).

    Without cyclic garbage collection while importing (torch makes hundreds of thousands of
    long-lived objects: collecting them over and over cost about 0.3 s of the 1.4 s), and
    everything alive is then frozen (``gc.freeze``): no later collection, here or in a
    grading process forked from here, traverses those objects again, or copies the pages
    that hold them. Only the first call in a process does so: a long-lived process (a test
    session, a Dask worker) starting session after session freezes nothing more."""
    global _WARM
    if _WARM:
        _import_and_collect()  # cached: nothing is imported or collected again
        return
    enabled = gc.isenabled()
    gc.disable()
    try:
        _import_and_collect()
        _WARM = True
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def _import_and_collect() -> None:
    import torch

    import autograder.evidence  # noqa: F401  (jsonschema)
    import solutions  # noqa: F401
    from autograder.evidence.notebook_echo import release_index
    from autograder.grading.cells import release_locked_cells
    from autograder.grading.runner import collect_checks
    from autograder.results import feedback_page as report  # noqa: F401  (jinja2)

    torch.set_num_threads(1)  # one grading process per core; no thread pool to fork
    collect_checks()
    release_locked_cells()
    release_index()  # the notebook's sentences a limitation must not repeat (read once)
    SPEC.grading_key  # noqa: B018  (hashed once, before the grading processes fork)


def reference_answer(function: str, args: list, kwargs: dict) -> object:
    """The reference's answer for one call of a building block that hung or crashed (the
    sandbox asks it on the student's behalf, with plain data; see ``SandboxStudent``)."""
    import solutions

    return getattr(solutions, function)(*args, **kwargs)


def _part_result(score: PartScore) -> PartResult:
    return PartResult(
        part=score.part,
        points=float(score.points),
        max_points=float(score.max_points),
        messages=list(score.messages),
        diagnoses=list(score.diagnoses),
        explanations=list(score.explanations()),
        needs_review=score.needs_review,
    )


def _tests(score: PartScore) -> list[TestResult]:
    if not score.checks:  # evidence parts: one entry per part
        return [
            TestResult(
                score.part,
                score.part,
                float(score.points),
                float(score.max_points),
                "passed" if score.points == score.max_points else "failed",
                "\n".join(score.messages),
            )
        ]
    tests = []
    for check in score.checks:
        output = check.message  # a failure's reason, or "carried forward from ..." on a pass
        output = "\n".join([output, *_explain(check.diagnoses)]).strip()
        tests.append(
            TestResult(
                check.title,
                check.part,
                float(check.points),
                float(check.max_points),
                "passed" if check.status == "passed" else "failed",
                output,
            )
        )
    return tests


def _explain(codes: tuple[str, ...]) -> list[str]:
    from autograder.grading import misconceptions

    return [misconceptions.explain(code) for code in codes if code in misconceptions.MISCONCEPTIONS]


def _cell_notes(
    submission: Submission, report: SandboxReport, hidden: Sequence[str],
) -> list[str]:
    """Cells that raised or were skipped, named as the student sees them (``cell_name``;
    no path of ``hidden`` shown)."""
    ran = [cell for cell in submission.cells if cell.source is not None]
    notes = []
    for outcome in report.cells:
        if outcome.index >= len(ran) or (outcome.error is None and not outcome.skipped):
            continue
        cell = ran[outcome.index]
        where = without_paths(cell_name(cell.source or "", cell.grade_id), hidden)
        if outcome.skipped:
            notes.append(f"{where} was skipped: {outcome.skipped}")
            continue
        error = outcome.error
        notes.append(
            f"{where} raised {error.type_name}" + (f": {error.message}" if error.message else "")
        )
    return notes


def cell_name(source: str, grade_id: str = "") -> str:
    """A code cell as a student finds it in Jupyter, which numbers no cells: the solution
    cell of a graded function, or the cell by its first line."""
    if grade_id in SPEC.function_parts:
        return f"the solution cell of `{grade_id}`"
    first = next((line.strip() for line in source.splitlines() if line.strip()), "")
    first = first.replace("`", "'")
    if not first:
        return "an empty code cell"
    return f"the code cell that starts `{first if len(first) <= 50 else first[:47] + '...'}`"


def _zero_code_parts(reason: str) -> list[PartScore]:
    return [PartScore(part, 0, points, messages=(reason,)) for part, points in SPEC.function_points.items()]


def grade_submission(
    submission: Submission, session: GradingSession, *, cohort: str | None = None,
    hidden_paths: Sequence[str] = (),
) -> SubmissionResult:
    """The complete result for one submission; never raises for a student's doing.

    ``hidden_paths``: more absolute paths no message may show, besides those of
    ``private_paths(submission.folder)``: a cluster worker grading a copy of the folder
    passes the coordinator's, so its messages read as the local grader's would."""
    started = time.monotonic()
    notes = list(submission.notes)
    isolation: list[str] = []
    evidence_path = submission.evidence or submission.folder / SPEC.evidence_file
    report = verify_evidence(evidence_path, student_id=submission.student, cohort=cohort)
    if submission.fatal:
        scores = _zero_code_parts(submission.fatal)
        provenance = without_code(report)  # no functions: no section is reproduced
    else:
        hidden = [*private_paths(submission.folder), *hidden_paths]
        with SandboxStudent(
            submission.runnable,
            session.zygote,
            limits=session.limits,
            uid=session.lease.uid,
            isolate=session.isolate,
            allow_weaker=session.allow_weaker,
            private_paths=hidden,
            reap_later=True,  # the session holds its uid until it closes its zygote
            stand_in=reference_answer,  # a block that hangs or crashes is charged once
            stand_in_names=BUILDING_BLOCKS,
        ) as student:
            scores = list(score_parts(run_checks(student)).values())
            # The file's numbers must come from these functions (autograder.grading.provenance).
            provenance = check_provenance(
                report, student, student_id=submission.student, cohort=cohort,
                failed_functions={score.part for score in scores if score.points == 0},
                charged_functions={score.part for score in scores
                                   if score.points < score.max_points
                                   or any(check.carried_from for check in score.checks)},
            )
            cell_notes = _cell_notes(submission, student.report, hidden)
            notes += cell_notes
            if any(PRIVATE_PATH in note for note in cell_notes):
                notes.append(REACHED_OUT_CELL)
            notes += student.report.events
            isolation = student.report.isolation
            if student.report.output_bytes > 1_000_000:
                notes.append(
                    f"your code printed {student.report.output_bytes:,} characters; "
                    "only the start was kept"
                )
    scores += list(evidence_part_scores(report, provenance).values())
    order = list(SPEC.part_points)
    scores.sort(key=lambda s: order.index(s.part))
    parts = [_part_result(score) for score in scores]
    if any(PRIVATE_PATH in check.message for score in scores for check in score.checks):
        notes.append(REACHED_OUT_FUNCTION)
    # A check that crashed for the grader's own reasons decides nothing: the submission is a
    # grader error (not saved as graded, retried on the next run), the detail is the TA's.
    faults = [f"{check.name}: {check.internal}" for score in scores for check in score.checks
              if check.internal]
    status = STATUS_UNGRADABLE if submission.fatal else STATUS_GRADED
    reason = submission.fatal or "; ".join(notes)
    if faults:
        status = STATUS_ERROR
        reason = (f"internal grader error in {len(faults)} hidden check(s), not the student's "
                  "doing: the submission will be graded again on the next run")
    return SubmissionResult(
        student=submission.student,
        assignment=SPEC.name,
        status=status,
        reason=reason,
        faults=faults,
        parts=parts,
        tests=[test for score in scores for test in _tests(score)],
        notes=notes,
        # A person looks at what could not be graded, at code that reached outside its
        # sandbox, and at what the submission's files leave open (the notes say which).
        needs_review=(any(part.needs_review for part in parts) or status == STATUS_UNGRADABLE
                      or REACHED_OUT_CELL in notes or REACHED_OUT_FUNCTION in notes
                      or bool(submission.review)),
        # Not the parts' to settle: a decision on a part leaves it for a person
        # (autograder.results.decisions keeps a review_apart it finds set).
        review_apart=True if submission.review else None,
        submission_hash=submission.content_hash,
        grading_key=SPEC.grading_key,
        isolation=isolation,
        seconds=time.monotonic() - started,
        # What the student must not read (whose inputs a copied evidence file holds): the TA's.
        ta_notes=[f"evidence {finding.pointer or '(whole file)'}: {finding.ta_note}"
                  for finding in report.findings if finding.ta_note],
        cohort=cohort or "",
        graded_on=f"{datetime.now(UTC):%Y-%m-%d}",
    )
