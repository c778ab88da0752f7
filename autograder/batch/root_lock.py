"""One grading run per course root at a time (``fcntl.flock`` on ``.autograder-grading.lock``).

Two runs in one root would both regrade every submission and race on results.json,
grades.csv and the gradebook. The second one refuses at once with one line naming the
process that holds the root. The kernel drops the lock when its holder ends, however it
ends (a kill, a crash), so a stale lock file never blocks anyone.

A root graded by a version of the grader from before its files were renamed also has the
lock file of the old name (``autograder.legacy_names``), the one such an older grader locks. Where
it exists it is held too (never created, never removed: an older grader opening it while it
is gone would lock a file nobody else does), so an older grader still running in that root,
or started there meanwhile, and this one exclude each other. Delete it once no older grader
is used on the root.
"""

from __future__ import annotations

import fcntl
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from pathlib import Path

from autograder.legacy_names import ROOT_LOCK_FILE as LEGACY_LOCK_FILE

LOCK_FILE = ".autograder-grading.lock"
_held: dict[Path, int] = {}  # root -> how many nested holds in this process
_guard = threading.Lock()


class RootBusy(RuntimeError):
    """Another process is grading in this course root."""


def _who(handle: int) -> str:
    try:
        text = os.pread(handle, 500, 0).decode("utf-8", "replace").strip()
    except OSError:
        text = ""
    return f" ({text})" if text else ""


def _lock(stack: ExitStack, root: Path, path: Path, *, create: bool) -> int | None:
    """Lock ``path`` exclusively for the stack's life (unlocked and closed as it unwinds);
    None when ``create`` is false and there is no such file. ``RootBusy`` when another process
    holds it."""
    flags = os.O_RDWR | os.O_CLOEXEC | (os.O_CREAT if create else 0)
    try:
        handle = os.open(path, flags, 0o644)
    except FileNotFoundError:
        if create:
            raise
        return None
    stack.callback(os.close, handle)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise RootBusy(
            f"another grading run is using {root}{_who(handle)}: wait for it to finish "
            "(or stop it), then run this again") from None

    def release() -> None:
        os.ftruncate(handle, 0)
        fcntl.flock(handle, fcntl.LOCK_UN)  # also for grading processes forked meanwhile

    stack.callback(release)
    return handle


@contextmanager
def hold(root: Path) -> Iterator[None]:
    """Hold ``root`` for this process while the block runs; ``RootBusy`` (one line, naming
    the holder) when another process holds it. Nested holds in one process are free."""
    root = Path(root).resolve()
    with _guard:
        if root in _held:
            _held[root] += 1
            nested = True
        else:
            nested = False
    if nested:
        try:
            yield
        finally:
            with _guard:
                _held[root] -= 1
        return
    with ExitStack() as stack:
        handles = [_lock(stack, root, root / LOCK_FILE, create=True),
                   _lock(stack, root, root / LEGACY_LOCK_FILE, create=False)]
        command = " ".join(["python -m autograder", *sys.argv[1:]])[:300]
        holder = (f"pid {os.getpid()}, since {datetime.now(UTC):%Y-%m-%d %H:%M:%S} UTC: "
                  f"{command}\n").encode()
        for handle in handles:
            if handle is not None:
                os.ftruncate(handle, 0)
                os.pwrite(handle, holder, 0)
        with _guard:
            _held[root] = 1
        try:
            yield
        finally:
            with _guard:
                del _held[root]
