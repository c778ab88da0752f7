"""Lease a sandbox user id that no other grader on this machine is using.

Each grading process runs its workers under a user id of its own, and kills
every process of that id when a worker is done. Two graders (two TAs, or
parallel test runs) must therefore never share an id: a lease is an exclusive
``flock`` on a per-id lock file, which the kernel releases even when the
grading process is killed.

The lock directory belongs to the grader's own user and is checked before use
(a directory, not a link, owned by us, not writable by others), so another local
user can neither block grading nor make root create a file elsewhere. Without
root there is nothing to lease: workers keep the TA's uid inside a user
namespace of their own, and no lock file is touched.
"""

from __future__ import annotations

import fcntl
import os
import stat
import tempfile
from pathlib import Path

from autograder.sandbox.zygote import kill_worker

FIRST_UID = 61000
UID_COUNT = 1000


class UidLeaseError(RuntimeError):
    """No sandbox uid can be leased safely (the message says what to fix)."""


def lock_dir(base: Path | None = None) -> Path:
    """The per-user lock directory, created safely: ``/run`` for root, else a private
    directory under ``$XDG_RUNTIME_DIR`` or the temporary directory (or under ``base``)."""
    if base is None and os.geteuid() == 0 and os.access("/run", os.W_OK):
        path = Path("/run/h2-grader-uids")
    else:
        base = base or Path(os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir())
        path = Path(base) / f"h2-grader-uids-{os.geteuid()}"
    try:
        path.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(path)
    except OSError as error:
        raise UidLeaseError(f"cannot create the lock directory {path}: {error.strerror}") from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise UidLeaseError(
            f"{path} is not a private directory of this user (someone else created it, or it "
            "is a link); remove it and run the grader again"
        )
    return path


class UidLease:
    """An exclusively held sandbox uid; ``release`` (or process exit) frees it."""

    def __init__(self, uid: int, handle: int) -> None:
        self.uid = uid
        self._handle = handle

    @classmethod
    def acquire(cls) -> UidLease:
        """The first free id; processes left under it by a killed grader are killed.
        Without root: the grader's own uid, and nothing to lock."""
        if os.geteuid() != 0:
            return cls(os.getuid(), -1)
        directory = lock_dir()
        for uid in range(FIRST_UID, FIRST_UID + UID_COUNT):
            flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
            handle = os.open(directory / f"{uid}.lock", flags, 0o600)
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(handle)
                continue
            kill_worker(-1, uid)  # leftovers of a grader that was killed while holding it
            return cls(uid, handle)
        raise UidLeaseError(f"all {UID_COUNT} sandbox user ids are in use by other graders")

    def release(self) -> None:
        if self._handle >= 0:
            os.close(self._handle)
            self._handle = -1
