"""``StudentError``: why a call into student code produced no plain result.

It is built inside the worker from whatever the student's code raised, and
crosses the boundary as a plain record (``messages.ErrorRecord``), never as
an exception object. The trusted side rebuilds it from untrusted data, so
every field is treated as text a student wrote.

``ErrorKind`` is the one place the kinds of failure are spelled: the worker's messages
(``messages``), the grader's client and the grading code import it, and decide on it, never
on an error's text.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Any


class ErrorKind(StrEnum):
    """Why a call produced no plain result (a ``str``: equal to its value, and written as
    it in JSON, so records saved before it existed still compare equal)."""

    MISSING = "missing"  # no callable of that name
    RAISED = "raised"  # the student's code raised an exception
    TIMEOUT = "timeout"  # it did not finish in time
    BAD_OUTPUT = "bad_output"  # it returned something that is not plain data
    CRASHED = "crashed"  # the process running it ended (exit, fatal error, memory limit)


# What went wrong, in the grader's words, after the function's name ("`f` did not finish in
# time"); a raised error is described by its type instead.
FAILURES: dict[ErrorKind, str] = {
    ErrorKind.MISSING: "was not found",
    ErrorKind.TIMEOUT: "did not finish in time",
    ErrorKind.CRASHED: "crashed the process running it",
    ErrorKind.BAD_OUTPUT: "returned something that is not plain data",
}
MESSAGE_LIMIT = 300


def trim(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """Shorten ``text`` to ``limit`` characters so feedback stays readable."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class StudentError(Exception):
    """Why a call into student code produced no plain result.

    ``bases`` lists the built-in exception classes in the raised type's MRO
    (e.g. ``("ValueError", "Exception", "BaseException")``), so a check can
    accept subclasses without ever holding the exception object.
    """

    def __init__(
        self,
        kind: ErrorKind | str,
        type_name: str = "",
        message: str = "",
        bases: Sequence[str] = (),
        function: str = "",
    ) -> None:
        self.kind = ErrorKind(kind)  # ValueError for a kind that does not exist
        self.type_name = type_name
        self.message = trim(message)
        self.bases = tuple(bases)
        self.function = function
        super().__init__(self.describe())

    def __reduce__(self) -> tuple[type[StudentError], tuple[Any, ...]]:
        """Pickled by its fields (an exception is pickled by its ``args``, here the text)."""
        return (type(self), (self.kind.value, self.type_name, self.message, self.bases,
                             self.function))

    def is_a(self, *type_names: str) -> bool:
        """True if the student raised one of ``type_names`` (or a subclass)."""
        return self.kind is ErrorKind.RAISED and any(
            name == self.type_name or name in self.bases for name in type_names
        )

    def describe(self) -> str:
        """A one-line, student-facing account of what went wrong."""
        who = f"`{self.function}`" if self.function else "your code"
        failure = FAILURES.get(self.kind, "")
        if self.kind is ErrorKind.MISSING:
            return f"{who} {failure}: define it (with this exact name) in its solution cell"
        if self.kind in (ErrorKind.TIMEOUT, ErrorKind.CRASHED):
            return f"{who} {failure}" + (f" ({self.message})" if self.message else "")
        if self.kind is ErrorKind.BAD_OUTPUT:
            return f"{who} {failure}: {self.message}"
        return f"{who} raised {self.type_name}" + (f": {self.message}" if self.message else "")

    def signature(self) -> tuple[str, str, str]:
        """Identity used to report one repeated error once (plain strings: it is saved)."""
        return (self.kind.value, self.type_name, self.message)

    @classmethod
    def from_exception(cls, exc: BaseException, function: str = "") -> StudentError:
        """Record a student exception without keeping the object around."""
        kind_of = type(exc)
        try:
            message = str(exc)
        except Exception:  # a hostile __str__
            message = "<message could not be shown>"
        bases = tuple(
            c.__name__ for c in kind_of.__mro__[1:] if c.__module__ == "builtins"
        )
        kind = ErrorKind.CRASHED if isinstance(exc, SystemExit) else ErrorKind.RAISED
        name = kind_of.__name__ if isinstance(kind_of.__name__, str) else "Exception"
        return cls(kind, name[:80], message, bases, function)
