"""One grading run per course root at a time (``fcntl.flock`` on ``.h2-grading.lock``).

Two runs in one root would both regrade every submission and race on results.json,
grades.csv and the gradebook. The second one refuses at once with one line naming the
process that holds the root. The kernel drops the lock when its holder ends, however it
ends (a kill, a crash), so a stale lock file never blocks anyone.
"""

from __future__ import annotations

import fcntl
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

LOCK_FILE = ".h2-grading.lock"
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
    handle = os.open(root / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RootBusy(
                f"another grading run is using {root}{_who(handle)}: wait for it to finish "
                "(or stop it), then run this again") from None
        command = " ".join(["python -m autograder", *sys.argv[1:]])[:300]
        os.ftruncate(handle, 0)
        os.pwrite(handle, f"pid {os.getpid()}, since {datetime.now(UTC):%Y-%m-%d %H:%M:%S} "
                  f"UTC: {command}\n".encode(), 0)
        with _guard:
            _held[root] = 1
        try:
            yield
        finally:
            with _guard:
                del _held[root]
            os.ftruncate(handle, 0)
            fcntl.flock(handle, fcntl.LOCK_UN)  # also for grading processes forked meanwhile
    finally:
        os.close(handle)
