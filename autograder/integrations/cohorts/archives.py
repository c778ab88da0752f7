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

A refusal is one ``ArchiveError`` line naming the download, what passed which limit, and
how to go on. Nothing of a refused download is left behind.
"""

from __future__ import annotations

import io
import re
import shutil
import stat
import tempfile
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

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


class ArchiveError(ValueError):
    """A download refused: past a limit, a name that escapes, or damaged."""


@dataclass(frozen=True)
class ArchiveLimits:
    """How much one LMS download may unpack to (cohorts.toml's ``zip_max_*`` keys)."""

    max_bytes: int = 200 * MB  # total uncompressed size of the download
    max_files: int = 5_000  # entries (files and folders) in the download
    max_ratio: float = 100.0  # uncompressed / compressed, per member and for the whole zip


@dataclass
class Download:
    """One download, checked and unpacked into its temporary folder."""

    archive: Path
    folder: Path  # the temporary folder, then (once all succeeded) its place in archive/
    left_out: list[str] = field(default_factory=list)  # archives inside, never unpacked


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
    pattern = re.compile(regexp) if regexp else None
    extracted = download.folder.parent.parent / "extracted" / download.folder.name
    skipped = []
    for path in sorted(p for p in download.folder.rglob("*") if p.is_file()):
        name = path.relative_to(download.folder).as_posix()
        if Path(name).suffix not in COLLECTED_SUFFIXES:
            skipped.append(Skipped(name, "not a notebook or JSON file (only "
                                   f"{' and '.join(COLLECTED_SUFFIXES)} files are collected)"))
            continue
        match = pattern.match(str(extracted / name)) if pattern else None
        if not match or not match.groups():
            skipped.append(Skipped(name, "the name does not match lms_filename_regexp in "
                                   "cohorts.toml (by default <student id>__<file name>)"))
    return skipped


def skipped_lines(downloads: list[Download], regexp: str) -> list[str]:
    """A line per download and reason, naming up to ``SHOWN`` of the files skipped."""
    lines = []
    for download in downloads:
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


def _unpack_one(archive: Path, staged: Path, limits: ArchiveLimits) -> Download:
    """Unpack one (checked) download into ``staged``, leaving archives inside out."""
    result = Download(archive=archive, folder=staged)
    written = 0
    with _open(archive) as download:
        for info in download.infolist():
            _check_name(archive, info)  # the same zip as checked, but do not rely on it
            target = staged.joinpath(*re.split(r"[/\\]", info.filename.rstrip("/")))
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


def unpack(archives: list[Path], archive_dir: Path, limits: ArchiveLimits) -> list[Download]:
    """Check and unpack every download, each into ``archive_dir/<its name without .zip>``
    (replacing an earlier download of that name), all or none: a refusal removes every
    temporary folder and every folder this call created, and raises ``ArchiveError``."""
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
                done.append(_unpack_one(Path(archive), staged, limits))
            except OSError as error:  # e.g. a file and a folder of the same name
                shutil.rmtree(staged, ignore_errors=True)
                raise _damaged(Path(archive), error) from None
            except BaseException:
                shutil.rmtree(staged, ignore_errors=True)
                raise
    except BaseException:
        for download in done:
            shutil.rmtree(download.folder, ignore_errors=True)
        for folder in reversed(created):
            try:
                folder.rmdir()
            except OSError:
                pass
        raise
    for download, name in zip(done, names, strict=True):
        try:
            _install(download.folder, archive_dir / name)
        except OSError as error:
            shutil.rmtree(download.folder, ignore_errors=True)
            raise ArchiveError(f"cannot move --zip {download.archive}'s files into "
                               f"{archive_dir / name}: {error.strerror or error}") from None
        download.folder = archive_dir / name
    return done


def _install(staged: Path, target: Path) -> None:
    """Move the unpacked folder into place; an earlier one of that name goes only after."""
    old = None
    if target.exists():
        old = Path(tempfile.mkdtemp(prefix=".replaced-", dir=staged.parent)) / "old"
        target.rename(old)
    staged.rename(target)
    if old is not None:
        shutil.rmtree(old.parent, ignore_errors=True)
