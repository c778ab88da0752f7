"""Vet the exchange's inbound folders before nbgrader copies anything (issue 50, items 3, 8-12).

On a shared machine the exchange's ``<course>/inbound`` is 0733 + setgid: every student can
create folders there, and ``nbgrader submit`` makes each of its own 0777. ``nbgrader collect``
trusts whatever it finds: a folder named for another student, a link (followed as the TA), a
link to ``/dev/zero``, hard links by the hundred, a name that is not UTF-8, a time in 2099.
So ``cohort collect`` never lets nbgrader read ``inbound/``: each folder of the assignment is
vetted here, on bytes names and ``lstat`` alone (never following a link), and each one
accepted is copied, file by file (opened with ``O_NOFOLLOW``, read within bounds), into a
private staging exchange inside the course root, which nbgrader then collects from.

A folder is accepted when:
- its name is ``<student>+<assignment>+<time>[+<random>]`` in UTF-8 without control
  characters, its student id not starting with ``.``, and its time one nbgrader reads and not
  in the future (nor its ``timestamp.txt``'s);
- it and everything in it are owned by the Unix user of the student it names (the student id,
  unless cohorts.toml's ``unix_users`` maps it to another name), by the user running collect,
  or by root: users no student can create files as;
- it holds folders and regular files only (no symbolic link, device, FIFO or socket), each file
  with one link (a hard link makes another file, or one file hundreds of times, part of it:
  ``nbgrader submit`` copies files, it never links them), at most ``MAX_ENTRIES`` entries,
  no file over ``MAX_FILE_BYTES`` and ``MAX_DIR_BYTES`` in all (nbgrader's own bounds,
  ``CourseDirectory.max_file_size`` and ``max_dir_size``, 100000 kB each, which it checks only
  while copying: a folder over the second makes its whole collect fail).

Any other folder of the assignment is refused in one line naming its student and why; nothing
of it reaches ``submitted/``, and the other folders are collected as usual.
"""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from autograder.base.course import MAX_TIMESTAMP_BYTES, TIMESTAMP_TXT
from autograder.base.safe_text import safe_text

KB = 1000  # nbgrader's "kilobytes" (``1000 * max_file_size``)
MAX_FILE_BYTES = 100_000 * KB  # nbgrader's CourseDirectory.max_file_size default (100000 kB)
MAX_DIR_BYTES = 100_000 * KB  # nbgrader's CourseDirectory.max_dir_size default (100000 kB)
MAX_ENTRIES = 10_000  # entries of one folder (nbgrader has no bound; arrival reads as many)
FUTURE_SLACK = timedelta(minutes=5)  # clocks of one machine: a name later than this is forged
STAGING_PREFIX = ".collect-exchange-"
CHUNK = 1 << 20
SHOWN = 120  # characters of a folder name in a line to the TA


class Refused(Exception):
    """Why one inbound folder is not collected."""


@dataclass(frozen=True)
class Folder:
    """One folder of the assignment in inbound/, as its name reads."""

    name: bytes
    student: str  # as shown to the TA (safe); the real id when the name is accepted
    shown: str  # the folder's name, safe to print


@dataclass
class Vetted:
    """What ``vet`` found: the folders accepted (their names), and a line per refusal."""

    accepted: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


def _shown(raw: bytes, limit: int = SHOWN) -> str:
    return safe_text(raw.decode("utf-8", "replace"), limit)


