"""Hostile LMS downloads (issue 25, item 7): `cohort collect --zip` unpacks within limits.

nbgrader's ``zip_collect`` on its own unpacks every archive in a download, and every
archive inside those, with no limit. Each case here is a download a dishonest (or
careless) student's upload makes, through the real ``cohort collect`` command and the
real ``nbgrader zip_collect``: a nested zip bomb, a student's own zip, names that escape
the folder, a symbolic link, headers that lie. Each is refused with one line (exit 2)
that names the download and the limit, and leaves the course root as it was; or, for a
student's own zip, collected without it and the zip named. An honest download still
collects as before.
"""

from __future__ import annotations

import io
import os
import stat
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder.batch.root_lock import LOCK_FILE
from autograder.integrations.cohorts import archives, workflow
from autograder.integrations.cohorts.archives import ArchiveError, ArchiveLimits
from autograder.integrations.cohorts.config import CohortConfigError, get_cohort
from autograder.spec import REPO
from tests.support.cli import one_line_error
from tests.support.h2 import SPEC

ASSIGNMENT = SPEC.name
NOTEBOOK = f"{ASSIGNMENT}.ipynb"
EVIDENCE = SPEC.evidence_file
REGEXP = r".*/(?P<student_id>[A-Za-z0-9.@-]+)__(?P<file_id>[^/]+)$"
NOTEBOOK_TEXT = b'{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n'


# ------------------------------------------------------------------ building downloads


def zip_bytes(members: list[tuple[str, bytes]], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, data in members:
            archive.writestr(zipfile.ZipInfo(name, (2026, 12, 1, 12, 0, 0)), data,
                             compress_type=method)
    return buffer.getvalue()


def honest(*students: str) -> list[tuple[str, bytes]]:
    """What an LMS download of these students holds: <student>__<file>."""
    return [member for student in students for member in (
        (f"{student}__{NOTEBOOK}", NOTEBOOK_TEXT.replace(b"{}", f'{{"s": "{student}"}}'.encode())),
        (f"{student}__{EVIDENCE}", f'{{"student": "{student}"}}\n'.encode()),
    )]


def nested_bomb(levels: int = 3, copies: int = 40, payload: int = 20 * archives.MB) -> bytes:
    """A zip of zeros, zipped ``copies`` times in each of ``levels`` layers: a few tens of KB
    that unpack recursively to copies ** (levels - 1) * payload bytes (64 GB by default)."""
    inner = zip_bytes([("zeros.bin", bytes(payload))])
    for level in range(levels - 1):
        inner = zip_bytes([(f"layer{level}-{i}.zip", inner) for i in range(copies)])
    return inner


def write_zip(path: Path, members: list[tuple[str, bytes]]) -> Path:
    path.write_bytes(zip_bytes(members))
    return path


def with_symlink(path: Path, name: str, target: str) -> Path:
    """A download holding a symbolic link (as `zip --symlinks` stores one)."""
    with zipfile.ZipFile(path, "w") as archive:
        for member, data in honest("s001"):
            archive.writestr(member, data)
        link = zipfile.ZipInfo(name)
        link.create_system = 3
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, target)
    return path


def lying_sizes(path: Path, members: list[tuple[str, bytes]]) -> Path:
    """A download whose central directory declares each file 100 bytes long, whatever it
    holds (a forged header: the data is larger)."""
    data = bytearray(zip_bytes(members))
    start = 0
    while (start := data.find(b"PK\x01\x02", start)) != -1:
        struct.pack_into("<I", data, start + 24, 100)  # uncompressed size
        start += 4
    path.write_bytes(bytes(data))
    return path


# ------------------------------------------------------------------ a released cohort


def write_config(tmp: Path, extra: str = "") -> Path:
    path = tmp / "cohorts.toml"
    path.write_text(f"""
[defaults]
courses_root = "{tmp / 'courses'}"
exchange = "{tmp / 'exchange'}"
lms_filename_regexp = '{REGEXP}'
{extra}
[cohorts.fall-a]
due = "2030-01-01 00:00:00 UTC"
""")
    return path


def fake_release(config: Path) -> workflow.Cohort:
    """What `cohort release` leaves (course root, its nbgrader_config.py, release/, the
    exchange's folders), without generating the assignment: zip_collect needs no more."""
    cohort = get_cohort("fall-a", config)
    workflow.prepare_root(cohort)
    (cohort.root / "release" / ASSIGNMENT).mkdir(parents=True)
    for box in ("outbound", "inbound"):
        (cohort.exchange / cohort.course_id / box).mkdir(parents=True)
    return cohort


def cohort_cli(config: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "autograder", "cohort", "--config", str(config), *args],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
    )


