"""All or nothing for a course root: a rollback journal over its files, as SQLite keeps one.

Every command that changes a root does so holding the root's lock (``batch.root_lock.hold``),
and the outermost hold is one *change* of the root, journaled here. Before a file of the root
is replaced or removed for the first time in a change, what it was is kept in the journal
(``.autograder-journal/``): a hard link to it (the root's writers replace a file by renaming a
new one over it, so the old inode stays as it was, at no cost), or a note that it was absent.
A folder a change replaces or creates is kept the same way (a tree of hard links); the
gradebook, which SQLite changes in place, is copied with SQLite's own backup.

The change ends by renaming the journal away and deleting it: that rename is the commit.
A change that never gets there (an error, Ctrl-C, SIGTERM, SIGHUP, a full disk, kill -9) is
rolled back: by the command itself as it unwinds, else by the next command that takes the
root (``recover``), which says so in one line. The root is then as it was before the change,
never between; what a grading run had graded meanwhile stays in its resume cache
(``autograder.batch.resume``), outside the journal, so the run resumes from it.

The journal is safe against a process that dies (every step is a rename, a link or an
appended line, in an order that recovery can always finish or undo); it does not ``fsync``,
so it does not promise more than the filesystem keeps across a power cut.

A test hook (``FAULT_ENV``) kills the changing process with SIGKILL (or sends it
``FAULT_SIGNAL_ENV``) right after a chosen write: the fault-injection test (tests/faults) uses
it to stop a command at each kind of write.
"""

from __future__ import annotations

import errno
import filecmp
import fnmatch
import gc
import json
import os
import shutil
import signal
import sqlite3
import stat
import threading
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

JOURNAL = ".autograder-journal"
_OPENING = ".autograder-journal-opening"
_DONE = ".autograder-journal-done"
_ENTRIES = "entries"
_WHAT = "what.json"
_KEPT = "kept"
_ABSENT = "-"
FAULT_ENV = "AUTOGRADER_FAULT_AFTER_WRITE"  # "<n>" or "<glob>:<n>": SIGKILL after that write
FAULT_SIGNAL_ENV = "AUTOGRADER_FAULT_SIGNAL"  # another signal to send instead: INT, TERM, HUP
# Private scratch folders a killed command may leave in the root (a collect's staging
# exchange): removed by the next command that takes the root.
SCRATCH = (".collect-exchange-",)


@dataclass
class Change:
    """One change of one root, journaled in ``folder``."""

    root: Path
    folder: Path
    owner: int  # the pid that began it (its forked grading processes write into it too)
    kept: dict[str, int] = field(default_factory=dict)  # path -> pid that kept it (per process)
    abandoned: bool = False
    serial: int = 0
    handles: dict[int, int] = field(default_factory=dict)  # pid -> its handle on the entries

    def relative(self, path: Path) -> str | None:
        """``path`` relative to the root, or None when it is outside it (or the journal)."""
        try:
            name = Path(os.path.abspath(path)).relative_to(self.root).as_posix()
        except ValueError:
            return None
        if name == "." or name.split("/", 1)[0] in (JOURNAL, _OPENING) or \
                name.startswith(_DONE):
            return None
        return name


_changes: dict[Path, Change] = {}
_guard = threading.RLock()


class JournalError(OSError):
    """A change could not be begun or kept: one line (an ``OSError``, with the path)."""


def _now() -> str:
    return f"{datetime.now(UTC):%Y-%m-%d %H:%M:%S} UTC"


def begin(root: Path, what: str) -> Change:
    """Begin a change of ``root`` (the caller holds its lock; a journal left by an earlier
    change was recovered first). Made in a side folder and renamed in, so a journal is
    never seen half made."""
    root = Path(os.path.abspath(root))
    opening = root / f"{_OPENING}-{os.getpid()}"
    shutil.rmtree(opening, ignore_errors=True)
    try:
        (opening / _KEPT).mkdir(parents=True, mode=0o700)
        (opening / _WHAT).write_text(json.dumps(
            {"what": what, "pid": os.getpid(), "uid": os.getuid(), "since": _now()}) + "\n",
            encoding="utf-8")
        (opening / _ENTRIES).touch()
        os.rename(opening, root / JOURNAL)
    except OSError as error:
        shutil.rmtree(opening, ignore_errors=True)
        raise JournalError(error.errno, f"cannot begin a change of {root} "
                           f"({error.strerror or error})", str(error.filename or root)) from None
    change = Change(root, root / JOURNAL, os.getpid())
    with _guard:
        _changes[root] = change
    return change


def active(path: Path) -> Change | None:
    """The change under way (in this process, or the one it was forked from) whose root
    holds ``path``."""
    with _guard:
        if not _changes:
            return None
        absolute = Path(os.path.abspath(path))
        for root, change in _changes.items():
            if absolute.is_relative_to(root):
                return change
    return None