def _user(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def _uid(user: str) -> int | None:
    try:
        return pwd.getpwnam(user).pw_uid
    except (KeyError, ValueError):
        return None


def parse_nbgrader_time(text: str) -> datetime:
    """A time as nbgrader's ``parse_utc`` reads it (folder names, timestamp.txt), aware UTC;
    ``ValueError`` where nbgrader would fail (its collect then fails as a whole)."""
    import dateutil.parser  # nbgrader's own parser (10 ms): only when collecting
    import dateutil.tz  # (with it: only when collecting)

    try:
        parts = text.split(" ")
        if len(parts) == 3:
            zone: object
            try:
                zone = int(parts[2])
            except ValueError:
                zone = dateutil.tz.gettz(parts[2])
            moment = dateutil.parser.parse(" ".join(parts[:2] + ["TZ"]), tzinfos={"TZ": zone})
        else:
            moment = dateutil.parser.parse(text)
        if moment.tzinfo is not None and moment.utcoffset() is not None:
            return moment.astimezone(UTC)
        return moment.replace(tzinfo=UTC)
    except (ValueError, OverflowError, TypeError, AttributeError):
        raise ValueError(text) from None


@dataclass
class _Walk:
    """What one walk of a folder has seen (bounds are over the whole folder)."""

    allowed: frozenset[int]
    student: str
    entries: int = 0
    size: int = 0
    newest_time: datetime | None = None


def _owner_check(info: os.stat_result, walk: _Walk, what: str) -> None:
    if info.st_uid not in walk.allowed:
        raise Refused(f"{what} was made by Unix user {safe_text(_user(info.st_uid), 60)}, "
                      f"not {walk.student}")


def _check_entry(info: os.stat_result, walk: _Walk, rel: str, target: str = "") -> None:
    """One entry (``target``: what a link points to, as shown)."""
    walk.entries += 1
    if walk.entries > MAX_ENTRIES:
        raise Refused(f"it holds more than {MAX_ENTRIES} entries")
    _owner_check(info, walk, rel)
    mode = info.st_mode
    if stat.S_ISLNK(mode):
        raise Refused(f"{rel} is a symbolic link{target} (nbgrader submit copies files, "
                      "never links)")
    if stat.S_ISDIR(mode):
        return
    if not stat.S_ISREG(mode):
        kind = ("a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
                else "a device")
        raise Refused(f"{rel} is {kind}, not a file")
    if info.st_nlink > 1:
        raise Refused(f"{rel} is a hard link ({info.st_nlink} names for one file; "
                      "nbgrader submit copies files, never links)")
    if info.st_size > MAX_FILE_BYTES:
        raise Refused(f"{rel} has {info.st_size} bytes, over nbgrader's bound of "
                      f"{MAX_FILE_BYTES} (CourseDirectory.max_file_size)")
    walk.size += info.st_size
    if walk.size > MAX_DIR_BYTES:
        raise Refused(f"its files hold more than {MAX_DIR_BYTES} bytes, nbgrader's bound "
                      "(CourseDirectory.max_dir_size)")


def _link_target(name: str, dir_fd: int, info: os.stat_result) -> str:
    """`` (to <target>)`` for a symbolic link (read, never followed), else ""."""
    if not stat.S_ISLNK(info.st_mode):
        return ""
    try:
        return f" (to {_shown(os.fsencode(os.readlink(name, dir_fd=dir_fd)), 100)})"
    except OSError:
        return ""


def _same(before: os.stat_result, after: os.stat_result) -> bool:
    return (before.st_dev, before.st_ino) == (after.st_dev, after.st_ino)


def _walk(dir_fd: int, rel: str, walk: _Walk, dest: Path | None) -> None:
    """Vet every entry under the open folder ``dir_fd`` (and copy it to ``dest``, if given),
    never following a link: each entry is ``lstat``-ed and opened relative to its folder."""
    for name in sorted(os.listdir(dir_fd)):
        raw = os.fsencode(name)
        path = f"{rel}/{_shown(raw, 60)}" if rel else _shown(raw, 60)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise Refused(f"a name in it ({path}) is not UTF-8") from None
        if safe_text(text, len(text) + 1) != text:
            raise Refused(f"a name in it ({path}) holds control characters")
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        _check_entry(info, walk, path, _link_target(name, dir_fd, info))
        if stat.S_ISDIR(info.st_mode):
            fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)
            try:
                if not _same(info, os.fstat(fd)):
                    raise Refused(f"{path} changed while it was read")
                inner = dest / text if dest is not None else None
                if inner is not None:
                    inner.mkdir(mode=0o700)
                _walk(fd, path, walk, inner)
            finally:
                os.close(fd)
            if inner is not None:
                os.utime(inner, ns=(info.st_atime_ns, info.st_mtime_ns))
        elif dest is not None:
            _copy_file(name, dir_fd, info, dest / text, path)
            if text == TIMESTAMP_TXT and not rel:
                _check_timestamp(dest / text)


def _copy_file(name: str, dir_fd: int, info: os.stat_result, target: Path, path: str) -> None:
    """Copy one vetted regular file, opened without following a link or waiting on a FIFO,
    at most the bytes its vetting counted."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY,
                     dir_fd=dir_fd)
    except OSError as error:
        raise Refused(f"{path} cannot be opened as a file ({error.strerror or error})") from None
    try:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode) or not _same(info, now) or now.st_nlink > 1:
            raise Refused(f"{path} changed while it was read")
        left = info.st_size
        with open(target, "xb", opener=lambda p, f: os.open(p, f, 0o600)) as out:
            while True:
                chunk = os.read(fd, min(CHUNK, left + 1))
                if not chunk:
                    break
                left -= len(chunk)
                if left < 0:
                    raise Refused(f"{path} grew while it was read")
                out.write(chunk)
    finally:
        os.close(fd)
    os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns))


def _check_timestamp(copied: Path) -> None:
    """The copied ``timestamp.txt`` is a time nbgrader reads (it fails the whole collect on
    one it cannot, the next time) and not in the future."""
    data = copied.read_bytes()
    if not data.strip():
        return  # nbgrader warns and goes on
    try:
        if len(data) > MAX_TIMESTAMP_BYTES:
            raise ValueError
        moment = parse_nbgrader_time(data.decode("utf-8").strip())
    except (ValueError, UnicodeDecodeError):
        raise Refused(f"its {TIMESTAMP_TXT} is not a time nbgrader reads") from None
    if moment > datetime.now(UTC) + FUTURE_SLACK:
        raise Refused(f"its {TIMESTAMP_TXT} says {moment:%Y-%m-%d %H:%M} UTC, in the future")


def _folder(raw: bytes, assignment: str) -> Folder | None:
    """The folder's student as nbgrader reads the name (before the last 2-3 ``+``), or None
    for a name of another assignment."""
    parts = raw.rsplit(b"+", 3)
    if len(parts) < 3 or parts[1] != os.fsencode(assignment):
        return None
    return Folder(raw, _shown(parts[0], 60) or "(no student id)", _shown(raw))


def _check_name(folder: Folder) -> tuple[str, str]:
    """The student id and the time of an assignment's folder name, or ``Refused``."""
    try:
        text = folder.name.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused("its name is not UTF-8") from None
    if safe_text(text, len(text) + 1) != text:
        raise Refused("its name holds control characters")
    student, _, stamp = text.rsplit("+", 3)[:3]
    if not student or student.startswith(".") or student != student.strip():
        raise Refused("its student id is not one (empty, or starting with '.' or a space)")
    return student, stamp


