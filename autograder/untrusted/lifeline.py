"""A process that must not outlive the one that started it: the kernel kills it when its
parent dies, however the parent dies (``kill -9`` included).

A grading process and the sandbox's zygote serve one run's coordinator. Left behind by a
coordinator that was killed, they would grade on for nobody, and a grading process would
keep the course root's lock (it shares the coordinator's open lock file). ``PR_SET_PDEATHSIG``
asks the kernel for a SIGKILL when the parent *thread* that forked this process ends: the
callers fork from a thread that lives as long as the run (the coordinator's main thread, or
the thread that waits on the pool). Setting it races with the parent's death, so the parent
is checked right after: already gone (this process was adopted), this process exits.

Untrusted side (the zygote imports it): standard library only.
"""

from __future__ import annotations

import ctypes
import os
import signal

PR_SET_PDEATHSIG = 1
PARENT_ENV = "AUTOGRADER_PARENT_PID"
"""Set by the grader for a zygote it starts from its main thread: the pid it must die with."""


def die_with_parent(parent: int) -> None:
    """SIGKILL this process when ``parent`` (its parent now) dies; exit at once if the parent
    is already someone else. Without ``prctl`` (not Linux) nothing is asked."""
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return
    prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:  # died before the request: nobody will send the signal
        os._exit(1)


def die_with_launcher() -> None:
    """``die_with_parent`` for the pid the launcher named in ``PARENT_ENV`` (taken out of the
    environment, so the zygote's workers never see it); nothing when it named none."""
    named = os.environ.pop(PARENT_ENV, "")
    if named.isdigit():
        die_with_parent(int(named))
