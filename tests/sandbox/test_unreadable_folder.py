"""Issue 25, item 8: the grader run as another user from a folder that user cannot enter
(``sudo -u ta`` or ``setpriv`` from root's 0700 home, where root's Python lives) ended in a
``PermissionError`` traceback halfway through (pytest, which collects the checks, changes back
to that folder). It is now one line and exit 2, before anything is started or written.

Run as root through the real command line, as ``nobody`` (``test_unprivileged`` does the
same for a whole batch)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import pytest

from autograder.spec import REPO
from tests.support.skips import AS_ROOT, needs
from tests.support.vectors import BUNDLES, VECTORS, submit

pytestmark = pytest.mark.slow
NOBODY = 65534
SYSTEM_PYTHON = Path(f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}")


def test_a_current_folder_the_user_cannot_enter_is_one_line_and_exit_2():
    if os.geteuid() != 0 or not SYSTEM_PYTHON.exists() or not shutil.which("setpriv"):
        pytest.skip(needs(f"needs root to become nobody, setpriv and {SYSTEM_PYTHON}", AS_ROOT))
    purelib = Path(sysconfig.get_paths()["purelib"])
    if any(not q.stat().st_mode & 0o001 for p in (REPO, purelib) for q in (p, *p.parents)):
        pytest.skip(needs("this checkout or its environment is not readable by other users",
                          "make them readable: chmod o+rx on each folder above them"))
    base = Path(tempfile.mkdtemp(prefix="h2-unreadable-cwd-"))
    try:
        base.chmod(0o755)
        home = base / "home"  # a 0700 home of another user (root), as /root is
        home.mkdir(mode=0o700)
        root = base / "course"
        submit(root, "s1")
        for path in [root, *root.rglob("*")]:
            os.chown(path, NOBODY, NOBODY)
        root.chmod(0o700)  # closed, as a course root is (an open one adds a warning line)
        before = sorted(str(p.relative_to(root)) for p in root.rglob("*"))
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "MPLBACKEND": "Agg",
               "PYTHONPATH": os.pathsep.join([str(REPO), str(purelib)])}
        done = subprocess.run(
            ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
             str(SYSTEM_PYTHON), "-m", "autograder", "autograde", VECTORS.name,
             "--assignments", str(BUNDLES), "--root", str(root), "--no-progress"],
            env=env, cwd=home, capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 2, done.stdout + done.stderr[-3000:]
        (line,) = done.stderr.strip().splitlines()
        assert line.startswith("error: ") and "Traceback" not in done.stderr
        assert f"cannot enter the current folder {home}" in line and "cd to the course root" in line
        assert sorted(str(p.relative_to(root)) for p in root.rglob("*")) == before  # nothing written
    finally:
        shutil.rmtree(base, ignore_errors=True)
