"""The outcome of grading one submission, as plain data that is saved and compared.

One ``SubmissionResult`` per student is the machine's part of the grade of record; every
output (``results.json``, the feedback page, grades.csv, the gradebook, the LMS files, the
report) is rendered from it (``autograder.publish``). It is rebuilt from ``results.json``
on a re-run, so whatever was graded before an interruption is never lost.

``results.json`` is Gradescope's format, rendered; the record itself is its
``extra_data``, every field of the dataclasses below written once by ``record`` and read by
``from_record`` (``FORMAT`` says which layout; an older file's record is migrated by
``autograder.results.migrate`` as it is read). What a message means (a pointer, carried-forward credit, a
reason to review) is a field of ``Message``, never parsed from its words.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import tempfile
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autograder.base.course import RESULTS_JSON, Course
from autograder.results import journal, migrate
from autograder.results.message import CARRIED_FORWARD, Message

STATUS_GRADED = "graded"
STATUS_UNGRADABLE = "ungradable"
STATUS_ERROR = "grader_error"
LATE_UNKNOWN = "unknown"  # ``late`` when the batch has a due date but the submission no time
# The layout of the record in results.json's ``extra_data``: 2 = structured messages (this
# module); 1 = files written before (no ``format`` key), read by autograder.results.migrate.
FORMAT = 2
# The record's fields that are sentences for people: rendered, never read for meaning
# (tests/results/test_rewording.py rewords them all and finds no figure changed).
WORDS = frozenset({"text", "explanations", "reason", "decided", "late_policy", "grader_faults"})

__all__ = ["CARRIED_FORWARD", "FORMAT", "WORDS", "Message", "NewerRecord", "PartResult", "SubmissionResult",
           "TestResult", "UnreadableRecord", "load", "read", "save", "unreadable", "write_atomically"]


@dataclass
class PartResult:
    """Points and student-facing feedback for one part."""

    part: str
    points: float
    max_points: float
    messages: list[Message] = field(default_factory=list)
    diagnoses: list[str] = field(default_factory=list)  # codes
    explanations: list[str] = field(default_factory=list)  # the codes, in words
    needs_review: bool = False
    # A person's decision (autograder.results.decisions): what it says, and the machine's own
    # points and review flag it replaced (None: no decision applied).
    decided: str = ""
    auto_points: float | None = None
    auto_review: bool | None = None
    # What the part was graded on, as a digest (``autograder.grading.part_inputs``): a
    # decision's basis; "" in a result graded before parts kept it.
    inputs_hash: str = ""


@dataclass
class TestResult:
    """One check, as Gradescope shows it (``tags`` holds the part): what it said
    (``messages``: a failure's reason, or its carried-forward note on a pass) and the words
    of its diagnoses (``explanations``)."""

    name: str
    part: str
    score: float
    max_score: float
    status: str  # "passed" | "failed"
    messages: list[Message] = field(default_factory=list)
    explanations: list[str] = field(default_factory=list)

    @property
    def output(self) -> str:
        """Gradescope's text for the check: its messages, then the likely causes."""
        return "\n".join([*(m.flat() for m in self.messages), *self.explanations]).strip()

    @property
    def carried(self) -> Message | None:
        """Its carried-forward note, when it passed on the student's own earlier results."""
        return next((m for m in self.messages if m.carried), None)


@dataclass
class SubmissionResult:
    """Everything known about one student's grade; see the module docstring."""

    student: str
    assignment: str
    status: str
    reason: str = ""
    parts: list[PartResult] = field(default_factory=list)
    tests: list[TestResult] = field(default_factory=list)
    notes: list[Message] = field(default_factory=list)
    needs_review: bool = False
    submission_hash: str = ""
    grading_key: str = ""  # what decided the grade (autograder.spec.grading_key)
    isolation: list[str] = field(default_factory=list)
    seconds: float = 0.0
    submitted_at: str = ""  # nbgrader's timestamp, when there is one
    due: str = ""  # the due date ``late`` was decided against ("" = the batch had none)
    late: bool = False  # submitted after the due date
    late_unknown: bool = False  # a due date, but no readable submission time: a TA checks
    # Where submitted_at comes from (autograder.batch.lateness): "exchange" or "lms" (a record
    # the student cannot write agrees with timestamp.txt, or stands in for it), "timestamp.txt
    # only" (nothing to check it against), "" (no time); received_at: that record's time.
    time_source: str = ""
    received_at: str = ""
    faults: list[str] = field(default_factory=list)  # checks that crashed: the grader's, for the TA
    # For the TA only (results.json, grades.csv), never on the student's page: e.g. whose
    # inputs a copied evidence file holds.
    ta_notes: list[Message] = field(default_factory=list)
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
    def has_total(self) -> bool:
        """Whether the result has a total of record: only a graded notebook has one. An
        ungradable one has points for what could be graded without it (its evidence file),
        but no total in any output (grades.csv, the gradebook, the LMS files, the report's
        mean) until it is graded: it waits for a person, the reason says why."""
        return self.status == STATUS_GRADED

    def total_text(self) -> str:
        """The total as the TA's files write it: "" when there is none (``has_total``)."""
        return f"{self.score:g}" if self.has_total else ""

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

    def note(self, text: str, code: str, *, review: bool = False, part: str = "") -> Message:
        """Add a student-facing note (and, with ``review``, a reason a person looks); the
        ``reason`` line of a graded result says every note."""
        message = Message(text, code=code, review=review, part=part)
        self.notes.append(message)
        self.reason = f"{self.reason}; {text}" if self.reason else text
        self.needs_review = self.needs_review or review
        return message

    def ta_note(self, text: str, code: str) -> None:
        if not any(note.code == code and note.text == text for note in self.ta_notes):
            self.ta_notes.append(Message(text, code=code))

    def record(self) -> dict[str, Any]:
        """The record as plain data (``extra_data``): every field once, and its format."""
        data = _plain(self)
        data["seconds"] = round(self.seconds, 3)
        # Two names a reader of results.json has always had: ``late`` says true, false or
        # "unknown" in one field, and the grader's faults are named as such.
        data["late"] = LATE_UNKNOWN if data.pop("late_unknown") else self.late
        data["grader_faults"] = data.pop("faults")
        return {"format": FORMAT, **data}

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> SubmissionResult:
        """Inverse of ``record`` (a field it does not know is ignored; one it lacks takes its
        default)."""
        data = dict(data)
        late = data.pop("late", False)
        data["late"], data["late_unknown"] = late is True, late == LATE_UNKNOWN
        data["faults"] = data.pop("grader_faults", [])
        return _build(cls, data)

    def to_gradescope(self) -> dict[str, Any]:
        """Gradescope's results.json, rendered from the record (kept in ``extra_data``)."""
        # An ungradable one has no total (``has_total``): its output says so, and why.
        summary = (f"{self.score:g} / {self.max_score:g}" if self.has_total
                   else f"no total ({self.status})")
        if self.late_penalty and self.has_total:
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
            "extra_data": self.record(),
        }

    @classmethod
    def from_gradescope(cls, data: dict[str, Any]) -> SubmissionResult:
        """The record in a results.json (an older format migrated as it is read)."""
        extra = data["extra_data"]
        if extra.get("format") is None:
            extra = migrate.format_1_record(data)
        if extra["format"] != FORMAT:
            raise ValueError(f"results.json format {extra['format']!r} is not {FORMAT}")
        return cls.from_record(extra)


