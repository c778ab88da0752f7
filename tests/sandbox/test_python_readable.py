"""A grader fault is never a student's zero: where the sandbox user cannot read Python's
installation (root, namespaces refused, Python under /root; with ``--allow-weaker-isolation``
the worker runs as the sandbox user in the machine's own file system), student code could not
import the standard library and a correct submission lost most of its points (34/100). The
grader now refuses with one line that says why and what to do, even when weaker isolation is
allowed, and writes nothing. Shown on the small `vectors` bundle, which preloads NumPy alone:
its workers load sysconfig's data themselves, so they must read it before they become the
sandbox user (they once died unheard: "end of stream")."""

from __future__ import annotations

import subprocess
import sys

import pytest

from autograder.spec import REPO
from tests.support.seccomp import NO_NAMESPACES, sandbox_user_cannot_read_python
from tests.support.skips import AS_ROOT, needs
from tests.support.vectors import BUNDLES, VECTORS, submit

pytestmark = pytest.mark.slow


@pytest.mark.skipif(not sandbox_user_cannot_read_python(),
                    reason=needs("not root, or this Python is readable by every user: nothing "
                                 "to refuse", AS_ROOT))
def test_an_unreadable_python_is_refused_even_with_weaker_isolation(tmp_path):
    root = tmp_path / "course"
    submit(root, "s1")
    done = subprocess.run(
        [sys.executable, "-c", NO_NAMESPACES, "-m", "autograder", "autograde", VECTORS.name,
         "--root", str(root), "--assignments", str(BUNDLES), "--allow-weaker-isolation",
         "--no-progress"],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "cannot read Python's installation" in line and "not under /root" in line
    assert "Traceback" not in done.stderr
    assert not (root / "grades.csv").exists() and not (root / "autograded").exists()
