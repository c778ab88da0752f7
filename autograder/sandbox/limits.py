"""Resource limits for one submission's worker process (one place, with defaults)."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Limits:
    """What one submission may use. Times in seconds, sizes in MiB.

    ``cell_timeout`` bounds each notebook cell, ``notebook_timeout`` all cells
    together, ``call_timeout`` each call a check makes, ``submission_timeout``
    everything for one student. ``memory_mb`` is the worker's address space
    (torch alone maps about 0.6 GiB), ``file_mb`` the scratch disk and largest
    file, ``nproc`` processes and threads, ``max_restarts`` how often a worker
    killed by a limit is replaced before the remaining calls are given up.
    """

    cell_timeout: float = 30.0
    notebook_timeout: float = 120.0
    call_timeout: float = 5.0
    submission_timeout: float = 300.0
    memory_mb: int = 3072
    file_mb: int = 64
    nproc: int = 64
    max_restarts: int = 10

    def to_dict(self) -> dict:
        """Plain form, sent to the zygote with each fork request."""
        return asdict(self)
