"""Runs submission code in the test process: for tests only, never for grading.

Student code shares the interpreter with the caller here; data still crosses
as plain bytes, so the checks see exactly what the sandboxed worker would send.
Each cell runs in order in one fresh namespace; a cell that raises is recorded
in ``cell_errors`` and the next cell still runs (as in nbgrader).
"""

from __future__ import annotations

import builtins
import contextlib
import io
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from autograder.untrusted import plain
from autograder.untrusted.errors import StudentError
from autograder.untrusted.seeding import seed_everything
from tests.support.wire import roundtrip


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
        args, kwargs = roundtrip((args, kwargs), readonly=readonly)
        seed_everything()
        try:
            with _quiet():
                result = function(*args, **kwargs)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - any student failure is data
            raise StudentError.from_exception(exc, function=name) from None
        try:
            return roundtrip(result)
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
