"""The root's lock on a shared machine (issue 50, items 5 and 17): closed to other users, a
refusal names the holder's process and user, and a root the grader cannot write is one line."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.batch.root_lock import LOCK_FILE, RootBusy, RootUnwritable, hold
from autograder.spec import REPO
from tests.support.cli import one_line_error
from tests.support.skips import AS_ROOT
from tests.support.vectors import VECTORS, submit

OTHER_UID = 54_321  # a user of the machine who is not the TA (no account needed)
as_root = pytest.mark.skipif(os.geteuid() != 0, reason=AS_ROOT)


def held_by_flock(path: Path, *prefix: str) -> subprocess.Popen:
    """``flock(1)`` holding ``path`` (as ``prefix``'s user), once it holds it."""
    holder = subprocess.Popen([*prefix, "flock", "-n", str(path), "sleep", "30"])
    for _ in range(200):
        if holder.poll() is not None or any(
                f" {holder.pid} " in line for line in Path("/proc/locks").read_text().splitlines()):
            break
        time.sleep(0.02)
    return holder


def test_the_lock_file_is_closed_to_other_users(tmp_path: Path) -> None:
    (tmp_path / LOCK_FILE).write_text("")
    (tmp_path / LOCK_FILE).chmod(0o644)  # as an older grader left it
    with hold(tmp_path):
        assert stat.S_IMODE((tmp_path / LOCK_FILE).stat().st_mode) == 0o600
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    with hold(fresh):
        assert stat.S_IMODE((fresh / LOCK_FILE).stat().st_mode) == 0o600


@pytest.mark.skipif(shutil.which("flock") is None, reason="flock(1) not installed")
def test_a_refusal_names_the_holders_process_and_user(tmp_path: Path) -> None:
    """A holder that wrote nothing in the file (any process, not a grader) is still named."""
    (tmp_path / LOCK_FILE).write_text("")
    holder = held_by_flock(tmp_path / LOCK_FILE)
    try:
        with pytest.raises(RootBusy) as refused, hold(tmp_path):
            pass
    finally:
        holder.kill()
        holder.wait()
    import pwd

    assert f"pid {holder.pid} of user {pwd.getpwuid(os.getuid()).pw_name}" in str(refused.value)


@as_root
@pytest.mark.skipif(shutil.which("setpriv") is None, reason="setpriv(1) not installed")
def test_another_user_cannot_hold_the_root(tmp_path: Path) -> None:
    """On today's main the file was 0644, and flock needs only read access: any student
    could stop all grading."""
    tmp_path.chmod(0o755)  # even where the folder is open, the lock file is not
    with hold(tmp_path):
        pass
    student = ["setpriv", f"--reuid={OTHER_UID}", f"--regid={OTHER_UID}", "--clear-groups"]
    tried = subprocess.run([*student, "flock", "-n", str(tmp_path / LOCK_FILE), "true"],
                           capture_output=True, text=True, check=False)
    assert tried.returncode != 0, "another user could lock the root"
    with hold(tmp_path):  # and the TA still can
        pass


@as_root
@pytest.mark.skipif(shutil.which("unshare") is None, reason="unshare(1) not installed")
def test_a_read_only_root_is_one_line(tmp_path: Path) -> None:
    """The root mounted read-only (item 17): one line naming the lock and why, exit 2, no
    traceback; nothing graded."""
    root = tmp_path / "root"
    root.mkdir()
    submit(root, "s1")
    script = (f"mount --bind -o ro {root} {root} && exec {sys.executable} -m autograder "
              f"autograde {VECTORS.name} --root {root} --assignments {VECTORS.root.parent} "
              "--no-progress")
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
                          capture_output=True, text=True, check=False, timeout=120)
    line = one_line_error(done)
    assert "Read-only file system" in line and LOCK_FILE in line, line
    assert not (root / "autograded").exists()


def test_unwritable_is_a_busy_root_to_every_command() -> None:
    """Every command that refuses a busy root in one line refuses an unwritable one too."""
    assert issubclass(RootUnwritable, RootBusy)


@as_root
@pytest.mark.skipif(shutil.which("unshare") is None, reason="unshare(1) not installed")
def test_what_the_security_model_mounts_read_only_is_only_read(tmp_path: Path) -> None:
    """docs/security-model.md's hardening: source/, release/ and submitted/ read-only, the
    rest of the root writable; a grading run then grades, and writes nothing there."""
    root = tmp_path / "root"
    root.mkdir()
    submit(root, "s1")
    for folder in ("source", "release"):
        (root / folder).mkdir()
    binds = " && ".join(f"mount --bind -o ro {root / folder} {root / folder}"
                        for folder in ("source", "release", "submitted"))
    script = (f"{binds} && exec {sys.executable} -m autograder autograde {VECTORS.name} "
              f"--root {root} --assignments {VECTORS.root.parent} --no-progress")
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
                          capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (root / "autograded" / "s1" / VECTORS.name / "results.json").is_file()
    assert "Traceback" not in done.stderr


def test_the_repositorys_gitignore_names_the_lock_file() -> None:
    """A root graded inside the checkout leaves its lock file out of git (the name changed)."""
    ignored = (REPO / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert LOCK_FILE in ignored
