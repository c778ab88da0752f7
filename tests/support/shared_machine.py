"""A course on a machine its students share, with real Unix users (issue 50): what the
shared-machine tests (tests/end_to_end/test_shared_machine.py, test_shared_machine_hub.py)
have in common.

``shared_course`` makes an instructor and students as Unix users (``useradd``, homes 0755 as
Debian makes them), nbgrader's exchange (its root 1777, made by the admin), a copy of the
small ``vectors`` bundle in the instructor's folder of bundles and a ``cohorts.toml``, and
releases the assignment as the instructor; at its end the users and every file are gone.
``run_as`` runs a command as a user (``setpriv``, in a hub terminal's plain environment),
``grader`` runs the grader from the checkout as the instructor (the system Python with the
checkout's packages on PYTHONPATH, as tests/sandbox/test_unprivileged.py runs it).

``require_shared_machine`` skips a test without root, ``useradd``/``setpriv`` or the system
Python of our version, with the line that gives it; in CI (``CI`` set: root, Debian, all
three there) it fails instead.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import pytest

from autograder.assignments.exposure import SINGLE_USER
from autograder.spec import REPO
from tests.support.bundle_copies import copy_bundle
from tests.support.skips import AS_ROOT, needs
from tests.support.vectors import VECTORS
from tests.support.vectors_source import source_notebook

SYSTEM_PYTHON = Path(f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}")
PACKAGES = Path(sysconfig.get_paths()["purelib"])  # the venv's: every user's, read-only
ASSIGNMENT = VECTORS.name
NOTEBOOK = VECTORS.notebook


def missing() -> str:
    """What this machine lacks for a test with real Unix users (empty: nothing)."""
    if os.geteuid() != 0:
        return needs("needs root to make Unix users", AS_ROOT)
    for tool in ("useradd", "userdel", "setpriv", "flock"):
        if shutil.which(tool) is None:
            return needs(f"{tool} not installed", "apt-get install -y passwd util-linux")
    if not SYSTEM_PYTHON.exists():
        return needs(f"{SYSTEM_PYTHON} not installed", f"apt-get install -y {SYSTEM_PYTHON.name}")
    for path in (REPO, PACKAGES):
        if any(not folder.stat().st_mode & 0o001 for folder in (path, *path.parents)):
            return needs(f"{path} cannot be reached by other users",
                         f"chmod o+x {path} and each folder above it")
    return ""


def require(missing: str, what: str) -> None:
    """Skip with ``missing`` (the line that gives it); in CI fail instead: a skipped
    multi-user test proves nothing there (``.ci/run`` runs as root on Debian and installs
    what ``what`` needs)."""
    if missing and os.environ.get("CI"):
        pytest.fail(f"{missing}; CI must run {what} (.ci/run runs as root on Debian and "
                    "installs it)", pytrace=False)
    if missing:
        pytest.skip(missing)


def require_shared_machine(what: str = "the shared-machine tests") -> None:
    require(missing(), what)


def make_user(name: str, home: Path) -> None:
    remove_user(name)
    subprocess.run(["useradd", "--no-create-home", "--home-dir", str(home), "--shell",
                    "/bin/sh", "--user-group", name], check=True, capture_output=True)
    home.mkdir(parents=True)
    shutil.chown(home, name, name)
    home.chmod(0o755)  # Debian's useradd: homes 0755


def remove_user(name: str) -> None:
    subprocess.run(["userdel", "--force", name], capture_output=True, check=False)
    subprocess.run(["groupdel", name], capture_output=True, check=False)


def home_of(user: str) -> Path:
    return Path(pwd.getpwnam(user).pw_dir)


def run_as(user: str, *argv: str, cwd: Path, shared: bool = True, check: bool = False,
           timeout: float = 300, with_grader: bool = False) -> subprocess.CompletedProcess:
    """``argv`` as ``user`` (its groups too), in a hub terminal's plain environment; the
    grader's packages on its path with ``with_grader`` (the instructor's alone to run)."""
    entry = pwd.getpwnam(user)
    packages = [str(PACKAGES)]
    if with_grader:
        packages.insert(0, str(REPO))
    env = {"PATH": "/usr/bin:/bin", "HOME": entry.pw_dir, "USER": user, "LOGNAME": user,
           "PYTHONPATH": os.pathsep.join(packages), "MPLBACKEND": "Agg",
           "OPENBLAS_NUM_THREADS": "1"}
    if not shared:
        env[SINGLE_USER] = "1"
    done = subprocess.run(["setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}",
                           "--init-groups", *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout, check=False)
    if check:
        assert done.returncode == 0, (argv, done.stdout[-3000:], done.stderr[-3000:])
    return done


def grader(ta: str, *args: str, cwd: Path, **how) -> subprocess.CompletedProcess:
    """The grader's command line (``python -m autograder ...``) as the instructor ``ta``."""
    return run_as(ta, str(SYSTEM_PYTHON), "-m", "autograder", *args, cwd=cwd,
                  with_grader=True, **how)