def _plain(value: Any) -> Any:
    """A dataclass (and what it holds) as plain JSON data: ``dataclasses.asdict`` without its
    deep copies, which cost more than writing the file."""
    if dataclasses.is_dataclass(value):
        return {name: _plain(getattr(value, name)) for name in _names(type(value))}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


@functools.cache
def _names(kind: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(kind))


def _build(kind: Any, value: Any) -> Any:
    """``value`` (plain JSON data) as ``kind``: a dataclass, a list of them, or plain."""
    return _reader(kind)(value)


@functools.cache
def _reader(kind: Any) -> Callable[[Any], Any]:
    """The function that reads plain data as ``kind``, made once per type (a batch reads
    thousands of results: resolving types for every value would cost more than the JSON)."""
    if dataclasses.is_dataclass(kind):
        hints = typing.get_type_hints(kind)
        fields = {f.name: _reader(hints[f.name]) for f in dataclasses.fields(kind) if f.init}
        return lambda value: kind(**{name: fields[name](item) for name, item in value.items()
                                     if name in fields})
    origin = typing.get_origin(kind)
    if origin is list:
        (inner,) = typing.get_args(kind)
        read = _reader(inner)
        return lambda value: [read(item) for item in value]
    if origin in (typing.Union, types.UnionType):
        options = [option for option in typing.get_args(kind) if option is not type(None)]
        read = _reader(options[0])
        return lambda value: None if value is None else read(value)
    if kind is float:
        return lambda value: (float(value) if isinstance(value, int | float)
                              and not isinstance(value, bool) else value)
    return lambda value: value


