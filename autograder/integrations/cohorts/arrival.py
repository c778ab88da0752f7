"""At ``cohort collect``: when each submission arrived, by records its student cannot write.

From the exchange: ``nbgrader submit`` copies the student's files into
``inbound/<student>+<assignment>+<timestamp>+<random>`` and writes ``timestamp.txt`` there;
``nbgrader collect`` copies that folder (its files' mtimes too) into ``submitted/``. The
student owns that folder and can rewrite ``timestamp.txt`` and reset every mtime
(``os.utime``), but every such change moves the file's ``st_ctime`` to the present, and no
user can set it back. So the latest ``st_ctime`` of the inbound folder and everything in it
is when the submission took its final form in the exchange. The folder collected is found
by content (every collected file byte for byte; ``submission_secret.txt`` makes it unique).

From an LMS download: the time the TA gives (``--received``), else the zip's own record
of its entries' times when it has them with a zone (the "UT" extended-timestamp or NTFS
extra field, in UTC); a zip's plain DOS times have no zone, so they are not used.

The receipts go to ``receipts/<assignment>.json`` (``autograder.batch.receipts``), which the
grader compares with ``timestamp.txt`` (``autograder.batch.lateness``).
"""

from __future__ import annotations

import filecmp
import glob
import os
import re
import stat
import struct
import zipfile
from collections.abc import Collection
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from autograder.base.course import Course
from autograder.base.safe_text import safe_text
from autograder.batch import receipts as receipts_file
from autograder.grading.submission import content_hash
from autograder.integrations.cohorts.archives import ArchiveError, MoodleDownload

MAX_SCANNED = 10_000  # entries of one inbound folder; nbgrader's own size limit is far below
VALID_EXT = (".ipynb", ".json")  # FileNameCollectorPlugin.valid_ext in the root's config
REACHED_EXCHANGE = "its files reached the exchange"
GIVEN = "the TA gave, with --received, that the LMS received it"
ZIP_TIMES = "the LMS download records its files"
NTFS_EPOCH = datetime(1601, 1, 1, tzinfo=UTC)


def _last_change(folder: Path) -> tuple[datetime | None, str]:
    """The latest ``st_ctime`` of ``folder`` and everything in it, or None and why not. A
    symbolic link is refused: what it points to can change without the exchange recording
    it (``nbgrader submit`` copies files, it never makes links)."""
    try:
        latest = os.lstat(folder).st_ctime_ns
        for count, path in enumerate(folder.rglob("*")):
            if count >= MAX_SCANNED:
                return None, f"its folder in the exchange holds more than {MAX_SCANNED} entries"
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                return None, (f"its folder in the exchange holds a symbolic link "
                              f"({path.relative_to(folder)}), whose target can change unrecorded")
            latest = max(latest, info.st_ctime_ns)
    except OSError as error:
        return None, f"its folder in the exchange cannot be read ({error.strerror or error})"
    return datetime.fromtimestamp(latest / 1e9, UTC), ""


def _holds(candidate: Path, submitted: Path) -> bool:
    """Whether every collected file is in ``candidate`` with the same bytes (``filecmp``
    reads regular files only: a link to a device or a FIFO compares unequal, unread)."""
    files = [p for p in submitted.rglob("*") if p.is_file()]
    try:
        return bool(files) and all(
            (candidate / p.relative_to(submitted)).is_file()
            and filecmp.cmp(p, candidate / p.relative_to(submitted), shallow=False)
            for p in files)
    except OSError:
        return False