def can(user: str, shell: str, cwd: Path) -> bool:
    """Whether ``user`` succeeds at ``shell`` (a test, a read, a write...)."""
    return run_as(user, "/bin/sh", "-c", shell, cwd=cwd, timeout=30).returncode == 0


@contextmanager
def shared_course(prefix: str, ta: str, students: tuple[str, ...], cohort: str,
                  course_id: str) -> Iterator[SimpleNamespace]:
    """The users, the exchange and the instructor's course, released (``lines["open
    install"]``: what the release said, the bundle open as a clone leaves it); everything
    removed at the end. Yields ``base``, ``exchange``, ``config`` (cohorts.toml),
    ``ta_home``, ``bundles``, ``root`` (the course root), ``cohort_args`` (``cohort
    --config ...``) and ``lines``."""
    base = Path(tempfile.mkdtemp(prefix=f"{prefix}-", dir="/tmp"))
    base.chmod(0o755)
    homes = base / "home"
    users = (ta, *students)
    try:
        for user in users:
            make_user(user, homes / user)
        exchange = base / "exchange"
        exchange.mkdir()
        exchange.chmod(0o1777)  # the admin's, as nbgrader's docs make it
        ta_home = homes / ta
        bundles = ta_home / "bundles"
        copy_bundle(ASSIGNMENT, bundles, ASSIGNMENT)
        (bundles / ASSIGNMENT / "source").mkdir()
        (bundles / ASSIGNMENT / "source" / NOTEBOOK).write_text(json.dumps(source_notebook()),
                                                                encoding="utf-8")
        config = ta_home / "cohorts.toml"
        config.write_text(f'[defaults]\ncourses_root = "{ta_home / "courses"}"\n'
                          f'exchange = "{exchange}"\nassignments = ["{bundles}"]\n'
                          f'assignment = "{ASSIGNMENT}"\n\n[cohorts.{cohort}]\n'
                          f'course_id = "{course_id}"\ndue = "2099-01-01 00:00:00 UTC"\n')
        subprocess.run(["chown", "-R", f"{ta}:{ta}", str(ta_home)], check=True)
        for path in [bundles, *bundles.rglob("*")]:  # as a clone leaves them: 0755/0644
            path.chmod(0o755 if path.is_dir() else 0o644)
        out = SimpleNamespace(base=base, exchange=exchange, config=config, ta_home=ta_home,
                              bundles=bundles, root=ta_home / "courses" / cohort,
                              cohort_args=("cohort", "--config", str(config)), lines={})
        released = grader(ta, *out.cohort_args, "release", cohort, cwd=ta_home)
        assert released.returncode == 0, released.stderr
        out.lines["open install"] = released.stderr
        yield out
    finally:
        for user in users:
            remove_user(user)
        shutil.rmtree(base, ignore_errors=True)
