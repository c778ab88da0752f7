"""How checks reach a student's functions: by name, with plain data only.

Checks never hold a student object. They call ``student.call(name, *args)``
and get back plain data (see ``autograder.untrusted.plain``) or a
``StudentError``. In grading, ``autograder.sandbox.client.SandboxStudent``
implements this protocol over a sandboxed worker; the test suite also has an
in-process implementation (``tests/support/in_process.py``).

Read-only inputs: ``student.call_readonly(name, *args)`` passes every array
as a view of an immutable buffer, so an implementation that writes into its
inputs fails with NumPy's "read-only" error instead of silently corrupting
them. (A keyword like ``readonly=True`` on ``call`` would collide with the
student function's own keyword arguments.)
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from autograder.base.safe_text import PRIVATE_PATH
from autograder.untrusted.errors import StudentError

__all__ = ["Student", "StudentError", "reached_out"]


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


def reached_out(error: StudentError | None) -> bool:
    """Whether the sandbox hid a path of the grading machine from ``error``'s message: the
    student's code reached outside its submission (a person looks at it)."""
    if error is None:
        return False
    flag = getattr(error, "reached_out", None)  # set by the sandbox's client when it hides one
    if flag is not None:
        return bool(flag)
    # Transitional, until every ``StudentError`` carries the flag: the mark the client leaves.
    return PRIVATE_PATH in error.message
