"""What a person decided about a grade, kept beside the automatic result (the grade of record).

A TA's score for a part (a manual grade for a limitation the machine could not judge, or an
override) is recorded with who, when and why, and with the *basis* it judged: a fingerprint of
the part's own inputs and of its automatic result. Every output is written from
``apply(result, decisions)``, the automatic result with those decisions in it, so
``results.json``, ``feedback.html``, ``grades.csv``, the gradebook (``nbgrader export``,
formgrader), the LMS files, ``summary.md`` and the report all show one number.

A regrade keeps a decision while its basis holds (``--force``, a new grader version that
grades the part alike, a resubmission that leaves the part's inputs as they were). When the
part's automatic result or its inputs changed, the decision is not applied: the part keeps
its automatic points and goes to review, and says which decision no longer applies. Nothing a person decided is dropped silently.

Stored as ``decisions.json`` at the course root, written atomically; scores entered in
formgrader are read into it before grading (``autograder.views.gradebook.manual_scores``).
"""

from __future__ import annotations

import hashlib
import json
import os
import pwd
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from autograder.results.result import (
    STATUS_UNGRADABLE,
    PartResult,
    SubmissionResult,
    write_atomically,
)

DECISIONS_JSON = "decisions.json"
# 3: bases of the part's own inputs (``basis``); 2: of the whole submission (``basis_2``);
# 1: of the messages' words (``basis_1``); the older two still read.
VERSION = 3


class DecisionError(ValueError):
    """A decision that cannot be recorded, or a decisions file that cannot be read: one line."""


@dataclass(frozen=True)
class PartDecision:
    """A person's score for one part of one student's submission."""

    student: str
    part: str
    points: float
    by: str
    at: str  # when, ``YYYY-MM-DD HH:MM UTC``
    note: str  # why, in the TA's words (shown to the student)
    basis: str  # ``basis(result, part)`` of the result it judged

    def describe(self) -> str:
        """One line for the student and the TA: the score, who, when, why."""
        why = f": {self.note}" if self.note else ""
        return f"scored {self.points:g} by {self.by} on {self.at[:10]}{why}"