def _plain(name: str) -> bool:
    """Whether a folder name can be written into receipts and shown to a TA as it is: valid
    UTF-8 (no byte the file system decoded as a lone surrogate), no control characters."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return safe_text(name, len(name) + 1) == name


def _candidates(inbound: Path, student: str, assignment: str,
                accepted: Collection[str] | None = None) -> list[Path]:
    """The student's folders of this assignment in the exchange, as ``nbgrader collect``
    finds them (``<student>+<assignment>+*``, the student id before the last 2-3 ``+``);
    ``accepted``: only these folder names (the ones ``inbound.vet`` accepted)."""
    pattern = str(inbound / f"{glob.escape(student)}+{glob.escape(assignment)}+*")
    return sorted(Path(p) for p in glob.glob(pattern)
                  if Path(p).name.rsplit("+", 3)[0] == student and _plain(Path(p).name)
                  and (accepted is None or Path(p).name in accepted)
                  and stat.S_ISDIR(os.lstat(p).st_mode))


def from_exchange(course: Course, inbound: Path, known: dict[str, receipts_file.Receipt],
                  accepted: Collection[str] | None = None) -> dict[str, receipts_file.Receipt]:
    """A receipt for each collected student with a folder in the exchange: the time the
    collected one last changed there. When none of their folders holds the collected files
    (changed in the exchange after it was copied), a receipt without a time, unless
    ``known`` already has a current one for these files. ``accepted``: the folders
    ``inbound.vet`` accepted, the only ones considered (a name that is not plain UTF-8 never
    is)."""
    found: dict[str, receipts_file.Receipt] = {}
    if not inbound.is_dir():
        return found
    for student in course.students():
        try:
            candidates = _candidates(inbound, student, course.assignment, accepted)
        except OSError:  # a folder gone while it was read: as if it was not there
            candidates = []
        if not candidates:
            continue  # not from the exchange (an LMS download, or placed by hand)
        submitted = course.submitted(student)
        digest = content_hash(submitted)
        matched = [(c, *_last_change(c)) for c in candidates if _holds(c, submitted)]
        timed = [(c, moment) for c, moment, _ in matched if moment is not None]
        if timed:
            folder, moment = max(timed, key=lambda pair: pair[1])  # the later, if several
            found[student] = receipts_file.Receipt(
                receipts_file.SOURCE_EXCHANGE, receipts_file.time_text(moment),
                REACHED_EXCHANGE, digest, detail=f"inbound/{folder.name}")
            continue
        old = known.get(student)
        if old is not None and old.submission_hash == digest and old.received_at:
            continue  # collected earlier, confirmed then; its exchange folder changed since
        why = (matched[0][2] if matched else
               "no folder of the exchange holds the collected files (changed there after "
               "they were copied?)")
        found[student] = receipts_file.Receipt(receipts_file.SOURCE_EXCHANGE, None, why, digest,
                                               detail=", ".join(c.name for c in candidates)[:1000])
    return found


def _extra_time(extra: bytes) -> datetime | None:
    """The modification time an entry's extra field records in UTC: "UT" (0x5455, Unix
    seconds) or NTFS (0x000a, 100 ns since 1601); None without either."""
    offset = 0
    while offset + 4 <= len(extra):
        kind, size = struct.unpack_from("<HH", extra, offset)
        body = extra[offset + 4: offset + 4 + size]
        offset += 4 + size
        if kind == 0x5455 and len(body) >= 5 and body[0] & 1:
            return datetime.fromtimestamp(struct.unpack_from("<i", body, 1)[0], UTC)
        if kind == 0x000A and len(body) >= 32:
            tag, tag_size = struct.unpack_from("<HH", body, 4)
            if tag == 1 and tag_size >= 24:
                ticks = struct.unpack_from("<Q", body, 8)[0]
                return NTFS_EPOCH + timedelta(microseconds=ticks // 10)
    return None


def _entries(course: Course, archive: Path, regexp: str,
             moodle: MoodleDownload) -> list[tuple[str, datetime | None]]:
    """(student id, recorded UTC time) of each entry zip_collect takes from ``archive``,
    matched as nbgrader matches it: ``regexp`` against the path it unpacks the entry to (for
    a file Moodle named, the name ``archives`` unpacked it as)."""
    extracted = Path(course.root) / "downloaded" / course.assignment / "extracted"
    pattern = re.compile(regexp)
    out = []
    with zipfile.ZipFile(archive) as download:
        infos = download.infolist()
        try:  # as archives.unpack read them a moment ago
            renames = moodle.names(Path(archive), [info.filename for info in infos]).renames
        except ArchiveError:  # the roster changed since: its students are not known
            renames = {}
        for info in infos:
            if info.is_dir() or os.path.splitext(info.filename)[1] not in VALID_EXT:
                continue
            name = renames.get(info.filename, info.filename)
            if not name:  # a Mac's copy, never unpacked
                continue
            match = pattern.match(os.path.join(str(extracted), Path(archive).stem, name))
            student = match.groupdict().get("student_id") if match else None
            if student:
                out.append((student, _extra_time(info.extra)))
    return out


def from_downloads(course: Course, archives: list[Path], regexp: str,
                   received: datetime | None, moodle: MoodleDownload | None = None
                   ) -> dict[str, receipts_file.Receipt]:
    """A receipt for each student zip_collect took from ``archives``: ``received`` when the
    TA gave it, else the latest time the zip records for the student's files (None, saying
    why, when some file has no zoned time). ``moodle``: how a Moodle download's names map
    to students, as they were unpacked."""
    times: dict[str, list[datetime | None]] = {}
    names: dict[str, set[str]] = {}
    for archive in archives:
        for student, moment in _entries(course, Path(archive), regexp,
                                        moodle or MoodleDownload()):
            times.setdefault(student, []).append(moment)
            names.setdefault(student, set()).add(Path(archive).name)
    found = {}
    for student, moments in times.items():
        if not course.submitted(student).is_dir():
            continue
        detail = ", ".join(sorted(names[student]))
        if received is not None:
            when, how = receipts_file.time_text(received), GIVEN
        elif all(moments):
            when, how = receipts_file.time_text(max(m for m in moments if m)), ZIP_TIMES
        else:
            when, how = None, ("the LMS download records no time zone for its files' times "
                               "(pass `cohort collect --zip FILE --received TIME`)")
        found[student] = receipts_file.Receipt(receipts_file.SOURCE_LMS, when, how, "",
                                               detail=detail)
    return found


def first_receipt(course: Course, student: str, new: receipts_file.Receipt,
                  known: receipts_file.Receipt | None) -> receipts_file.Receipt:
    """The receipt of record for the content ``new`` was made for (its ``submission_hash``):
    the earliest time any collect recorded for this same content (the course's receipt, or
    the one kept with the version of it in ``versions/``), else ``new``. The same files
    downloaded again later (a TA's second "download all") arrived when they first did: a
    later receipt never makes them late, and an earlier one is never lost."""
    # batch.versions (the grader's copy of each version): only when a receipt is recorded
    from autograder.batch import versions

    digest = new.submission_hash
    version = versions.find(course, student, digest)
    earlier = [r for r in (known, version.receipt if version else None)
               if r is not None and r.submission_hash == digest and r.moment is not None]
    timed = ([new] if new.moment is not None else []) + earlier  # a tie: the new one
    return min(timed, key=lambda r: r.moment) if timed else new


def record(course: Course, known: dict[str, receipts_file.Receipt],
           found: dict[str, receipts_file.Receipt]) -> list[str]:
    """Write ``found`` over ``known`` (each bound to the collected files as they are now;
    a receipt of a student no longer collected is dropped) and say what was recorded.
    Content collected before keeps its first arrival time (``first_receipt``)."""
    if not found:
        return []
    students = set(course.students())
    merged = {s: r for s, r in known.items() if s in students}
    kept_first = []
    for student, receipt in found.items():
        bound = replace(receipt, submission_hash=content_hash(course.submitted(student)))
        merged[student] = first_receipt(course, student, bound, known.get(student))
        if merged[student].received_at != bound.received_at:
            kept_first.append(student)
    path = receipts_file.save(course.root, course.assignment, merged)
    untimed = sorted(s for s, r in found.items() if merged[s].received_at is None)
    line = (f"arrival times of {len(found) - len(untimed)} submission(s) recorded in {path} "
            "(compared with their timestamp.txt when graded)")
    if kept_first:
        kept_first.sort()
        shown = ", ".join(kept_first[:10]) + (", ..." if len(kept_first) > 10 else "")
        line += (f"; {len(kept_first)} collected before with the same files keep their first "
                 f"arrival time ({shown}: the same files arrived when they first did)")
    if untimed:
        line += (f"; no arrival time for {len(untimed)} ({', '.join(untimed[:10])}"
                 f"{', ...' if len(untimed) > 10 else ''}): {found[untimed[0]].how}")
    return [line]
