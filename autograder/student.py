"""How checks reach a student's functions: by name, with plain data only.

Checks never hold a student object. They call ``student.call(name, *args)``
and get back plain data (see ``autograder.plain``) or a ``StudentError``.
That contract lets the same checks run against code executed in this process
(``InProcessStudent``, for development and the corpus tests) or in sandboxed
worker processes (next issue) without change.

Read-only inputs: ``student.call_readonly(name, *args)`` passes every array
as a view of an immutable buffer, so an implementation that writes into its
inputs fails with NumPy's "read-only" error instead of silently corrupting
them. (A keyword like ``readonly=True`` on ``call`` would collide with the
student function's own keyword arguments.)
"""

from __future__ import annotations

import builtins
import contextlib
import io
import random
import sys
import warnings
from collections.abc import Sequence
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np

from autograder import plain

ErrorKind = Literal["missing", "raised", "timeout", "bad_output", "crashed"]
MESSAGE_LIMIT = 300
CALL_SEED = 0


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


@runtime_checkable
class Student(Protocol):
    """What a check may do with a submission: ask for a function, call it."""

    def has(self, name: str) -> bool:
        """Whether the submission defines a callable called ``name``."""
        ...

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Call ``name`` with copies of plain arguments; plain result or ``StudentError``."""
        ...

    def call_readonly(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Like ``call`` but every array argument is read-only."""
        ...


class InProcessStudent:
    """Runs submission code in this process; data still crosses as plain bytes.

    For development and tests only: student code shares the interpreter with
    the grader here. Each cell runs in order in one fresh namespace; a cell
    that raises is recorded in ``cell_errors`` and the next cell still runs
    (as in nbgrader), so one broken cell does not cost unrelated parts.
    """

    def __init__(self, cells: Sequence[str] | str, filename: str = "<submission>") -> None:
        if isinstance(cells, str):
            cells = [cells]
        self._namespace: dict[str, Any] = {"__name__": "__student__", "__builtins__": builtins}
        self.cell_errors: list[StudentError] = []
        for index, source in enumerate(cells):
            try:
                code = compile(source, f"{filename}[cell {index}]", "exec")
                with _quiet():
                    exec(code, self._namespace)
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # noqa: BLE001 - any student failure is data
                self.cell_errors.append(StudentError.from_exception(exc))

    def has(self, name: str) -> bool:
        """Whether the namespace holds a callable ``name``."""
        return callable(self._namespace.get(name))

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Call with fresh writable copies of the arguments."""
        return self._invoke(name, args, kwargs, readonly=False)

    def call_readonly(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Call with read-only array arguments (see module docstring)."""
        return self._invoke(name, args, kwargs, readonly=True)

    def _invoke(self, name: str, args: tuple, kwargs: dict, *, readonly: bool) -> Any:
        if not self.has(name):
            raise StudentError("missing", function=name)
        function = self._namespace[name]
        # Fresh copies: whatever the student does to them cannot reach the caller.
        args, kwargs = plain.roundtrip((args, kwargs), readonly=readonly)
        seed_everything()
        try:
            with _quiet():
                result = function(*args, **kwargs)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - any student failure is data
            raise StudentError.from_exception(exc, function=name) from None
        try:
            return plain.roundtrip(result)
        except plain.PlainDataError as err:
            raise StudentError("bad_output", "PlainDataError", str(err), function=name) from None


@contextlib.contextmanager
def _quiet() -> Any:
    """Swallow student prints and warnings; they are not part of the result."""
    sink = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            yield


def seed_everything() -> None:
    """Same seeds before every call, so a random implementation is still reproducible."""
    random.seed(CALL_SEED)
    np.random.seed(CALL_SEED)
    torch = sys.modules.get("torch")
    if torch is not None:
        # CPU generator only: torch.manual_seed also schedules lazy CUDA seeding and
        # formats a stack trace each time (~4 ms per call).
        torch.random.default_generator.manual_seed(CALL_SEED)
