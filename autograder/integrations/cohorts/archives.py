"""Unpack an LMS download (``cohort collect --zip``) within limits, or refuse it.

nbgrader's ``zip_collect`` unpacks every archive it finds, archives inside archives
included, with no limit: a few hundred KB can become gigabytes. So we unpack the
download ourselves and hand nbgrader only plain files (with its own extraction off):

* before anything is written, the zip's central directory is held to the limits (total
  size, number of entries, compression ratio) and every name must stay inside the folder
  (no absolute path, no ``..``, no symbolic link or special file);
* an archive inside the download (a student's own ``.zip``, ``.tar.gz``...) is never
  unpacked: it is left out and named in the output. A zip inside is still read by its
  headers: if it passes a limit, or itself holds an archive (how a nested zip bomb
  multiplies), the whole download is refused;
* bytes are counted while unpacking too (headers can lie), into a temporary folder that
  is moved into place only when every download given succeeded.

Moodle's own download names a student's files after their full name and participant id
(``MOODLE_NAME``); with the assignment's grading worksheet as roster (cohorts.toml's
``moodle_roster``, ``autograder.integrations.lms.roster``) each such file is unpacked as
``<student id>__<file name>``, the name every other download uses, so ``zip_collect``
takes it. A Moodle download without a roster, or with one that does not name every
participant in it (another assignment's worksheet: participant ids are per assignment), is
refused whole.

A refusal is one ``ArchiveError`` line naming the download, what passed which limit, and
how to go on. Nothing of a refused download is left behind.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import stat
import tempfile
import zipfile
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from autograder.integrations.lms import roster as moodle_roster

MB = 1_000_000
CHUNK = 1 << 20
# Members smaller than this are not held to the ratio (a tiny file compresses oddly and
# cannot make a bomb: the total and the count bound them), nor is a zip that small overall.
RATIO_FLOOR = 1 << 20
# What counts as an archive inside a download: nbgrader's own zip_ext (.zip, .gz) and the
# other common ones. Matched on the name, case-insensitively.
ARCHIVE_SUFFIXES = (".zip", ".gz", ".tgz", ".tar", ".bz2", ".tbz", ".tbz2", ".xz", ".txz",
                    ".7z", ".rar", ".zst", ".lz", ".lzma", ".z", ".cab")
# The nbgrader options that make zip_collect copy files and unpack nothing (our own
# extraction already ran), whatever the course root's nbgrader_config.py says.
NBGRADER_NO_EXTRACTION = ("--ZipCollectApp.extractor_plugin=nbgrader.plugins.ExtractorPlugin",
                          "--ExtractorPlugin.zip_ext=[]")
DRIVE = re.compile(r"^[A-Za-z]:")
# The files zip_collect takes: FileNameCollectorPlugin.valid_ext in the cohort root's
# nbgrader_config.py (autograder.integrations.cohorts.workflow), compared as nbgrader does.
COLLECTED_SUFFIXES = (".ipynb", ".json")
SHOWN = 10  # skipped files named per line; the rest are counted
INNER_TAIL = 4 << 20  # how much of the end of a zip inside is kept to read its directory
# Moodle's own assignment download (mod/assign/classes/downloader.php): each file of a
# student's submission is "<full name>_<participant id>_assignsubmission_<plugin>" and then
# "/<path>" (folders, the default since Moodle 3.1; "_/<path>" before 4.1) or "_<file name>"
# (without folders). The full name holds no "_": Moodle writes each as a space.
# Only the download's top-level entry is Moodle's: whatever lies below it is the student's
# upload, so a file belongs to the participant its first path component names.
MOODLE_NAME = re.compile(r"^(?P<name>[^/\\_]+)_(?P<participant>\d+)_assignsubmission_"
                         r"(?P<plugin>[a-z0-9]+)(?:_?/(?P<inner>.+)|_(?P<file>[^/\\]+))$")
# A participant's prefix anywhere in a path (a folder or a flat file name of Moodle's form):
# below the top it names someone the upload does not belong to.
MOODLE_PREFIX = re.compile(r"(?:^|[/\\])(?P<name>[^/\\_]+)_(?P<participant>\d+)_assignsubmission_")
ANONYMOUS = "participant"  # the name Moodle writes for every student when marking blind


class ArchiveError(ValueError):
    """A download refused: past a limit, a name that escapes, or damaged."""


@dataclass(frozen=True)
class ArchiveLimits:
    """How much one LMS download may unpack to (cohorts.toml's ``zip_max_*`` keys)."""

    max_bytes: int = 200 * MB  # total uncompressed size of the download
    max_files: int = 5_000  # entries (files and folders) in the download
    max_ratio: float = 100.0  # uncompressed / compressed, per member and for the whole zip


@dataclass(frozen=True)
class MoodleNames:
    """How the files of one Moodle download are unpacked: ``renames`` (its name -> ours,
    ``<student id>__<file name>``; "" for a copy the Mac's archiver added inside a
    participant's folder, which is not unpacked), through ``roster``."""

    renames: dict[str, str]
    roster: moodle_roster.Roster | None = None

    @property
    def dropped(self) -> list[str]:
        """The Mac's copies inside participants' folders, left out of the unpacked files."""
        return [name for name, ours in self.renames.items() if not ours]

    def line(self, archive: Path) -> str:
        """What the TA is told: which download was Moodle's, and how its names were read."""
        assert self.roster is not None
        ours = [new for new in self.renames.values() if new]
        students = {new.split("__", 1)[0] for new in ours}
        return (f"{archive.name} is Moodle's own download: {len(ours)} file(s) of "
                f"{len(students)} student(s) named by their {self.roster.column} in "
                f"{self.roster.path} (moodle_roster)")


@dataclass(frozen=True)
class MoodleDownload:
    """What reads Moodle's own download: the roster that maps its participant ids to student
    ids (cohorts.toml's ``moodle_roster``, Moodle's grading worksheet; None: not given) and
    the user field a student id is (``moodle_identifier``)."""

    roster: Path | None = None
    identifier: str = "username"

    def names(self, archive: Path, members: Iterable[str]) -> MoodleNames:
        """Our name for each member of ``archive`` that Moodle named (none: an empty
        ``MoodleNames``); ``ArchiveError`` when there is no roster, or it does not name a
        participant, or gives two files one name, or a file in one participant's folder
        names another participant (whose work is it?)."""
        members = list(members)
        _check_tops(archive, members)
        found = [(name, match) for name in members if (match := MOODLE_NAME.match(name))]
        if not found:
            return MoodleNames({})
        example = found[0][0]
        if self.roster is None:
            raise _refuse(archive, f"it is Moodle's own assignment download (e.g. {example!r}: "
                          "<full name>_<participant id>_assignsubmission_...), and a "
                          "participant id is not a student id",
                          "set moodle_roster in cohorts.toml to the assignment's grading "
                          "worksheet (Moodle: the assignment > Submissions > Download grading "
                          "worksheet), which maps each participant to the student")
        try:
            roster = moodle_roster.load(self.roster, self.identifier)
        except moodle_roster.RosterError as error:
            raise _refuse(archive, f"it is Moodle's own assignment download, and {error}",
                          "then collect again") from None
        renames = {}
        for name, match in found:
            _check_foreign(archive, roster, name, match)
            renames[name] = "" if _mac_copy(name) else _our_name(archive, roster, match)
        _check_taken(archive, members, renames)
        return MoodleNames(renames, roster)


def _parts(name: str) -> list[str]:
    return re.split(r"[/\\]", name.rstrip("/"))


def _mac_copy(name: str) -> bool:
    """A copy the Mac's archiver adds (``__MACOSX/``, ``._<file>``), not a student's file."""
    parts = _parts(name)
    return "__MACOSX" in parts or parts[-1].startswith(".")


def _check_tops(archive: Path, members: list[str]) -> None:
    """Moodle writes a participant's folder only at the top of its download: one found lower
    down (a download zipped again inside a folder) would let an upload name its owner."""
    for name in members:
        if MOODLE_NAME.match(name) or _mac_copy(name):
            continue
        below = [m for m in MOODLE_PREFIX.finditer(name) if m.start() > 0]
        if below:
            raise _refuse(archive, f"{name!r} has a Moodle participant's folder "
                          f"({below[0]['name']}_{below[0]['participant']}_...) below the top "
                          "of the download, where Moodle never writes one",
                          "collect the zip exactly as Moodle's \"Download all submissions\" "
                          "wrote it, not unpacked and zipped again")


def _who(roster: moodle_roster.Roster, participant: str, name: str) -> str:
    """A participant as the TA finds them: full name, participant id, student id."""
    entry = roster.participants.get(participant)
    student = f", {roster.column} {entry.student}" if entry and entry.student else ""
    shown = entry.name if entry and entry.name else name
    return f"{shown} (participant {participant}{student})"


def _check_foreign(archive: Path, roster: moodle_roster.Roster, name: str,
                   top: re.Match[str]) -> None:
    """A file is its top-level entry's participant's; one whose path below names another
    participant's prefix is refused, naming both (filing it under either could be wrong)."""
    for other in MOODLE_PREFIX.finditer(name):
        if other.start() == 0 or other["participant"] == top["participant"]:
            continue
        raise _refuse(archive, f"{name!r} is in the upload of "
                      f"{_who(roster, top['participant'], top['name'])} but names another participant, "
                      f"{_who(roster, other['participant'], other['name'])}; it is filed under "
                      "neither",
                      "check with both students whose work it is, remove it from the "
                      "download, and collect again")


def _check_taken(archive: Path, members: list[str], renames: dict[str, str]) -> None:
    """Two members one name once unpacked (one student's files from two entries, or two
    folders of one upload) are refused in one line naming both."""
    taken: dict[str, str] = {}
    for name in members:
        ours = renames.get(name, name.rstrip("/"))
        if not ours:
            continue
        if ours in taken:
            tops = {_parts(taken[ours])[0], _parts(name)[0]}
            where = " (two entries of the download are one student)" if len(tops) > 1 else ""
            raise _refuse(archive, f"{taken[ours]!r} and {name!r} would both be unpacked as "
                          f"{ours!r}{where}", "ask the student which file to grade, and "
                          "remove the other from the download")
        taken[ours] = name


def _our_name(archive: Path, roster: moodle_roster.Roster, match: re.Match[str]) -> str:
    """``<student id>__<file name>`` for one of Moodle's names, checked against the roster."""
    participant = match["participant"]
    entry = roster.participants.get(participant)
    fix = ("download the grading worksheet of this very assignment again (participant ids "
           "are per assignment) and set moodle_roster to it")
    if entry is None:
        raise _refuse(archive, f"participant {participant} ({match['name']}) is not in the "
                      f"Moodle roster {roster.path}", fix)
    if (match["name"].casefold() != ANONYMOUS and entry.name
            and moodle_roster.comparable(match["name"]) != moodle_roster.comparable(entry.name)):
        raise _refuse(archive, f"participant {participant} is {match['name']!r} in it but "
                      f"{entry.name!r} in the Moodle roster {roster.path} (a roster of another "
                      "assignment?)", fix)
    if not entry.student:
        raise _refuse(archive, f"participant {participant} ({entry.name or match['name']}) has "
                      f"no {roster.column} in the Moodle roster {roster.path}, and the grade "
                      f"import matches students by it (moodle_identifier = "
                      f"{roster.identifier!r})", f"give the student a {roster.column} in "
                      "Moodle and download the grading worksheet again, or set "
                      "moodle_identifier to a field every student has")
    return f"{entry.student}__{_parts(match['inner'] or match['file'])[-1]}"


@dataclass
class Download:
    """One download, checked and unpacked into its temporary folder."""

    archive: Path
    folder: Path  # the temporary folder, then (once all succeeded) its place in archive/
    left_out: list[str] = field(default_factory=list)  # archives inside, never unpacked
    moodle: MoodleNames = field(default_factory=lambda: MoodleNames({}))  # Moodle's names


@dataclass(frozen=True)
class Skipped:
    """A file of a download that ``zip_collect`` does not collect, and why (for the TA)."""

    name: str  # its path in the download
    why: str


def not_collected(download: Download, regexp: str) -> list[Skipped]:
    """The unpacked files of ``download`` that nbgrader's ``zip_collect`` will skip, decided as
    its ``FileNameCollectorPlugin`` decides: the suffix, then ``regexp`` matched (with at
    least one group) against the path it copies the file to, ``extracted/<zip name>/...``
    beside ``archive/``. It skips them with a log line nobody reads, so the TA is told."""
    extracted = download.folder.parent.parent / "extracted" / download.folder.name
    skipped = []
    for path in sorted(p for p in download.folder.rglob("*") if p.is_file()):
        name = path.relative_to(download.folder).as_posix()
        if Path(name).suffix not in COLLECTED_SUFFIXES:
            skipped.append(Skipped(name, "not a notebook or JSON file (only "
                                   f"{' and '.join(COLLECTED_SUFFIXES)} files are collected)"))
        elif _collected_as(regexp, extracted, name) is None:
            skipped.append(Skipped(name, "the name does not match lms_filename_regexp in "
                                   "cohorts.toml (by default <student id>__<file name>)"))
    return skipped


def _collected_as(regexp: str, extracted: Path, name: str) -> tuple[str, str] | None:
    """(student id, file name in submitted/) that ``zip_collect`` gives the file ``name`` of
    a download unpacked for ``extracted``, as its ``FileNameCollectorPlugin`` and
    ``_collect_files`` decide; None when it skips it (no match, or no group)."""
    match = re.match(regexp, str(extracted / name)) if regexp else None
    if not match or not match.groups():
        return None
    found = match.groupdict()
    student, file_id = found.get("student_id"), found.get("file_id")
    if not isinstance(student, str) or not isinstance(file_id, str):
        return None  # zip_collect itself refuses such a pattern
    return student, os.path.splitext(file_id)[0] + os.path.splitext(name)[1]


def check_owners(downloads: list[tuple[Download, str]], extracted: Path, regexp: str) -> None:
    """``ArchiveError`` unless every file ``zip_collect`` will take from ``downloads`` (each
    with the folder name it gets) is the student's of its top-level entry, and no student
    has one file twice (from two entries, or two downloads): nbgrader would file the one
    under another student, or fail the whole collection ("Duplicate submission file")."""
    seen: dict[tuple[str, str], tuple[Path, str]] = {}
    for download, folder in downloads:
        for path in sorted(p for p in download.folder.rglob("*") if p.is_file()):
            name = path.relative_to(download.folder).as_posix()
            if Path(name).suffix not in COLLECTED_SUFFIXES:
                continue
            owner = _collected_as(regexp, extracted / folder, name)
            if owner is None:
                continue
            _check_entry(download.archive, regexp, extracted / folder, name, owner[0])
            first = seen.setdefault(owner, (download.archive, name))
            if first != (download.archive, name):
                raise _refuse(download.archive, f"{first[0].name}'s {first[1]} and "
                              f"{download.archive.name}'s {name} are both {owner[0]}'s "
                              f"{owner[1]}, and nbgrader cannot tell which to collect",
                              "ask the student which file to grade, remove the other (or "
                              "give the downloads one at a time), and collect again")


def _check_entry(archive: Path, regexp: str, extracted: Path, name: str, student: str) -> None:
    """A file below a top-level entry named for one student is that student's: one whose own
    name makes it another's is refused, naming both."""
    top = name.split("/", 1)[0]
    entry = _collected_as(regexp, extracted, top) if "/" in name else None
    if entry is not None and entry[0] != student:
        raise _refuse(archive, f"{name!r} lies in {top!r}, an entry of student {entry[0]}, "
                      f"but is named for student {student}; it is filed under neither",
                      "check with both students whose work it is, remove it from the "
                      "download, and collect again")


def skipped_lines(downloads: list[Download], regexp: str) -> list[str]:
    """A line per download and reason, naming up to ``SHOWN`` of the files skipped (after a
    line saying how a Moodle download's names were read)."""
    lines = []
    for download in downloads:
        if download.moodle.renames:
            lines.append(download.moodle.line(download.archive))
        if download.moodle.dropped:
            lines.append(f"not collected from {download.archive.name}, "
                         f"{len(download.moodle.dropped)} file(s): copies the Mac's archiver "
                         f"adds (__MACOSX/, ._<file>), not unpacked: "
                         f"{', '.join(download.moodle.dropped[:SHOWN])}")
        by_why: dict[str, list[str]] = {}
        for skipped in not_collected(download, regexp):
            by_why.setdefault(skipped.why, []).append(skipped.name)
        for why, names in by_why.items():
            more = f", and {len(names) - SHOWN} more" if len(names) > SHOWN else ""
            lines.append(f"not collected from {download.archive.name}, {len(names)} file(s): "
                         f"{why}: {', '.join(names[:SHOWN])}{more}")
    return lines


def is_archive(name: str) -> bool:
    """Whether a member is an archive by its name (then it is never unpacked)."""
    return name.lower().endswith(ARCHIVE_SUFFIXES)


def _size(count: int) -> str:
    return f"{count / MB:,.1f} MB" if count >= MB // 10 else f"{count:,} bytes"


def _refuse(archive: Path, what: str, fix: str) -> ArchiveError:
    return ArchiveError(f"--zip {archive} refused: {what}; nothing was unpacked; {fix}")


def _raise_limit(fix: str) -> str:
    return f"check the download, or raise {fix} in cohorts.toml if it is genuine"


def _check_headers(archive: Path, inside: str | None, infos: list[zipfile.ZipInfo],
                   limits: ArchiveLimits) -> None:
    """The limits, by what a central directory declares: the download's (``inside`` None)
    or that of the zip ``inside`` it."""
    subject = f"{inside!r} inside it" if inside else "it"
    if len(infos) > limits.max_files:
        raise _refuse(archive, f"{subject} holds {len(infos):,} entries (limit "
                      f"{limits.max_files:,})", _raise_limit("zip_max_files"))
    total = sum(info.file_size for info in infos)
    if total > limits.max_bytes:
        raise _refuse(archive, f"{subject} would unpack to {_size(total)} (limit "
                      f"{_size(limits.max_bytes)})", _raise_limit("zip_max_megabytes"))
    for info in infos:
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size >= RATIO_FLOOR and ratio > limits.max_ratio:
            member = f"{info.filename!r}" + (f" in {inside!r} inside it" if inside else "")
            raise _refuse(archive, f"{member} expands {ratio:,.0f} times "
                          f"({_size(info.compress_size)} to {_size(info.file_size)}; limit "
                          f"{limits.max_ratio:g}), a zip bomb", _raise_limit("zip_max_ratio"))
    packed = sum(info.compress_size for info in infos)
    if total >= RATIO_FLOOR and total / max(packed, 1) > limits.max_ratio:
        raise _refuse(archive, f"{subject} expands {total / max(packed, 1):,.0f} times as a "
                      f"whole ({_size(packed)} to {_size(total)}; limit {limits.max_ratio:g}), "
                      "a zip bomb", _raise_limit("zip_max_ratio"))


def _check_name(archive: Path, info: zipfile.ZipInfo) -> None:
    """A member is written inside the folder, as a plain file or folder, or not at all."""
    name = info.filename
    parts = re.split(r"[/\\]", name)
    if not name or name.startswith(("/", "\\")) or DRIVE.match(name) or ".." in parts:
        raise _refuse(archive, f"{name!r} would be written outside the folder it is unpacked "
                      "into (an absolute path or ..)", "download it again from the LMS")
    mode = info.external_attr >> 16
    if info.create_system == 3 and stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):
        kind = "a symbolic link" if stat.S_ISLNK(mode) else "a special file"
        raise _refuse(archive, f"{name!r} is {kind}, not a file",
                      "download it again from the LMS")


