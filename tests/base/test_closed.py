"""A course root closed to the machine's other users (issue 50, item 1): made closed, named
when open (status, and one warning line from every command that works in it)."""

from __future__ import annotations

import grp
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from autograder.base import closed
from tests.support.skips import AS_ROOT
from tests.support.vectors import VECTORS, submit


@pytest.fixture
def reachable() -> Iterator[Path]:
    """A folder every user of the machine can pass through (pytest's own tmp_path is under a
    0700 folder: nothing in it is reachable by others, so nothing there is open)."""
    folder = Path(tempfile.mkdtemp(prefix="closed-test-", dir="/tmp"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_root_is_made_closed_whatever_the_umask(reachable: Path) -> None:
    previous = os.umask(0o000)
    try:
        assert closed.make_root(reachable / "course" / "fall")
    finally:
        os.umask(previous)
    assert mode(reachable / "course" / "fall") == 0o700
    assert closed.openness(reachable / "course" / "fall") == ""
    assert not closed.make_root(reachable / "course" / "fall")  # an existing root is left


@pytest.mark.skipif(os.geteuid() != 0, reason=AS_ROOT)
def test_a_team_root_is_its_groups(reachable: Path) -> None:
    team = grp.getgrgid(100 if _has_gid(100) else 0).gr_name  # any group of this machine
    root = reachable / "team"
    closed.make_root(root, team)
    assert mode(root) == 0o2770 and root.stat().st_gid == grp.getgrnam(team).gr_gid
    assert closed.team_of(root) == team and closed.openness(root) == ""
    root.chmod(0o2775)
    assert "read and enter" in closed.openness(root)


def _has_gid(gid: int) -> bool:
    try:
        grp.getgrgid(gid)
    except KeyError:
        return False
    return True


def test_an_unknown_team_group_is_refused_with_the_fix() -> None:
    with pytest.raises(closed.TeamGroupError, match="groupadd no-such-team-group"):
        closed.group_id("no-such-team-group")


def test_an_open_root_is_named_with_the_fix(reachable: Path) -> None:
    root = reachable / "root"
    root.mkdir(mode=0o755)
    root.chmod(0o755)
    line = closed.open_root_line(root)
    assert "read and enter (drwxr-xr-x)" in line and f"chmod go-rwx {root}" in line
    root.chmod(0o750)
    assert "read and enter (drwxr-x---)" in closed.open_root_line(root)  # not a team's group
    root.chmod(0o700)
    assert closed.open_root_line(root) == ""


def test_a_root_behind_a_closed_folder_is_closed(reachable: Path) -> None:
    (reachable / "home").mkdir(mode=0o700)
    (reachable / "home").chmod(0o700)
    (reachable / "home" / "root").mkdir(mode=0o777)
    assert closed.open_root_line(reachable / "home" / "root") == ""


def test_close_tree_closes_what_was_copied_open(tmp_path: Path) -> None:
    folder = tmp_path / "submitted" / "s1"
    folder.mkdir(parents=True)
    (folder / "a.ipynb").write_text("{}")
    (folder / "run.sh").write_text("")
    folder.chmod(0o777)
    (folder / "a.ipynb").chmod(0o666)
    (folder / "run.sh").chmod(0o755)
    (folder / "link").symlink_to("a.ipynb")
    closed.close_tree(tmp_path / "submitted")
    assert mode(folder) == 0o700 and mode(folder / "a.ipynb") == 0o600
    assert mode(folder / "run.sh") == 0o700


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", *args], capture_output=True,
                          text=True, check=False, cwd=cwd, timeout=300)


def test_status_and_a_writing_command_name_an_open_root(reachable: Path) -> None:
    root = reachable / "root"
    root.mkdir()
    root.chmod(0o755)
    submit(root, "s1")
    bundles = ("--assignments", str(VECTORS.root.parent))
    graded = cli("autograde", VECTORS.name, "--root", str(root), *bundles, "--no-progress",
                 cwd=reachable)
    assert graded.returncode == 0, graded.stderr
    warnings = [line for line in graded.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and f"chmod go-rwx {root}" in warnings[0], graded.stderr
    status = cli("status", "--assignment", VECTORS.name, "--root", str(root), *bundles, cwd=reachable)
    assert status.returncode == 0, status.stderr
    assert "access: OPEN: other users of this machine can read and enter" in status.stdout
    review = cli("review", "--root", str(root), "--assignment", VECTORS.name, *bundles, "list", cwd=reachable)
    warnings = [line for line in review.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and f"chmod go-rwx {root}" in warnings[0], review.stderr
    root.chmod(0o700)
    status = cli("status", "--assignment", VECTORS.name, "--root", str(root), *bundles, cwd=reachable)
    assert "access: closed to all but its owner" in status.stdout, status.stdout
    review = cli("review", "--root", str(root), "--assignment", VECTORS.name, *bundles, "list", cwd=reachable)
    assert "warning:" not in review.stderr