def _append(change: Change, line: str) -> None:
    """One line of the entries file, written whole (``O_APPEND``: the grading processes forked
    inside the change append to it too), through a handle opened once per process."""
    with _guard:
        handle = change.handles.get(os.getpid())
        if handle is None:
            handle = os.open(change.folder / _ENTRIES, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
            change.handles[os.getpid()] = handle
    os.write(handle, (line + "\n").encode("utf-8"))


def _close(change: Change) -> None:
    handle = change.handles.pop(os.getpid(), None)
    if handle is not None:
        os.close(handle)


def _keep(path: Path, kind: str) -> None:
    """Keep what ``path`` is now (``kind``: file, tree or database), once per change and
    process, before it changes."""
    change = active(path)
    if change is None:
        return
    name = change.relative(path)
    if name is None:
        return
    with _guard:
        if change.kept.get(name) == os.getpid():
            return
        change.serial += 1
        kept = f"{os.getpid()}-{change.serial}"
    target = change.folder / _KEPT / kept
    path = Path(path)
    try:
        first_missing = _first_missing(change.root, path)
        if first_missing is not None:  # made by this change, folders and all
            _append(change, json.dumps([_ABSENT, change.relative(first_missing)]))
        elif kind == "database" and _backup(path, target):
            # unchanged at rollback (nothing wrote it): left as it is
            _append(change, json.dumps(["database", name, kept, *_state(path)]))
        elif kind == "tree" and path.is_dir() and not path.is_symlink():
            shutil.copytree(path, target, symlinks=True, copy_function=os.link)
            _append(change, json.dumps(["tree", name, kept]))
        else:  # a file (or a database SQLite cannot read: kept as the file it is)
            target.unlink(missing_ok=True)
            try:
                if kind == "database":  # changed in place if anything opens it: a copy
                    raise OSError(errno.EPERM, "copied")
                os.link(path, target, follow_symlinks=False)
            except OSError as error:
                if error.errno in (errno.ENOSPC, errno.EDQUOT):
                    raise
                shutil.copy2(path, target, follow_symlinks=False)
            _append(change, json.dumps(["file", name, kept]))
    except OSError as error:
        raise JournalError(error.errno, f"cannot keep {path} in the root's journal before "
                           f"changing it ({error.strerror or error})", str(path)) from None
    with _guard:
        change.kept[name] = os.getpid()


def _first_missing(root: Path, path: Path) -> Path | None:
    """The topmost of ``path`` and its folders under ``root`` that does not exist yet."""
    missing = None
    for candidate in [path, *path.parents]:
        if candidate == root or not candidate.is_relative_to(root):
            break
        if os.path.lexists(candidate):
            break
        missing = candidate
    return missing


def _backup(database: Path, target: Path) -> bool:
    """A consistent copy of an SQLite database (its own backup: other connections may be
    open), into ``target``; False when SQLite cannot read it (then it is kept as a file)."""
    try:
        with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30)) \
                as source, closing(sqlite3.connect(target)) as copy:
            source.backup(copy)
    except sqlite3.OperationalError as error:  # locked (formgrader writing), unreadable
        raise OSError(errno.EBUSY, f"SQLite cannot copy it: {error}", str(database)) from None
    except sqlite3.DatabaseError:  # not a database: kept as the file it is
        return False
    return True


def before_write(path: Path) -> None:
    """Call before replacing or removing the file ``path`` (``write_atomically`` does)."""
    _keep(path, "file")


def before_tree(path: Path) -> None:
    """Call before changing, replacing or creating the folder ``path`` (and what is in it)."""
    _keep(path, "tree")


def before_database(path: Path) -> None:
    """Call before opening the SQLite database ``path`` to change it (the gradebook)."""
    _keep(path, "database")


def after_write(path: Path) -> None:
    """The fault-injection hook (``FAULT_ENV``), right after a file of a root was written."""
    wanted = os.environ.get(FAULT_ENV)
    if not wanted:
        return
    change = active(path)
    name = change.relative(path) if change is not None else None
    if change is None or name is None:
        return
    pattern, _, count = wanted.rpartition(":")
    if not fnmatch.fnmatch(name, pattern or "*"):
        return
    try:
        lines = (change.folder / _ENTRIES).read_text(encoding="utf-8").splitlines()
    except OSError:
        return
    names = [json.loads(line)[1] for line in lines if line]
    if sum(1 for kept in names if fnmatch.fnmatch(kept, pattern or "*")) < int(count):
        return
    number = signal.Signals[f"SIG{os.environ.get(FAULT_SIGNAL_ENV, 'KILL')}"]
    if number != signal.SIGKILL:  # as a user or a scheduler sends it: to the command
        os.environ.pop(FAULT_ENV, None)  # once
        os.kill(change.owner, number)
        return
    if change.owner != os.getpid():
        os.kill(change.owner, signal.SIGKILL)
    os.kill(os.getpid(), signal.SIGKILL)


def abandon(root: Path) -> None:
    """Roll the change of ``root`` back when its hold ends (a command that refused after it
    had begun writing, and returns instead of raising)."""
    with _guard:
        change = _changes.get(Path(os.path.abspath(root)))
    if change is not None:
        change.abandoned = True


