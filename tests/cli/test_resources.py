"""A machine that will not let a command write the root's files (issue 51, item 11): a full
disk, an immutable file, a folder that cannot be written. Each is one line naming the file and
the fix, and a non-zero exit (``autograder.cli``), never a traceback; a copy of the grades
that could not be rewritten (publish's "NOT rewritten") fails the command, never exit 0.

Real mounts and attributes: a small tmpfs in a mount namespace of the test's own (``unshare``,
as root), ``chattr +i`` (root, on a file system that has it: permissions alone do not stop
root). Each skips, saying why, where the machine does not allow it."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.skips import AS_ROOT
from tests.support.vectors import BUNDLES, VECTORS, submit

pytestmark = pytest.mark.slow
GRADE = ("autograde", VECTORS.name, "--no-progress", "--assignments", str(BUNDLES))


def _grader(root: Path, *args: str, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    return subprocess.run([*prefix, sys.executable, "-m", "autograder", *args, "--root",
                           str(root)], capture_output=True, text=True, timeout=300, check=False)


def _one_error(done: subprocess.CompletedProcess) -> str:
    """The single line on stderr, of a command that failed (exit 1), with no traceback."""
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def _new_root(root: Path, students: int = 3) -> Path:
    for n in range(students):
        submit(root, f"s{n}")
    root.chmod(0o700)  # closed: no warning line about other users
    return root


def _half_written(root: Path) -> list[Path]:
    """Temporary files of an atomic write left behind (``.<name>.<random>``)."""
    return [path for path in root.rglob(".*") if path.is_file()
            and not path.name.startswith(".autograder") and not path.name.startswith(".nbgrader")]


# ---------------------------------------------------------------- a full disk


def _mount_allowed(where: Path) -> str:
    """"" when this process may mount a tmpfs in a mount namespace of its own; else why not."""
    if os.geteuid() != 0:
        return AS_ROOT
    if shutil.which("unshare") is None:
        return "unshare(1) not installed"
    where.mkdir()
    tried = subprocess.run(["unshare", "--mount", "--propagation", "private", "mount", "-t",
                            "tmpfs", "-o", "size=1m", "tmpfs", str(where)],
                           capture_output=True, text=True, check=False)
    return "" if tried.returncode == 0 else f"mounting a tmpfs is not permitted here: " \
        f"{tried.stderr.strip()}"


@pytest.mark.parametrize("free_kb", [0, 100], ids=["full", "full-while-grading"])
def test_a_full_disk_is_one_line_naming_the_file_and_the_fix(tmp_path: Path, free_kb: int
                                                             ) -> None:
    """The root on a 4 MiB tmpfs filled up to ``free_kb`` KiB: full before the command starts,
    or filling up while it grades (100 KiB: the first results fit, the rest do not)."""
    why = _mount_allowed(tmp_path / "probe")
    if why:
        pytest.skip(why)
    made = _new_root(tmp_path / "made")
    disk = tmp_path / "disk"
    disk.mkdir()
    root = disk / "root"
    q = shlex.quote
    grade = " ".join(map(q, [sys.executable, "-m", "autograder", *GRADE, "--root", str(root)]))
    # The grader's output goes to files outside the tmpfs (which ends with the namespace).
    script = (f"mount -t tmpfs -o size=4m tmpfs {q(str(disk))} && cp -a {q(str(made))} "
              f"{q(str(root))} && avail=$(df -k --output=avail {q(str(disk))} | tail -1) && "
              f"(head -c $((avail - {free_kb}))k /dev/zero > {q(str(disk / 'filler'))} "
              f"2>/dev/null; true) && {grade} 2>{q(str(tmp_path / 'stderr'))}; "
              f"echo $? > {q(str(tmp_path / 'code'))}")
    subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
                   capture_output=True, text=True, timeout=300, check=False)
    stderr = (tmp_path / "stderr").read_text()
    done = subprocess.CompletedProcess([], int((tmp_path / "code").read_text()), "", stderr)
    line = _one_error(done)
    # The file, or the root where the kernel names none (the lock file's holder line).
    named = re.fullmatch(r"error: no space left on the device of (the course root )?(\S+): "
                         r"free space, then run the same command again", line)
    assert named, line
    assert named.group(2).startswith(str(root)), line


# ---------------------------------------------------------------- immutable files and folders


@contextmanager
def _immutable(path: Path) -> Iterator[None]:
    """``path`` immutable (``chattr +i``) while the block runs; skips where it cannot be."""
    if os.geteuid() != 0:
        pytest.skip(AS_ROOT)
    if shutil.which("chattr") is None:
        pytest.skip("chattr(1) not installed")
    made = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True,
                          check=False)
    if made.returncode != 0:
        pytest.skip(f"this file system has no immutable files: {made.stderr.strip()}")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


@pytest.fixture(scope="module")
def graded_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A root of three graded students with an instructor's report."""
    root = _new_root(tmp_path_factory.mktemp("graded") / "root")
    for args in (GRADE, ("report",)):
        done = _grader(root, *args)
        assert done.returncode == 0, done.stderr
    assert (root / "report" / "report.html").is_file()
    return root


@pytest.fixture
def root(graded_root: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "root"
    shutil.copytree(graded_root, copy, symlinks=True)
    return copy


def test_an_immutable_grades_csv_is_one_line_from_autograde_and_review_set(root: Path) -> None:
    grades = root / "grades.csv"
    before = grades.read_text()
    with _immutable(grades):
        graded = _grader(root, *GRADE, "--force")
        decided = _grader(root, "review", "set", "s1", "normalize", "1", "--note", "checked")
    for done in (graded, decided):
        line = _one_error(done)
        assert line.startswith(f"error: operation not permitted on {grades}: "), line
        assert "chattr -i" in line and line.endswith("then run the same command again"), line
    assert grades.read_text() == before
    assert not _half_written(root)


def test_a_report_folder_that_cannot_be_written_is_one_line_and_changes_nothing(root: Path
                                                                              ) -> None:
    """A decision changes the grades; the report's folder is immutable: one line naming the
    report's file, exit 1, and the decision is not half-made (the root's change is rolled
    back: decisions.json and grades.csv as they were)."""
    before = {name: (root / name).read_bytes() for name in ("grades.csv",)}
    with _immutable(root / "report"):
        done = _grader(root, "review", "set", "s2", "normalize", "1", "--note", "checked")
    line = _one_error(done)
    assert line.startswith(f"error: operation not permitted on {root / 'report'}/"), line
    assert {name: (root / name).read_bytes() for name in before} == before
    assert not _half_written(root)


def test_a_copy_that_could_not_be_rewritten_fails_the_command(root: Path) -> None:
    """A Canvas file an earlier version wrote (its settings not kept in course.json) cannot be
    rewritten after a decision: the command says "NOT rewritten" (its line, as before) and
    exits 1, not 0."""
    (root / "canvas-grades.csv").write_text("Student,ID\n", encoding="utf-8")
    done = _grader(root, "review", "set", "s2", "normalize", "1", "--note", "checked")
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "NOT rewritten: canvas-grades.csv" in done.stdout, done.stdout
    assert "Traceback" not in done.stderr