def _check_time(stamp: str, now: datetime) -> None:
    """The time of a folder's name is one nbgrader reads, and not in the future."""
    try:
        moment = parse_nbgrader_time(stamp)
    except ValueError:
        raise Refused(f"its name's time {safe_text(stamp, 60)!r} is not one nbgrader "
                      "reads") from None
    if moment > now + FUTURE_SLACK:
        raise Refused(f"its name says it was submitted {moment:%Y-%m-%d %H:%M} UTC, in the "
                      "future (a folder dated later than the others is the one nbgrader "
                      "collects)")


def _allowed(student: str, unix_users: Mapping[str, str]) -> tuple[frozenset[int], str]:
    """The owners a folder of ``student`` may have, and the student as a TA reads it."""
    user = unix_users.get(student, student)
    uid = _uid(user)
    allowed = {os.geteuid(), 0} | ({uid} if uid is not None else set())
    shown = safe_text(student, 60)
    if user != student:
        shown += f" (Unix user {safe_text(user, 60)})"
    return frozenset(allowed), shown


def _vet_one(inbound_fd: int, folder: Folder, unix_users: Mapping[str, str], now: datetime,
             dest: Path | None) -> None:
    student, stamp = _check_name(folder)
    allowed, shown = _allowed(student, unix_users)
    walk = _Walk(allowed, shown)
    name = os.fsdecode(folder.name)
    info = os.stat(name, dir_fd=inbound_fd, follow_symlinks=False)
    _owner_check(info, walk, "it")  # first: who made it is what a TA needs to know
    if not stat.S_ISDIR(info.st_mode):
        raise Refused("it is not a folder" + (" (a symbolic link)" if stat.S_ISLNK(info.st_mode)
                                              else ""))
    _check_time(stamp, now)
    fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=inbound_fd)
    try:
        if not _same(info, os.fstat(fd)):
            raise Refused("it changed while it was read")
        if dest is not None:
            dest.mkdir(mode=0o700)
        _walk(fd, "", walk, dest)
    finally:
        os.close(fd)
    if dest is not None:
        os.utime(dest, ns=(info.st_atime_ns, info.st_mtime_ns))


def vet(inbound: Path, assignment: str, staging: Path | None,
        unix_users: Mapping[str, str] | None = None) -> Vetted:
    """Vet every folder of ``assignment`` in ``inbound`` and copy each one accepted into
    ``staging`` (an inbound folder of the caller's own; None: vet only)."""
    found = Vetted()
    users = dict(unix_users or {})
    now = datetime.now(UTC)
    inbound_fd = os.open(os.fsencode(inbound), os.O_RDONLY | os.O_DIRECTORY)
    try:
        names = sorted(os.listdir(inbound_fd))
        for name in names:
            folder = _folder(os.fsencode(name), assignment)
            if folder is None:
                continue
            target = staging / name if staging is not None else None
            try:
                _vet_one(inbound_fd, folder, users, now, None)  # bounds first: nothing read
                if target is not None:
                    _vet_one(inbound_fd, folder, users, now, target)
            except (Refused, OSError) as error:
                if target is not None:
                    shutil.rmtree(target, ignore_errors=True)
                why = (str(error) if isinstance(error, Refused)
                       else f"it cannot be read ({safe_text(error.strerror or error, 100)})")
                found.refused.append(f"refused inbound folder {folder.shown} of student "
                                     f"{folder.student}: {why}; nothing of it is collected")
                continue
            found.accepted.append(name)
    finally:
        os.close(inbound_fd)
    return found


@contextmanager
def staging_exchange(root: Path, course_id: str) -> Iterator[Path]:
    """A private exchange in the course root (0700, removed after): yields its root; the
    inbound folder to fill is ``<it>/<course_id>/inbound``."""
    made = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=root))
    try:
        (made / course_id / "inbound").mkdir(parents=True, mode=0o700)
        yield made
    finally:
        shutil.rmtree(made, ignore_errors=True)