def commit(change: Change) -> None:
    """End ``change``: everything it wrote stands."""
    done = change.root / f"{_DONE}-{os.getpid()}"
    with _guard:
        _changes.pop(change.root, None)
        _close(change)
    os.rename(change.folder, done)  # the commit: from here on, nothing is rolled back
    shutil.rmtree(done, ignore_errors=True)


@contextmanager
def _undisturbed() -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP wait while a rollback runs (it takes milliseconds; a second
    Ctrl-C would otherwise leave the root between; the next command would finish it, but
    the command should)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    signals = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    previous = {number: signal.getsignal(number) for number in signals}
    for number in signals:
        signal.signal(number, signal.SIG_IGN)
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def rollback(change: Change) -> None:
    """Put every path ``change`` kept back as it was, then end it."""
    with _guard:
        _changes.pop(change.root, None)
        _close(change)
    with _undisturbed():
        _undo(change.root, change.folder)


def _undo(root: Path, folder: Path) -> None:
    try:
        lines = (folder / _ENTRIES).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        lines = []
    entries = []
    for line in lines:
        try:
            entries.append(json.loads(line))
        except ValueError:  # the last line, cut by a kill as it was written: nothing followed it
            continue
    for entry in reversed(entries):
        kind, name = entry[0], entry[1]
        path = root / name
        kept = folder / _KEPT / entry[2] if len(entry) > 2 else None
        if kind == _ABSENT:
            _remove(path)
        elif kind == "database":
            if kept is not None and kept.exists() and not _unchanged(path, entry[3:]):
                _restore_database(kept, path)
        elif kept is not None and os.path.lexists(kept):  # else put back already
            if kind == "file" and _never_replaced(kept, path):  # its write failed (immutable)
                kept.unlink()
                continue
            if kind == "tree":
                _remove(path)
            os.replace(kept, path)
    done = root / f"{_DONE}-{os.getpid()}"
    os.rename(folder, done)
    shutil.rmtree(done, ignore_errors=True)


def _state(database: Path) -> list[int]:
    """What changes whenever SQLite commits to ``database``: its size, its time and the file
    change counter in its header (bytes 24-27; the time alone is as coarse as a clock tick)."""
    seen = os.stat(database)
    with open(database, "rb") as handle:
        counter = int.from_bytes(handle.read(28)[24:28], "big")
    return [seen.st_size, seen.st_mtime_ns, counter]


def _unchanged(database: Path, seen: list) -> bool:
    """Whether ``database`` is as it was when kept (``_state`` then): a change that never
    wrote it leaves its bytes alone (SQLite's backup would rewrite its pages)."""
    try:
        return len(seen) == 3 and _state(database) == list(seen)
    except OSError:
        return False


def _never_replaced(kept: Path, path: Path) -> bool:
    """``path`` is still what was kept (its hard link, or a copy with the same bytes: an
    immutable file cannot be linked): nothing to put back, and putting it back would fail
    where the write did (an immutable file, a read-only folder)."""
    try:
        one, other = os.lstat(kept), os.lstat(path)
        if (one.st_dev, one.st_ino) == (other.st_dev, other.st_ino):
            return True
        return (stat.S_ISREG(one.st_mode) and stat.S_ISREG(other.st_mode)
                and one.st_size == other.st_size and filecmp.cmp(kept, path, shallow=False))
    except OSError:
        return False


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        try:
            path.unlink()
        except FileNotFoundError:
            pass


def _restore_database(kept: Path, database: Path) -> None:
    """The database as ``kept`` holds it, written into the file itself (connections others
    hold, formgrader's, stay valid). A connection of this process that the interrupt left
    open (nbgrader's, stopped mid-write) would hold SQLite's lock: the garbage collector
    closes it first."""
    gc.collect()
    with closing(sqlite3.connect(kept)) as source, \
            closing(sqlite3.connect(database, timeout=30)) as live:
        source.backup(live)


def pending(root: Path) -> dict | None:
    """What the change left in ``root`` by a command that did not finish was (its
    ``what.json``: what, pid, uid, since), or None. Read only: ``status`` says it."""
    try:
        return json.loads((Path(root) / JOURNAL / _WHAT).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {"what": "unknown", "since": "unknown"}


def recover(root: Path) -> str:
    """Roll back the change a command that did not finish left in ``root`` (the caller holds
    the root's lock, so that command is gone), and remove what such commands leave behind;
    returns the one line to say ("" when there was nothing)."""
    root = Path(os.path.abspath(root))
    for leftover in root.glob(f"{_DONE}-*"):
        shutil.rmtree(leftover, ignore_errors=True)
    for leftover in root.glob(f"{_OPENING}-*"):
        shutil.rmtree(leftover, ignore_errors=True)
    for prefix in SCRATCH:
        for leftover in root.glob(f"{prefix}*"):
            shutil.rmtree(leftover, ignore_errors=True)
    left = pending(root)
    if left is None:
        return ""
    with _undisturbed():
        _undo(root, root / JOURNAL)
    return (f"rolled back an unfinished change of {root}: {left.get('what', 'unknown')} "
            f"(pid {left.get('pid', '?')}, since {left.get('since', '?')}) did not finish, so "
            "nothing it changed is kept; run it again")
