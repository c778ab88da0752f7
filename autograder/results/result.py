"""The outcome of grading one submission, as plain data that is saved and compared.

One ``SubmissionResult`` per student becomes ``results.json`` (Gradescope's
format, our details under ``extra_data``), the feedback report, a row of
``grades.csv`` and the gradebook's grades. It is rebuilt from ``results.json``
on a re-run, so whatever was graded before an interruption is never lost.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

STATUS_GRADED = "graded"
STATUS_UNGRADABLE = "ungradable"
STATUS_ERROR = "grader_error"
LATE_UNKNOWN = "unknown"  # ``late`` when the batch has a due date but the submission no time
# How a part's message says a check (or an evidence section) passed on the student's own
# earlier results (``autograder.grading.carried_forward``): the message starts with it,
# after the section's JSON pointer for the evidence part ("/<section>: carried forward: ...").
CARRIED_FORWARD = "carried forward"
_CARRIED = re.compile(rf"^(?:/[\w/~-]*: )?{CARRIED_FORWARD}\b")


def is_carried_forward(message: str) -> bool:
    """Whether a part's message is a carried-forward note (points kept), not a problem."""
    return bool(_CARRIED.match(message))


@dataclass
class PartResult:
    """Points and student-facing feedback for one part."""

    part: str
    points: float
    max_points: float
    messages: list[str] = field(default_factory=list)
    diagnoses: list[str] = field(default_factory=list)  # codes
    explanations: list[str] = field(default_factory=list)  # the codes, in words
    needs_review: bool = False
    # A person's decision (autograder.results.decisions): what it says, and the machine's own
    # points and review flag it replaced (None: no decision applied).
    decided: str = ""
    auto_points: float | None = None
    auto_review: bool | None = None


@dataclass
class TestResult:
    """One check, as Gradescope shows it (``tags`` holds the part)."""

    name: str
    part: str
    score: float
    max_score: float
    status: str  # "passed" | "failed"
    output: str = ""