def _check_inner_zip(archive: Path, outer: zipfile.ZipFile, info: zipfile.ZipInfo,
                     limits: ArchiveLimits) -> None:
    """A zip inside the download is not unpacked, but read by its headers: one past a limit,
    or holding another archive, is a (nested) zip bomb."""
    try:
        # One pass over the member, keeping its end: a zip's directory is at its end, and
        # zipfile reads a zip with data missing before it (as it reads one with a prefix).
        tail = b""
        with outer.open(info) as stream:
            while chunk := stream.read(CHUNK):
                tail = (tail + chunk)[-INNER_TAIL:]
        with zipfile.ZipFile(io.BytesIO(tail)) as inner:
            infos = inner.infolist()
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError,
            ValueError, OSError):
        # Not a zip, a damaged or encrypted one, or a directory past INNER_TAIL (far more
        # entries than any limit): it cannot be read, and is left out unread all the same.
        return
    _check_headers(archive, info.filename, infos, limits)
    nested = next((i.filename for i in infos if is_archive(i.filename)), None)
    if nested is not None:
        raise _refuse(archive, f"{info.filename!r} inside it holds another archive, {nested!r} "
                      "(archives inside a download are never unpacked; one nested in them is "
                      "how a zip bomb multiplies)", f"remove {info.filename!r} from the "
                      "download and ask its student for the files themselves")


