"""One grading run per course root at a time (``fcntl.flock`` on ``.autograder-grading.lock``).

Two runs in one root would both regrade every submission and race on results.json,
grades.csv and the gradebook. The second one refuses at once with one line naming the
process that holds the root. The kernel drops the lock when its holder ends, however it
ends (a kill, a crash), so a stale lock file never blocks anyone. The file is closed to
other users (0600; 0660 on a team's root): ``flock`` needs only read access, so a file
others could open would let any student on a shared machine stop all grading. A refusal
names the holder from the kernel's lock table (its pid and user), not only from what the
holder wrote in the file.

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
import pwd
import stat
import sys
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from pathlib import Path

from autograder.base import closed
from autograder.legacy_names import ROOT_LOCK_FILE as LEGACY_LOCK_FILE
from autograder.results import journal

LOCK_FILE = ".autograder-grading.lock"
_held: dict[Path, int] = {}  # root -> how many nested holds in this process
_guard = threading.Lock()


class RootBusy(RuntimeError):
    """Another process is grading in this course root."""


class RootUnwritable(RootBusy):
    """The lock file cannot be made or opened: the root is read-only, or not this user's.
    (A ``RootBusy``, so every command that refuses a busy root refuses this in one line.)"""


def _holders(handle: int) -> list[int]:
    """The processes holding a lock on ``handle``'s file, from the kernel's own table
    (``/proc/locks``): whoever holds it, whatever they wrote (or could not write) in it."""
    info = os.fstat(handle)
    inode = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    try:
        table = Path("/proc/locks").read_text(encoding="ascii", errors="replace")
    except OSError:
        return []
    found = []
    for line in table.splitlines():
        fields = line.split()
        if len(fields) > 5 and fields[-3] == inode and fields[4].isdigit():
            found.append(int(fields[4]))
    return found


def _user(pid: int) -> str:
    try:
        uid = os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return "unknown user"
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def _who(handle: int) -> str:
    """`` (pid N of user U: what it wrote)``: the kernel's word for who holds it, then what
    the holder wrote in the file when it is one of ours."""
    try:
        text = os.pread(handle, 500, 0).decode("utf-8", "replace").strip()
    except OSError:
        text = ""
    text = "".join(char for char in text if char.isprintable())[:300]
    holders = []
    for pid in _holders(handle):
        holders.append(f"pid {pid} of user {_user(pid)}")
        if text.startswith(f"pid {pid}, "):  # what our holder wrote: its pid is named now
            holders[-1] += ", " + text.removeprefix(f"pid {pid}, ")
            text = ""
    said = "; ".join(holders + ([text] if text else []))
    return f" ({said})" if said else ""


def _open(root: Path, path: Path, flags: int) -> int:
    """The lock file, made closed (the team's group may open it too: its holder grades)."""
    mode = 0o660 if closed.team_of(root) else 0o600
    try:
        handle = os.open(path, flags, mode)
    except FileNotFoundError:
        raise
    except OSError as error:
        raise RootUnwritable(
            f"cannot open {path} ({error.strerror or error}): every command that changes "
            f"{root} takes this lock first, so it needs the root writable by you; run it as "
            "the course root's owner (or a member of its team group), on a root that is not "
            "mounted read-only (docs/security-model.md says which folders may be)") from None
    info = os.fstat(handle)
    if info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) & 0o007:
        os.fchmod(handle, mode)  # made open by an older grader: anyone could hold it
    return handle


def _lock(stack: ExitStack, root: Path, path: Path, *, create: bool) -> int | None:
    """Lock ``path`` exclusively for the stack's life (unlocked and closed as it unwinds);
    None when ``create`` is false and there is no such file. ``RootBusy`` when another process
    holds it."""
    flags = os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW | (os.O_CREAT if create else 0)
    try:
        handle = _open(root, path, flags)
    except FileNotFoundError:
        if create:
            raise
        return None
    stack.callback(os.close, handle)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise RootBusy(
            f"another command is changing {root}{_who(handle)}: wait for it to finish "
            "(or stop it), then run this again") from None

    def release() -> None:
        os.ftruncate(handle, 0)
        fcntl.flock(handle, fcntl.LOCK_UN)  # also for grading processes forked meanwhile

    stack.callback(release)
    return handle


def holder(root: Path) -> str | None:
    """Who holds ``root`` now (``pid N of user U, since ...: command``), or None; asked of the
    kernel's lock table without taking the lock or writing anything (``status`` asks it)."""
    try:
        handle = os.open(Path(root) / LOCK_FILE, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        if not _holders(handle):
            return None
        return _who(handle).strip(" ()") or "another process"
    finally:
        os.close(handle)


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
            with _changed(root, command):
                yield
        finally:
            with _guard:
                del _held[root]


@contextmanager
def _changed(root: Path, command: str) -> Iterator[None]:
    """The hold as one change of the root (``autograder.results.journal``): what an earlier
    command left unfinished is rolled back first (said in one line), and this one's writes
    stand only if it ends without an exception (or ``journal.abandon``)."""
    said = journal.recover(root)
    if said:
        print(f"note: {said}", file=sys.stderr, flush=True)
    change = journal.begin(root, command)
    try:
        yield
    except BaseException:
        journal.rollback(change)
        raise
    if change.abandoned:
        journal.rollback(change)
    else:
        journal.commit(change)


def close_inherited() -> None:
    """In a process forked while this one held a root (a grading process): close its copies of
    the lock files, never unlocking them (that would unlock the holder too). ``flock``'s lock
    belongs to the open file, which a fork shares: a grading process that outlived its
    coordinator would otherwise keep the root locked in the name of a dead pid."""
    names = (LOCK_FILE, LEGACY_LOCK_FILE)
    for entry in Path("/proc/self/fd").glob("*"):
        try:
            if Path(os.readlink(entry)).name in names:
                os.close(int(entry.name))
        except (OSError, ValueError):  # the listing's own descriptor, closed meanwhile
            continue
