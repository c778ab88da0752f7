"""Lease a sandbox user id that no other grader on this machine is using.

Each grading process runs its workers under a user id of its own, and kills
every process of that id when a worker is done. Two graders (two TAs, or
parallel test runs) must therefore never share an id: a lease is an exclusive
``flock`` on a per-id lock file, which the kernel releases even when the
grading process is killed.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from pathlib import Path

from autograder.sandbox.zygote import kill_worker

FIRST_UID = 61000
UID_COUNT = 1000
LOCK_DIR = Path(tempfile.gettempdir()) / "h2-grader-uids"


class UidLease:
    """An exclusively held sandbox uid; ``release`` (or process exit) frees it."""

    def __init__(self, uid: int, handle: int) -> None:
        self.uid = uid
        self._handle = handle

    @classmethod
    def acquire(cls) -> UidLease:
        """The first free id; processes left under it by a killed grader are killed."""
        LOCK_DIR.mkdir(mode=0o700, exist_ok=True)
        for uid in range(FIRST_UID, FIRST_UID + UID_COUNT):
            handle = os.open(LOCK_DIR / f"{uid}.lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(handle)
                continue
            kill_worker(-1, uid)  # leftovers of a grader that was killed while holding it
            return cls(uid, handle)
        raise RuntimeError(f"all {UID_COUNT} sandbox user ids are in use")

    def release(self) -> None:
        if self._handle >= 0:
            os.close(self._handle)
            self._handle = -1