def _open(archive: Path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(archive)
    except (OSError, zipfile.BadZipFile, ValueError) as error:
        raise _refuse(archive, f"it cannot be read ({error})", "download it again") from None


def _damaged(archive: Path, error: Exception) -> ArchiveError:
    return _refuse(archive, f"it is damaged or cannot be unpacked ({error})",
                   "download it again from the LMS")


def check(archive: Path, limits: ArchiveLimits) -> None:
    """``ArchiveError`` unless the download's headers (and those of each zip inside it) are
    within the limits and every name stays inside the folder. Writes nothing."""
    with _open(archive) as download:
        infos = download.infolist()
        _check_headers(archive, None, infos, limits)
        seen: set[str] = set()
        for info in infos:
            _check_name(archive, info)
            key = info.filename.rstrip("/")
            if key in seen:
                raise _refuse(archive, f"it holds {info.filename!r} twice",
                              "download it again from the LMS")
            seen.add(key)
        for info in infos:
            if not info.is_dir() and is_archive(info.filename):
                _check_inner_zip(archive, download, info, limits)


def _copy(archive: Path, source: IO[bytes], target: Path, info: zipfile.ZipInfo,
          written: int, limits: ArchiveLimits) -> int:
    """Copy one member, counting its bytes against its header and the total; returns the
    new total written."""
    count = 0
    with target.open("xb") as out:
        while chunk := source.read(CHUNK):
            count += len(chunk)
            if count > info.file_size:
                raise _refuse(archive, f"{info.filename!r} holds more than the {_size(info.file_size)} "
                              "its header declares, a forged zip", "download it again from the LMS")
            if written + count > limits.max_bytes:
                raise _refuse(archive, f"it unpacks to more than {_size(limits.max_bytes)} "
                              "(limit)", _raise_limit("zip_max_megabytes"))
            out.write(chunk)
    return written + count


def _unpack_one(archive: Path, staged: Path, limits: ArchiveLimits,
                moodle: MoodleDownload) -> Download:
    """Unpack one (checked) download into ``staged``, leaving archives inside out, and each
    file Moodle named as ``<student id>__<file name>``."""
    result = Download(archive=archive, folder=staged)
    written = 0
    with _open(archive) as download:
        infos = download.infolist()
        result.moodle = moodle.names(archive, [info.filename for info in infos])
        for info in infos:
            _check_name(archive, info)  # the same zip as checked, but do not rely on it
            name = result.moodle.renames.get(info.filename, info.filename)
            if not name:  # the Mac's copy inside a participant's folder: named, not unpacked
                continue
            target = staged.joinpath(*re.split(r"[/\\]", name.rstrip("/")))
            if not target.resolve().is_relative_to(staged.resolve()):
                raise _refuse(archive, f"{info.filename!r} would be written outside the folder",
                              "download it again from the LMS")
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            if is_archive(info.filename):
                result.left_out.append(info.filename)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                with download.open(info) as source:
                    written = _copy(archive, source, target, info, written, limits)
            except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError,
                    RuntimeError) as error:
                raise _damaged(archive, error) from None
    return result