def tree(root: Path) -> dict[str, bytes | None]:
    """Every path under root with its content (None for a folder), but the root's lock file:
    the first command that holds the root makes it, and it stays (a lock file deleted while a
    command waits on it would let two commands hold the root)."""
    return {str(p.relative_to(root)): (None if p.is_dir() else p.read_bytes())
            for p in sorted(root.rglob("*")) if p.name != LOCK_FILE}


def submitted(cohort: workflow.Cohort) -> dict[str, list[str]]:
    folder = cohort.root / "submitted"
    return {s.name: sorted(f.name for f in (s / ASSIGNMENT).iterdir())
            for s in sorted(folder.iterdir())} if folder.is_dir() else {}


@pytest.fixture
def released(tmp_path):
    config = write_config(tmp_path)
    return config, fake_release(config)


def refused(config: Path, cohort: workflow.Cohort, download: Path) -> str:
    """The one line `cohort collect --zip` refuses the download with; the course root is
    left exactly as it was (nothing half-unpacked, no temporary folder)."""
    before = tree(cohort.root)
    line = one_line_error(cohort_cli(config, "collect", "fall-a", "--zip", str(download)))
    assert line.startswith(f"error: --zip {download} refused: "), line
    assert tree(cohort.root) == before
    return line


# ------------------------------------------------------------------ hostile downloads


@pytest.mark.slow
def test_a_nested_zip_bomb_is_refused_with_one_line(released, tmp_path):
    config, cohort = released
    bomb = nested_bomb()
    assert len(bomb) < 200_000  # small on disk; recursively 40 * 40 * 20 MB = 32 GB
    download = write_zip(tmp_path / "download.zip",
                         [*honest("s001"), ("s002__my_work.zip", bomb), *honest("s002")])
    line = refused(config, cohort, download)
    assert "'s002__my_work.zip' inside it holds another archive" in line
    assert "never unpacked" in line and "remove 's002__my_work.zip'" in line
    assert not (cohort.root / "downloaded").exists()


@pytest.mark.slow
def test_a_students_own_zip_is_not_unpacked(released, tmp_path):
    """s002 uploaded a zip holding a notebook named for another student: nbgrader on its own
    would unpack it and collect `s003`. It is left out, named, and nothing of it reaches
    submitted/; the honest files of the same download are collected."""
    config, cohort = released
    own = zip_bytes([(f"s003__{NOTEBOOK}", NOTEBOOK_TEXT), ("notes.txt", b"mine")])
    download = write_zip(tmp_path / "download.zip",
                         [*honest("s001", "s002"), ("s002__backup.zip", own),
                          ("s002__more.tar.gz", b"\x1f\x8b not really")])
    done = cohort_cli(config, "collect", "fall-a", "--zip", str(download))
    assert done.returncode == 0, done.stderr
    assert submitted(cohort) == {"s001": [EVIDENCE, NOTEBOOK], "s002": [EVIDENCE, NOTEBOOK]}
    assert ("left out of download.zip, not unpacked (an archive inside an LMS download never "
            "is; ask its student for the files themselves): s002__backup.zip, "
            "s002__more.tar.gz") in done.stdout.splitlines()
    everything = [p.name for p in cohort.root.rglob("*")]
    assert "s002__backup.zip" not in everything and f"s003__{NOTEBOOK}" not in everything


@pytest.mark.parametrize("name", [f"../s001__{NOTEBOOK}", f"/tmp/s001__{NOTEBOOK}",
                                  f"s001/../../s001__{NOTEBOOK}", f"..\\s001__{NOTEBOOK}"])
@pytest.mark.slow
def test_a_name_that_escapes_is_refused(released, tmp_path, name):
    config, cohort = released
    download = write_zip(tmp_path / "download.zip", [*honest("s002"), (name, NOTEBOOK_TEXT)])
    line = refused(config, cohort, download)
    assert f"{name!r} would be written outside the folder" in line
    assert not (tmp_path / f"s001__{NOTEBOOK}").exists()
    assert not (cohort.root / "downloaded").exists()


@pytest.mark.slow
def test_a_symbolic_link_is_refused(released, tmp_path):
    config, cohort = released
    download = with_symlink(tmp_path / "download.zip", f"s002__{NOTEBOOK}", "/etc/shadow")
    line = refused(config, cohort, download)
    assert f"'s002__{NOTEBOOK}' is a symbolic link" in line


@pytest.mark.slow
def test_headers_that_lie_are_caught_while_unpacking(released, tmp_path):
    """The central directory says 100 bytes a file, so the header checks pass; the bytes
    read while unpacking do not match, and the half-unpacked folder is removed."""
    config, cohort = released
    download = lying_sizes(tmp_path / "download.zip",
                           [*honest("s001"), (f"s002__{NOTEBOOK}", bytes(5 * archives.MB))])
    archives.check(download, ArchiveLimits())  # the headers alone look harmless
    line = refused(config, cohort, download)
    assert "damaged or cannot be unpacked" in line and "download it again" in line
    assert not (cohort.root / "downloaded").exists()