@dataclass
class SubmissionResult:
    """Everything known about one student's grade; see the module docstring."""

    student: str
    assignment: str
    status: str
    reason: str = ""
    parts: list[PartResult] = field(default_factory=list)
    tests: list[TestResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    needs_review: bool = False
    submission_hash: str = ""
    grading_key: str = ""  # what decided the grade (autograder.spec.grading_key)
    isolation: list[str] = field(default_factory=list)
    seconds: float = 0.0
    submitted_at: str = ""  # nbgrader's timestamp, when there is one
    due: str = ""  # the due date ``late`` was decided against ("" = the batch had none)
    late: bool = False  # submitted after the due date (flagged, not penalised)
    late_unknown: bool = False  # a due date, but no readable submission time: a TA checks
    # Where submitted_at comes from (autograder.batch.lateness): "exchange" or "lms" (a record
    # the student cannot write agrees with timestamp.txt, or stands in for it), "timestamp.txt
    # only" (nothing to check it against), "" (no time); received_at: that record's time.
    time_source: str = ""
    received_at: str = ""
    faults: list[str] = field(default_factory=list)  # checks that crashed: the grader's, for the TA
    # For the TA only (results.json, grades.csv), never on the student's page: e.g. whose
    # inputs a copied evidence file holds.
    ta_notes: list[str] = field(default_factory=list)
    cohort: str = ""  # the cohort the evidence inputs were derived from ("" = none)
    graded_on: str = ""  # the day it was graded, ``YYYY-MM-DD`` in UTC (feedback page header)
    # Flagged for review for a reason other than its parts (ungradable, lateness, code that
    # reached out); set when decisions are first applied (autograder.results.decisions).
    review_apart: bool | None = None
    # The course's late policy in words ("" = none) and the points it took off the parts'
    # total (autograder.results.late_policy): the score of record is after it.
    late_policy: str = ""
    late_penalty: float = 0.0
    # Which kept version of the submission this result is (autograder.batch.version_rule):
    # {"rule", "counted" (16 hex digits), "why", "versions": [{"hash", "submitted_at", "late",
    # "score"}]}; {} when nothing was kept or chosen (results saved before versions existed).
    version: dict = field(default_factory=dict)

    @property
    def parts_score(self) -> float:
        """The parts' points, before any late penalty."""
        return round(sum(part.points for part in self.parts), 6)

    @property
    def score(self) -> float:
        """The total of record: the parts' points less the late penalty."""
        return round(max(0.0, self.parts_score - self.late_penalty), 6)

    @property
    def max_score(self) -> float:
        return round(sum(part.max_points for part in self.parts), 6)

    @property
    def late_label(self) -> str:
        """``yes``, ``no`` or ``unknown`` (a due date, but no readable submission time)."""
        return LATE_UNKNOWN if self.late_unknown else ("yes" if self.late else "no")

    def lateness_key(self) -> tuple:
        """What ``autograder.batch.lateness.Lateness.key`` compares a saved result by."""
        return (self.submitted_at, self.late, self.late_unknown, self.time_source,
                self.received_at)

    def part(self, name: str) -> PartResult:
        return next(p for p in self.parts if p.part == name)

    def to_gradescope(self) -> dict[str, Any]:
        """Gradescope's results.json; our own fields go in ``extra_data``."""
        summary = f"{self.score:g} / {self.max_score:g}"
        if self.late_penalty:
            summary += f" (late penalty −{self.late_penalty:g}: {self.late_policy})"
        if self.reason:
            summary += f" — {self.reason}"
        return {
            "score": self.score,
            "max_score": self.max_score,
            "output": summary,
            "visibility": "visible",
            "tests": [
                {
                    "name": test.name,
                    "score": test.score,
                    "max_score": test.max_score,
                    "status": test.status,
                    "output": test.output,
                    "tags": [test.part],
                    "visibility": "visible",
                }
                for test in self.tests
            ],
            "extra_data": {
                "student": self.student,
                "assignment": self.assignment,
                "status": self.status,
                "reason": self.reason,
                "parts": [asdict(part) for part in self.parts],
                "notes": self.notes,
                "needs_review": self.needs_review,
                "submission_hash": self.submission_hash,
                "grading_key": self.grading_key,
                "isolation": self.isolation,
                "seconds": round(self.seconds, 3),
                "submitted_at": self.submitted_at,
                "due": self.due,
                "late": LATE_UNKNOWN if self.late_unknown else self.late,  # true, false, "unknown"
                "time_source": self.time_source,
                "received_at": self.received_at,
                "grader_faults": self.faults,
                "ta_notes": self.ta_notes,
                "cohort": self.cohort,
                "graded_on": self.graded_on,
                "review_apart": self.review_apart,
                "late_policy": self.late_policy,
                "late_penalty": self.late_penalty,
                "version": self.version,
            },
        }

    @classmethod
    def from_gradescope(cls, data: dict[str, Any]) -> SubmissionResult:
        """Inverse of ``to_gradescope`` (for resuming and re-exporting)."""
        extra = data["extra_data"]
        return cls(
            student=extra["student"],
            assignment=extra["assignment"],
            status=extra["status"],
            reason=extra.get("reason", ""),
            parts=[PartResult(**part) for part in extra["parts"]],
            tests=[
                TestResult(
                    test["name"],
                    test["tags"][0],
                    test["score"],
                    test["max_score"],
                    test["status"],
                    test.get("output", ""),
                )
                for test in data.get("tests", [])
            ],
            notes=extra.get("notes", []),
            needs_review=extra.get("needs_review", False),
            submission_hash=extra.get("submission_hash", ""),
            grading_key=extra.get("grading_key", ""),
            isolation=extra.get("isolation", []),
            seconds=extra.get("seconds", 0.0),
            submitted_at=extra.get("submitted_at", ""),
            due=extra.get("due", ""),
            late=extra.get("late", False) is True,
            late_unknown=extra.get("late") == LATE_UNKNOWN,
            time_source=extra.get("time_source", ""),
            received_at=extra.get("received_at", ""),
            faults=extra.get("grader_faults", []),
            ta_notes=extra.get("ta_notes", []),
            cohort=extra.get("cohort", ""),
            graded_on=extra.get("graded_on", ""),
            review_apart=extra.get("review_apart"),
            late_policy=extra.get("late_policy", ""),
            late_penalty=float(extra.get("late_penalty", 0.0)),
            version=extra.get("version") or {},
        )


def write_atomically(path: Path, text: str) -> None:
    """Write via a temporary file and rename: a killed run never leaves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def save(result: SubmissionResult, path: Path) -> None:
    """Write ``results.json`` atomically."""
    write_atomically(path, json.dumps(result.to_gradescope(), indent=2, allow_nan=False) + "\n")


def load(path: Path) -> SubmissionResult | None:
    """A previously saved result, or None if absent or unreadable (then it is regraded)."""
    try:
        return SubmissionResult.from_gradescope(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None
