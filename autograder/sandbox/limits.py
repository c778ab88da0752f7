"""Resource limits for one submission's worker process (one place, with defaults).

The worker's address space by default is sized for what the assignment's sandbox preloads:
``BASE_MEMORY_MB`` for any assignment, and more for a library that maps much of it before
student code runs (``PRELOAD_MEMORY_MB``: torch), only where the bundle preloads it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace

BASE_MEMORY_MB = 2048
"""Any assignment's worker: the interpreter, NumPy and the engine's own modules take about
150 MiB of this address space; the rest is the student's code and arrays."""
PRELOAD_MEMORY_MB = {"torch": 1024}
"""What a preloaded library adds (by top-level module): importing torch alone maps about
0.5 GiB more address space, and its operators reserve more as they run."""


def memory_for(preload: Iterable[str]) -> int:
    """The default address space (MiB) of a worker whose zygote preloads ``preload``."""
    tops = {str(name).partition(".")[0] for name in preload}
    return BASE_MEMORY_MB + sum(extra for top, extra in PRELOAD_MEMORY_MB.items() if top in tops)


@dataclass(frozen=True)
class Limits:
    """What one submission may use. Times in seconds, sizes in MiB.

    ``cell_timeout`` bounds each notebook cell, ``notebook_timeout`` all cells
    together, ``call_timeout`` each call a check makes, ``submission_timeout``
    everything for one student. ``memory_mb`` is the worker's address space (None: sized
    for the assignment's preloads, ``memory_for``, once the sandbox knows them:
    ``for_preload``), ``file_mb`` the scratch disk and largest file, ``nproc`` processes
    and threads, ``max_restarts`` how often a worker killed by a limit is replaced before
    the remaining calls are given up.
    """

    cell_timeout: float = 30.0
    notebook_timeout: float = 120.0
    call_timeout: float = 5.0
    submission_timeout: float = 300.0
    memory_mb: int | None = None
    file_mb: int = 64
    nproc: int = 64
    max_restarts: int = 10

    def for_preload(self, preload: Iterable[str]) -> Limits:
        """These limits with the default address space made concrete for a sandbox that
        preloads ``preload`` (a memory limit the TA chose stays as it is)."""
        if self.memory_mb is not None:
            return self
        return replace(self, memory_mb=memory_for(preload))

    def to_dict(self) -> dict:
        """Plain form, sent to the zygote with each fork request (and to a cluster's
        workers, whose sandboxes size a default address space for themselves)."""
        return asdict(self)