def _naming_the_file(write: Callable[[Path, str], None]) -> Callable[[Path, str], None]:
    """An ``OSError`` of ``write`` (a full disk, an immutable file or folder, a read-only
    mount) names the file it was writing, not its temporary one or none (a failed ``write``
    names no file): ``autograder.cli`` says it in one line."""

    @functools.wraps(write)
    def writing(path: Path, text: str) -> None:
        try:
            write(path, text)
        except OSError as error:  # the same kind (OSError picks it by errno), this file's
            raise OSError(error.errno, error.strerror, str(path)) from error

    return writing


@_naming_the_file
def write_atomically(path: Path, text: str) -> None:
    """Write via a temporary file and rename: a killed run never leaves half a file (and,
    inside a change of a course root, what the file was is kept in its journal first)."""
    journal.before_write(path)
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
    journal.after_write(path)


def save(result: SubmissionResult, path: Path) -> None:
    """Write ``results.json`` atomically."""
    write_atomically(path, json.dumps(result.to_gradescope(), indent=2, allow_nan=False) + "\n")


def saved_results(course: Course) -> list[SubmissionResult]:
    """Every saved result of the course root, by student (an unreadable one left out)."""
    found = (load(course.autograded(student) / RESULTS_JSON) for student in course.students())
    return [result for result in found if result is not None]


class UnreadableRecord(Exception):
    """A results.json that is there but cannot be read (truncated, not JSON, not a record):
    it is regraded, and every command that meets it names it (``why``)."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(f"{path} is unreadable ({why})")
        self.path, self.why = path, why


class NewerRecord(Exception):
    """A results.json a newer grader wrote (a format this one does not know): refused in one
    line, never regraded over nor read as if it were absent."""

    def __init__(self, path: Path, found: object) -> None:
        super().__init__(f"{path} was written by a newer grader (results format {found}; this "
                         f"one reads up to {FORMAT}): grade this root with the newer grader "
                         "(update this checkout: git pull, then make setup); this one changes "
                         "nothing there")


def read(path: Path) -> SubmissionResult | None:
    """A previously saved result; None when there is none. ``UnreadableRecord`` when it cannot
    be read, ``NewerRecord`` when a newer grader wrote it."""
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise UnreadableRecord(path, f"{type(error).__name__}: {error}") from None
    try:
        data = json.loads(text)
        found = data["extra_data"].get("format")
        if isinstance(found, int) and not isinstance(found, bool) and found > FORMAT:
            raise NewerRecord(path, found)
        return SubmissionResult.from_gradescope(data)
    except (ValueError, KeyError, TypeError, IndexError, AttributeError) as error:
        why = f"{type(error).__name__}: {error}".replace("\n", " ")[:200]
        raise UnreadableRecord(path, why) from None


def load(path: Path) -> SubmissionResult | None:
    """A previously saved result, or None if absent or unreadable (then it is regraded;
    ``unreadable`` says why); ``NewerRecord`` when a newer grader wrote it."""
    try:
        return read(path)
    except UnreadableRecord:
        return None


def unreadable(path: Path) -> str:
    """Why the results.json at ``path`` cannot be read ("" when it can, or is absent)."""
    try:
        read(path)
    except UnreadableRecord as error:
        return error.why
    return ""
