"""``StudentError``: why a call into student code produced no plain result.

It is built inside the worker from whatever the student's code raised, and
crosses the boundary as a plain dict (``to_dict`` / ``from_dict``), never as
an exception object. The trusted side rebuilds it from untrusted data, so
every field is treated as text a student wrote.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

ErrorKind = Literal["missing", "raised", "timeout", "bad_output", "crashed"]
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
        kind: ErrorKind,
        type_name: str = "",
        message: str = "",
        bases: Sequence[str] = (),
        function: str = "",
    ) -> None:
        self.kind: ErrorKind = kind
        self.type_name = type_name
        self.message = trim(message)
        self.bases = tuple(bases)
        self.function = function
        super().__init__(self.describe())

    def is_a(self, *type_names: str) -> bool:
        """True if the student raised one of ``type_names`` (or a subclass)."""
        return self.kind == "raised" and any(
            name == self.type_name or name in self.bases for name in type_names
        )

    def describe(self) -> str:
        """A one-line, student-facing account of what went wrong."""
        who = f"`{self.function}`" if self.function else "your code"
        if self.kind == "missing":
            return f"{who} was not found: define it (with this exact name) in its solution cell"
        if self.kind == "timeout":
            return f"{who} did not finish in time" + (f" ({self.message})" if self.message else "")
        if self.kind == "crashed":
            return f"{who} crashed the process running it" + (f" ({self.message})" if self.message else "")
        if self.kind == "bad_output":
            return f"{who} returned something that is not plain data: {self.message}"
        return f"{who} raised {self.type_name}" + (f": {self.message}" if self.message else "")

    def signature(self) -> tuple[str, str, str]:
        """Identity used to report one repeated error once."""
        return (self.kind, self.type_name, self.message)

    def to_dict(self) -> dict[str, Any]:
        """Plain form, for sending across a process boundary."""
        return {
            "kind": self.kind,
            "type_name": self.type_name,
            "message": self.message,
            "bases": list(self.bases),
            "function": self.function,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> StudentError:
        """Inverse of ``to_dict``."""
        return cls(
            data["kind"], data.get("type_name", ""), data.get("message", ""),
            data.get("bases", ()), data.get("function", ""),
        )

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
        kind: ErrorKind = "crashed" if isinstance(exc, SystemExit) else "raised"
        name = kind_of.__name__ if isinstance(kind_of.__name__, str) else "Exception"
        return cls(kind, name[:80], message, bases, function)
