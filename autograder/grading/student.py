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

from autograder.untrusted.errors import StudentError

__all__ = ["Student", "StudentError"]


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
