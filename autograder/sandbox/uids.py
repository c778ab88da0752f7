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

A grader from before its files were renamed leases from a directory of the old name
(``autograder.legacy_names``): where that directory exists, a uid is leased in both, so
the two never share one (``legacy_lock_dir``).
"""

from __future__ import annotations

import fcntl
import os
import stat
import tempfile
from pathlib import Path

from autograder.legacy_names import UID_LOCK_DIR_AS_ROOT as LEGACY_DIR_AS_ROOT
from autograder.legacy_names import UID_LOCK_DIR_PREFIX as LEGACY_DIR_PREFIX
from autograder.sandbox.zygote import kill_worker

FIRST_UID = 61000
UID_COUNT = 1000
LOCK_DIR_AS_ROOT = "/run/autograder-uids"
LOCK_DIR_PREFIX = "autograder-uids-"  # + the euid, under $XDG_RUNTIME_DIR or the temporary dir


class UidLeaseError(RuntimeError):
    """No sandbox uid can be leased safely (the message says what to fix)."""


def _place(base: Path | None, as_root: str, prefix: str) -> Path:
    if base is None and os.geteuid() == 0 and os.access("/run", os.W_OK):
        return Path(as_root)
    base = base or Path(os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir())
    return Path(base) / f"{prefix}{os.geteuid()}"


def _private(info: os.stat_result) -> bool:
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & 0o022


def lock_dir(base: Path | None = None) -> Path:
    """The per-user lock directory, created safely: ``/run`` for root, else a private
    directory under ``$XDG_RUNTIME_DIR`` or the temporary directory (or under ``base``)."""
    path = _place(base, LOCK_DIR_AS_ROOT, LOCK_DIR_PREFIX)
    try:
        path.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(path)
    except OSError as error:
        raise UidLeaseError(f"cannot create the lock directory {path}: {error.strerror}") from None
    if not _private(info):
        raise UidLeaseError(
            f"{path} is not a private directory of this user (someone else created it, or it "
            "is a link); remove it and run the grader again"
        )
    return path


def legacy_lock_dir(base: Path | None = None) -> Path | None:
    """The lock directory of a grader from before the rename (``autograder.legacy_names``),
    where one exists and is a private directory of this user: its leases are honoured and
    taken too, so an older grader still running on this machine never gets our uid. Never
    created; one that is not private is not ours to trust, and is left out (an older grader
    refuses it too). ``/run``'s is gone at the next boot."""
    path = _place(base, LEGACY_DIR_AS_ROOT, LEGACY_DIR_PREFIX)
    try:
        return path if _private(os.lstat(path)) else None
    except OSError:
        return None


def lock_uid(directories: list[Path], uid: int) -> list[int] | None:
    """Exclusive locks on ``uid`` in every one of ``directories`` (their open handles), or
    None, holding nothing, when another grader holds it in any of them."""
    handles: list[int] = []
    for directory in directories:
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        handle = os.open(directory / f"{uid}.lock", flags, 0o600)
        handles.append(handle)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            for taken in handles:
                os.close(taken)
            return None
    return handles


class UidLease:
    """An exclusively held sandbox uid; ``release`` (or process exit) frees it."""

    def __init__(self, uid: int, handles: list[int]) -> None:
        self.uid = uid
        self._handles = handles

    @classmethod
    def acquire(cls) -> UidLease:
        """The first free id; processes left under it by a killed grader are killed.
        Without root: the grader's own uid, and nothing to lock."""
        if os.geteuid() != 0:
            return cls(os.getuid(), [])
        directories = [lock_dir(), *filter(None, [legacy_lock_dir()])]
        for uid in range(FIRST_UID, FIRST_UID + UID_COUNT):
            handles = lock_uid(directories, uid)
            if handles is None:
                continue
            kill_worker(-1, uid)  # leftovers of a grader that was killed while holding it
            return cls(uid, handles)
        raise UidLeaseError(f"all {UID_COUNT} sandbox user ids are in use by other graders")

    def release(self) -> None:
        handles, self._handles = self._handles, []
        for handle in handles:
            os.close(handle)
