"""Fail closed before grading: one empty sandboxed worker forked ahead of the first submission.

The local pool's coordinator and every Dask worker's grading session call it once: if the
sandbox cannot be set up as required, the batch stops with ``IsolationError`` before any
student's code runs, instead of failing student by student.
"""

from __future__ import annotations

from autograder.sandbox.client import SandboxStudent
from autograder.sandbox.limits import Limits
from autograder.sandbox.uids import UidLease


def probe_isolation(zygote: object, limits: Limits, *, isolate: bool,
                    allow_weaker: bool) -> list[str]:
    """Fork one empty worker from ``zygote``; returns the isolation it applied (what every
    result then records), or raises ``IsolationError``."""
    lease = UidLease.acquire()
    try:
        with SandboxStudent([], zygote, limits=limits, uid=lease.uid, isolate=isolate,
                            allow_weaker=allow_weaker) as probe:
            return probe.report.isolation
    finally:
        lease.release()
