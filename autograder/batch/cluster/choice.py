"""``--cluster``: where a batch is graded, parsed without importing Dask.

``local`` (the default) is the forked process pool of ``autograder.batch.engine``;
``dask-local[:N]`` a Dask ``LocalCluster`` of N worker processes on this machine;
``tcp://HOST:PORT`` (or ``tls://``) a Dask scheduler someone already runs; ``slurm`` a
dask-jobqueue ``SLURMCluster`` described by the ``[cluster]`` table of ``cohorts.toml``.
"""

from __future__ import annotations

import argparse
import os
import re
from dataclasses import dataclass
from pathlib import Path

LOCAL = "local"
DASK_LOCAL = "dask-local"
SCHEDULER = "scheduler"
SLURM = "slurm"
DEFAULT_SCHEDULER_PORT = 8786
CHOICES = "local (default), dask-local[:N], tcp://HOST:PORT or slurm"
_ADDRESS = re.compile(r"^(tcp|tls)://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)(?::(\d{1,5}))?/?$")


class ClusterError(RuntimeError):
    """The cluster asked for cannot be used (unreachable, misconfigured, no workers): one
    line for the TA, printed instead of a traceback."""


@dataclass(frozen=True)
class ClusterChoice:
    """A Dask cluster to grade on (``None`` in ``BatchOptions`` means the local pool)."""

    kind: str  # DASK_LOCAL, SCHEDULER or SLURM
    workers: int = 0  # DASK_LOCAL: worker processes
    address: str = ""  # SCHEDULER: the scheduler's address
    config: Path | None = None  # SLURM: the cohorts file whose [cluster] table describes it

    def describe(self) -> str:
        """How a TA would write it (for messages)."""
        if self.kind == DASK_LOCAL:
            return f"{DASK_LOCAL}:{self.workers}"
        if self.kind == SCHEDULER:
            return self.address
        return f"{SLURM} ({self.config or 'cohorts.toml'} [cluster])"


def parse_cluster(text: str) -> ClusterChoice | None:
    """``--cluster``'s value as a ``ClusterChoice`` (``None`` for the local pool);
    ``argparse.ArgumentTypeError`` with what is accepted otherwise."""
    value = text.strip()
    if value == LOCAL:
        return None
    if value == DASK_LOCAL or value.startswith(DASK_LOCAL + ":"):
        count = value.removeprefix(DASK_LOCAL).removeprefix(":")
        if not count:
            return ClusterChoice(DASK_LOCAL, workers=os.cpu_count() or 1)
        if not count.isdigit() or int(count) < 1:
            raise argparse.ArgumentTypeError(
                f"{text!r}: the number of Dask worker processes must be a whole number of at "
                f"least 1 (e.g. {DASK_LOCAL}:2; {DASK_LOCAL} alone uses every core)")
        return ClusterChoice(DASK_LOCAL, workers=int(count))
    if value == SLURM:
        return ClusterChoice(SLURM)
    if "://" in value:
        match = _ADDRESS.match(value)
        port = int(match.group(3) or DEFAULT_SCHEDULER_PORT) if match else 0
        if not match or not 0 < port < 65536:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not a Dask scheduler address: write tcp://HOST:PORT "
                f"(e.g. tcp://10.0.0.5:{DEFAULT_SCHEDULER_PORT}) or tls://HOST:PORT")
        return ClusterChoice(SCHEDULER, address=f"{match.group(1)}://{match.group(2)}:{port}")
    raise argparse.ArgumentTypeError(f"unknown cluster {text!r}: use {CHOICES}")