def _new_dirs(path: Path) -> list[Path]:
    """The folders ``path.mkdir(parents=True)`` would create, outermost first."""
    missing = []
    while not path.exists():
        missing.append(path)
        path = path.parent
    return missing[::-1]


def unpack(archives: list[Path], archive_dir: Path, limits: ArchiveLimits,
           moodle: MoodleDownload | None = None, regexp: str = "") -> list[Download]:
    """Check and unpack every download, each into ``archive_dir/<its name without .zip>``
    (replacing every earlier download there: ``zip_collect`` collects all of
    ``archive_dir``, so an earlier one would be collected again, or clash), all or none: a
    refusal removes every temporary folder and every folder this call created, and raises
    ``ArchiveError``. ``moodle``: how Moodle's own downloads are named (without it, one is
    refused); ``regexp``: lms_filename_regexp, to check whose each file is (``check_owners``)."""
    moodle = moodle or MoodleDownload()
    names = [Path(archive).stem for archive in archives]
    twice = next((name for name in names if names.count(name) > 1), None)
    if twice is not None:
        raise ArchiveError(f"two --zip files are named {twice}.zip: they would unpack into the "
                           "same folder; rename one")
    for archive in archives:
        check(Path(archive), limits)
    created = _new_dirs(archive_dir)
    done: list[Download] = []
    try:
        try:
            archive_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ArchiveError(f"cannot create {archive_dir} to unpack the --zip downloads "
                               f"into: {error.strerror or error}") from None
        for archive in archives:
            try:
                staged = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=archive_dir.parent))
            except OSError as error:
                raise ArchiveError(f"cannot unpack --zip {archive} into {archive_dir.parent}: "
                                   f"{error.strerror or error}") from None
            try:
                done.append(_unpack_one(Path(archive), staged, limits, moodle))
            except OSError as error:  # e.g. a file and a folder of the same name
                shutil.rmtree(staged, ignore_errors=True)
                raise _damaged(Path(archive), error) from None
            except BaseException:
                shutil.rmtree(staged, ignore_errors=True)
                raise
        if regexp:
            check_owners(list(zip(done, names, strict=True)),
                         archive_dir.parent / "extracted", regexp)
    except BaseException:
        for download in done:
            shutil.rmtree(download.folder, ignore_errors=True)
        for folder in reversed(created):
            try:
                folder.rmdir()
            except OSError:
                pass
        raise
    try:
        _install(done, names, archive_dir)
    except OSError as error:
        for download in done:
            shutil.rmtree(download.folder, ignore_errors=True)
        raise ArchiveError(f"cannot move the --zip downloads' files into {archive_dir}: "
                           f"{error.strerror or error}") from None
    return done


def _install(done: list[Download], names: list[str], archive_dir: Path) -> None:
    """Move the unpacked folders into ``archive_dir``; what an earlier collect left there is
    moved aside first and removed only after."""
    old = Path(tempfile.mkdtemp(prefix=".replaced-", dir=archive_dir.parent))
    try:
        for entry in list(archive_dir.iterdir()):
            entry.rename(old / entry.name)
        for download, name in zip(done, names, strict=True):
            download.folder.rename(archive_dir / name)
            download.folder = archive_dir / name
    finally:
        shutil.rmtree(old, ignore_errors=True)
