"""One thing the grader says about a submission: its sentence, and its meaning as fields.

Every program that acts on what was said (the feedback page grouping carried-forward
credit, review deciding whether a person must look, the report listing who reached out
of the sandbox, the TA's lateness column) reads the fields, never the sentence: the
sentence (``text``) is for people only, and can be reworded without changing a grade, a
flag or a figure (``tests/results/test_rewording.py`` rewords every one of them).
``flat`` renders the one-line form Gradescope's test output and grades.csv show.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

CARRIED_FORWARD = "carried forward"


def named(functions: Sequence[str]) -> str:
    """"`a`", "`a` and `b`": the student's functions a note names."""
    return " and ".join(f"`{name}`" for name in functions)


@dataclass
class Message:
    """A sentence for the student (or the TA), with what it means as data."""

    text: str
    # What kind of thing it says, for programs: an evidence finding's code, a note's kind
    # (``autograder.results.note_codes``); "" for a check's own failure message.
    code: str = ""
    pointer: str = ""  # the evidence file's JSON pointer it is about ("" = none)
    part: str = ""  # the part (a function) a submission-level note is about ("" = none)
    # A carried-forward note (autograder.grading.carried_forward): points kept, not a problem;
    # ``carried_from``: the student's functions whose bug it was carried from (may be none).
    carried: bool = False
    carried_from: list[str] = field(default_factory=list)
    review: bool = False  # a reason a person looks at the submission before its grade is final

    def label(self) -> str:
        """What precedes ``text`` in the one-line form of a carried-forward note."""
        if not self.carried:
            return ""
        return CARRIED_FORWARD + (f" from {named(self.carried_from)}" if self.carried_from else "")

    def flat(self) -> str:
        """The message on one line: its pointer, its carried-forward label, its text."""
        where = f"{self.pointer}: " if self.pointer not in ("", "/") else ""
        label = self.label()
        return where + (f"{label}: " if label else "") + self.text


def texts(messages: Sequence[Message]) -> list[str]:
    """The sentences alone (for a join, a listing)."""
    return [message.text for message in messages]


def has_code(messages: Sequence[Message], *codes: str) -> bool:
    return any(message.code in codes for message in messages)