def basis(result: SubmissionResult, part: PartResult) -> str:
    """What a decision about ``part`` judged: the part's own inputs (``PartResult.inputs_hash``:
    the text to judge, the code, the evidence file; the whole submission for a result graded
    before parts kept theirs) and its automatic verdict (points, diagnoses, and what each
    message is about: its kind, pointer and carried-forward blocks, not its words). A
    resubmission that changes what the part judged, or a changed verdict, makes the decision
    stale (flagged) instead of silently carried over; a change elsewhere in the submission (a
    markdown cell) or a reworded message does not."""
    auto = part.auto_points if part.auto_points is not None else part.points
    about = [[m.code, m.pointer, m.carried, m.carried_from] for m in part.messages]
    judged_inputs = part.inputs_hash or result.submission_hash
    text = json.dumps([3, judged_inputs, part.part, auto, part.max_points, about,
                       part.diagnoses], sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def basis_2(result: SubmissionResult, part: PartResult) -> str:
    """The basis decisions.json version 2 recorded (the whole submission's hash): a decision
    made then still holds while the submission and the part's verdict are as they were."""
    auto = part.auto_points if part.auto_points is not None else part.points
    about = [[m.code, m.pointer, m.carried, m.carried_from] for m in part.messages]
    text = json.dumps([2, result.submission_hash, part.part, auto, part.max_points,
                       about, part.diagnoses], sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def basis_1(result: SubmissionResult, part: PartResult) -> str:
    """The basis decisions.json version 1 recorded (with the messages' words): a decision
    made then still holds while the part reads as it did."""
    auto = part.auto_points if part.auto_points is not None else part.points
    text = json.dumps([result.submission_hash, part.part, auto, part.max_points,
                       [m.flat() for m in part.messages], part.diagnoses], sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def judged(entry: PartDecision, result: SubmissionResult, part: PartResult) -> bool:
    """Whether ``entry`` judged ``part`` as it stands (its basis, of any version)."""
    return entry.basis in (basis(result, part), basis_2(result, part), basis_1(result, part))


def current_user() -> str:
    """Who is deciding, by default: the login name (``--by`` overrides it)."""
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return f"uid {os.getuid()}"


def now_text() -> str:
    return f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC"


class Decisions:
    """The course root's decisions, by (student, part)."""

    def __init__(self, path: Path, parts: dict[tuple[str, str], PartDecision] | None = None,
                 history: list[dict] | None = None):
        self.path = path
        self.parts = parts or {}
        # Every decision ever recorded or taken back, oldest first: nothing a person decided
        # is lost, even once replaced ("set" / "clear" with who, when and why).
        self.history = history or []

    @classmethod
    def load(cls, root: Path) -> Decisions:
        """The root's ``decisions.json`` (none yet: empty). ``DecisionError`` for a file that
        is there but unreadable: grading must not go on as if nobody had decided anything."""
        path = root / DECISIONS_JSON
        if not path.exists():
            return cls(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            entries = [PartDecision(**entry) for entry in data["parts"]]
            history = list(data.get("history", []))
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise DecisionError(
                f"cannot read the TA decisions in {path} ({error}); fix or restore the file "
                "(it is JSON written by `python -m autograder review`) before grading") from None
        return cls(path, {(entry.student, entry.part): entry for entry in entries}, history)

    def save(self) -> None:
        entries = [asdict(entry) for _, entry in sorted(self.parts.items())]
        write_atomically(self.path, json.dumps(
            {"version": VERSION, "parts": entries, "history": self.history}, indent=2) + "\n")

    def get(self, student: str, part: str) -> PartDecision | None:
        return self.parts.get((student, part))

    def for_student(self, student: str) -> list[PartDecision]:
        return [entry for (who, _), entry in sorted(self.parts.items()) if who == student]

    def set(self, result: SubmissionResult, part: str, points: float, *, by: str = "",
            note: str = "", at: str = "") -> PartDecision:
        """Record a score for ``part`` of ``result`` (its current automatic result is the
        basis). ``DecisionError`` for an unknown part or points outside 0..max."""
        found = next((p for p in result.parts if p.part == part), None)
        if found is None:
            known = ", ".join(p.part for p in result.parts)
            raise DecisionError(f"{result.student} has no part {part!r} (parts: {known})")
        if not 0 <= points <= found.max_points:
            raise DecisionError(f"{points:g} is not a score for {part}: it is worth 0 to "
                                f"{found.max_points:g} points")
        entry = PartDecision(result.student, part, float(points), by or current_user(),
                             at or now_text(), " ".join(note.split()), basis(result, found))
        self.parts[(result.student, part)] = entry
        self.history.append({"action": "set", **asdict(entry)})
        return entry

    def clear(self, student: str, part: str, *, by: str = "") -> PartDecision | None:
        entry = self.parts.pop((student, part), None)
        if entry is not None:
            self.history.append({"action": "clear", "student": student, "part": part,
                                 "by": by or current_user(), "at": now_text(),
                                 "was": entry.points})
        return entry

    def history_of(self, student: str) -> list[dict]:
        """What was decided about ``student``'s parts, oldest first."""
        return [event for event in self.history if event.get("student") == student]


def apply(result: SubmissionResult, decisions: Decisions) -> SubmissionResult:
    """``result`` with this student's decisions in it (in place, and returned). Idempotent:
    applied to a result that already carries decisions, it starts from the automatic values
    those kept (``PartResult.auto_points`` and ``auto_review``)."""
    if result.review_apart is None:  # the first time: what flags it besides its parts
        result.review_apart = result.needs_review and (
            not any(part.needs_review for part in result.parts) or _flagged_apart(result))
    for part in result.parts:
        if part.auto_review is not None:  # undo an earlier application first
            part.points = part.points if part.auto_points is None else part.auto_points
            part.needs_review = part.auto_review
        part.auto_points, part.auto_review, part.decided = None, None, ""
        entry = decisions.get(result.student, part.part)
        if entry is None:
            continue
        part.auto_review = part.needs_review
        if judged(entry, result, part):
            part.auto_points = part.points
            part.points, part.needs_review = entry.points, False
            part.decided = entry.describe()
        else:  # what it judged changed: keep the machine's points, and a person looks again
            part.decided = (f"not applied: a decision ({entry.describe()}) was made about an "
                            "earlier version of this part, which has changed since")
            part.needs_review = True
    result.needs_review = any(part.needs_review for part in result.parts) or result.review_apart
    _single_tests(result)
    return result


def _single_tests(result: SubmissionResult) -> None:
    """A part shown as one test (the evidence and the limitation) shows the part's points."""
    for part in result.parts:
        own = [test for test in result.tests if test.name == test.part == part.part]
        if len(own) == 1:
            own[0].score = part.points
            own[0].status = "passed" if part.points == part.max_points else "failed"


def _flagged_apart(result: SubmissionResult) -> bool:
    """Reasons a person looks at a submission whatever its parts say: it could not be
    graded, its time is open, or a note is a reason to review (code that reached out)."""
    return (result.status == STATUS_UNGRADABLE or (result.late_unknown and bool(result.due))
            or any(note.review for note in result.notes))
