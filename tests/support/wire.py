"""Test-only helpers around the sandbox's wire and its student (moved out of the package:
the grader itself never needs them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from autograder.untrusted import plain
from autograder.untrusted.errors import StudentError

if TYPE_CHECKING:  # the in-process student imports this module: no sandbox client for it
    from autograder.sandbox.client import SandboxStudent
    from autograder.sandbox.zygote import Zygote


def roundtrip(value: object, *, readonly: bool = False) -> Any:
    """``decode(encode(value))``: a plain, independent copy of ``value``, as the checks would
    see it after the trip through a worker's socket."""
    return plain.decode(plain.encode(value), readonly=readonly)


def cell_errors(student: SandboxStudent) -> list[StudentError]:
    """Errors of the cells that ran in ``student``'s worker, as in Jupyter's output."""
    return [cell.error for cell in student.report.cells if cell.error is not None]


def start_zygote(preload: Sequence[str] | None = None, timeout: float = 60.0) -> Zygote:
    """A zygote with one channel, warm: it preloads ``preload``, H2's unless given (the
    grader starts its zygotes with ``Zygote.launch`` and the assignment's)."""
    from autograder.sandbox.zygote import Zygote

    if preload is None:
        from tests.support.h2 import H2

        preload = H2.preload
    return Zygote.launch(preload=preload)[0].wait_ready(timeout)