@pytest.mark.slow
def test_limits_come_from_cohorts_toml(tmp_path):
    config = write_config(tmp_path, "zip_max_files = 3\nzip_max_megabytes = 0.5\n")
    cohort = fake_release(config)
    assert cohort.archive_limits == ArchiveLimits(max_bytes=500_000, max_files=3)
    download = write_zip(tmp_path / "download.zip", honest("s001", "s002"))
    line = refused(config, cohort, download)
    assert "it holds 4 entries (limit 3)" in line and "raise zip_max_files in cohorts.toml" in line


@pytest.mark.parametrize("value", ["0", "-5", '"lots"', "true", "nan", "inf"])
def test_a_limit_that_is_not_a_positive_number_is_refused(tmp_path, value):
    config = write_config(tmp_path, f"zip_max_ratio = {value}\n")
    with pytest.raises(CohortConfigError, match="zip_max_ratio = .* is not a finite number"):
        get_cohort("fall-a", config)


# ------------------------------------------------------------------ honest downloads


@pytest.mark.slow
def test_an_honest_download_collects_as_before(released, tmp_path):
    """Files land in submitted/<student>/<assignment>/ byte for byte (a folder per student in
    the zip, as Moodle makes them, too); a second download of the same name replaces the
    first's unpacked copy, and nbgrader's own folders hold no archive."""
    config, cohort = released
    members = [*honest("s001"), *[(f"Moodle folder/{n}", d) for n, d in honest("s002")]]
    download = write_zip(tmp_path / "download.zip", members)
    done = cohort_cli(config, "collect", "fall-a", "--zip", str(download))
    assert done.returncode == 0, done.stderr
    assert "collected 1 LMS download(s)" in done.stdout and "left out" not in done.stdout
    assert submitted(cohort) == {"s001": [EVIDENCE, NOTEBOOK], "s002": [EVIDENCE, NOTEBOOK]}
    for name, data in members:
        student, file = Path(name).name.split("__")
        assert (cohort.root / "submitted" / student / ASSIGNMENT / file).read_bytes() == data

    changed = [(name, data + b" ") if name == f"s001__{NOTEBOOK}" else (name, data)
               for name, data in members]
    write_zip(download, changed)
    done = cohort_cli(config, "collect", "fall-a", "--zip", str(download))
    assert done.returncode == 0, done.stderr
    assert "2 submission(s)" in done.stdout and "1 updated" in done.stdout, done.stdout
    downloaded = cohort.root / "downloaded" / ASSIGNMENT
    assert sorted(p.name for p in downloaded.iterdir()) == ["archive", "extracted"]
    assert [p.name for p in (downloaded / "archive").iterdir()] == ["download"]
    assert not [p for p in downloaded.rglob("*.zip")]


# ------------------------------------------------------------------ the checks alone


LIMITS = ArchiveLimits()


@pytest.mark.parametrize("members, refusal", [
    ([("s001__big.ipynb", bytes(150 * archives.MB))], "'s001__big.ipynb' expands 1,0"),
    ([(f"s001__{i}.ipynb", bytes(archives.MB)) for i in range(201)],
     "it would unpack to 201.0 MB (limit 200.0 MB)"),
    ([(f"s001__{i}.json", b"{}") for i in range(5_001)], "it holds 5,001 entries (limit 5,000)"),
    ([(f"s001__{i}.txt", b"a" * (archives.MB // 2)) for i in range(4)],
     "times as a whole"),  # small members (none held to the ratio), a bomb as a whole
    ([("s001__once.zip", zip_bytes([("zeros", bytes(150 * archives.MB))]))],
     "'zeros' in 's001__once.zip' inside it expands"),  # a zip inside is held to the limits too
    ([("a.ipynb", b"1"), ("a.ipynb", b"2")], "it holds 'a.ipynb' twice"),
])
@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_check_refuses_by_the_headers_alone(tmp_path, members, refusal):
    download = write_zip(tmp_path / "d.zip", members)
    with pytest.raises(ArchiveError, match=r"^--zip .* refused: ") as refused_by:
        archives.check(download, LIMITS)
    assert refusal in str(refused_by.value)
    assert "\n" not in str(refused_by.value)


def test_unpack_is_all_or_none(tmp_path):
    """Two downloads, the second refused: the first is not installed, no folder is left."""
    good = write_zip(tmp_path / "good.zip", honest("s001"))
    bad = lying_sizes(tmp_path / "bad.zip", [(f"s002__{NOTEBOOK}", bytes(archives.MB))])
    course = tmp_path / "course"
    course.mkdir()
    with pytest.raises(ArchiveError, match="bad.zip refused: it is damaged"):
        archives.unpack([good, bad], course / "downloaded" / "a" / "archive", LIMITS)
    assert list(course.iterdir()) == []
    done = archives.unpack([good], course / "downloaded" / "a" / "archive", LIMITS)
    assert [d.folder for d in done] == [course / "downloaded" / "a" / "archive" / "good"]
    assert sorted(os.listdir(done[0].folder)) == [f"s001__{EVIDENCE}", f"s001__{NOTEBOOK}"]
    assert sorted(os.listdir(course / "downloaded" / "a")) == ["archive"]


def test_a_damaged_zip_inside_is_left_out_not_read(tmp_path):
    """A student's truncated zip cannot be read by its headers; it is never unpacked either,
    so it is left out (and named) while the rest of the download is unpacked."""
    truncated = zip_bytes([(f"s003__{NOTEBOOK}", NOTEBOOK_TEXT)])
    truncated = truncated[:20] + truncated[-22:]  # an end record pointing at nothing
    download = write_zip(tmp_path / "d.zip", [*honest("s001"), ("s001__old.zip", truncated)])
    archives.check(download, LIMITS)
    done = archives.unpack([download], tmp_path / "archive", LIMITS)
    assert done[0].left_out == ["s001__old.zip"]
    assert sorted(os.listdir(tmp_path / "archive" / "d")) == [f"s001__{EVIDENCE}",
                                                             f"s001__{NOTEBOOK}"]


# ------------------------------------------------------------------ files zip_collect skips


def misnamed(student: str = "s002") -> list[tuple[str, bytes]]:
    """Files a download holds that zip_collect does not take: nbgrader skips them with a log
    line nobody reads (issue 27)."""
    return [(f"{student} {NOTEBOOK}", NOTEBOOK_TEXT),  # a space, not two underscores
            (f"{student}_{EVIDENCE}", b"{}\n"),  # one underscore
            ("readme.txt", b"from the LMS\n"),
            (f"{student}__notes.txt", b"mine\n"),
            (f"__MACOSX/._{student}__{NOTEBOOK}", b"\0\5\x16\7")]


def test_the_files_zip_collect_skips_are_named_with_why(tmp_path):
    download = write_zip(tmp_path / "d.zip", [*honest("s001"), *misnamed()])
    done = archives.unpack([download], tmp_path / "downloaded" / "a" / "archive", LIMITS)
    skipped = {s.name: s.why for s in archives.not_collected(done[0], REGEXP)}
    assert sorted(skipped) == sorted(name for name, _ in misnamed())
    assert "lms_filename_regexp" in skipped[f"s002 {NOTEBOOK}"]
    assert "not a notebook or JSON file" in skipped["readme.txt"]
    lines = archives.skipped_lines(done, REGEXP)
    assert len(lines) == 2 and all(line.startswith("not collected from d.zip, ") for line in lines)
    assert "3 file(s)" in lines[0] and f"s002 {NOTEBOOK}" in lines[0]


def test_many_skipped_files_are_counted_past_the_first_few(tmp_path):
    many = [(f"file{i:03d}.txt", b"x") for i in range(25)]
    download = write_zip(tmp_path / "d.zip", [*honest("s001"), *many])
    done = archives.unpack([download], tmp_path / "downloaded" / "a" / "archive", LIMITS)
    [line] = archives.skipped_lines(done, REGEXP)
    assert "25 file(s)" in line and "file009.txt, and 15 more" in line
    assert "file010.txt" not in line


@pytest.mark.slow
def test_cohort_collect_names_the_files_it_did_not_collect(released, tmp_path):
    """The real `cohort collect --zip` and `nbgrader zip_collect`: every file it lists is
    missing from submitted/, every other file of the download is there."""
    config, cohort = released
    download = write_zip(tmp_path / "moodle.zip", [*honest("s001"), *misnamed()])
    done = cohort_cli(config, "collect", "fall-a", "--zip", str(download))
    assert done.returncode == 0, done.stderr
    assert submitted(cohort) == {"s001": [EVIDENCE, NOTEBOOK]}
    lines = [line for line in done.stdout.splitlines()
             if line.startswith("not collected from moodle.zip, ")]
    assert len(lines) == 2, done.stdout
    for name, _ in misnamed():
        assert sum(name in line for line in lines) == 1, (name, lines)
    everything = {p.name for p in (cohort.root / "submitted").rglob("*")}
    assert not {Path(name).name for name, _ in misnamed()} & everything
