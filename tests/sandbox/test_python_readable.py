"""A grader fault is never a student's zero: where the sandbox user cannot read Python's
installation (root, namespaces refused, Python under /root; with ``--allow-weaker-isolation``
the worker runs as the sandbox user in the machine's own file system), student code could not
import the standard library and a correct submission lost most of its points (34/100). The
grader now refuses with one line that says why and what to do, even when weaker isolation is
allowed, and writes nothing."""

from __future__ import annotations

import subprocess
import sys

import pytest

from autograder.bundles.h2_attention import samples as sample_cohort
from autograder.spec import REPO
from tests.support.h2 import SPEC
from tests.support.seccomp import NO_NAMESPACES, sandbox_user_cannot_read_python
from tests.support.skips import AS_ROOT, needs

pytestmark = pytest.mark.slow


@pytest.mark.skipif(not sandbox_user_cannot_read_python(),
                    reason=needs("not root, or this Python is readable by every user: nothing "
                                 "to refuse", AS_ROOT))
def test_an_unreadable_python_is_refused_even_with_weaker_isolation(tmp_path):
    (correct,) = [variant for variant in sample_cohort.VARIANTS if variant.name == "correct"]
    root = tmp_path / "course"
    sample_cohort.build_submission(root, "s1", correct, None,
                                   submitted_at=sample_cohort.on_time(0, 1))
    done = subprocess.run(
        [sys.executable, "-c", NO_NAMESPACES, "-m", "autograder", "autograde", SPEC.name,
         "--root", str(root), "--allow-weaker-isolation", "--no-progress"],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "cannot read Python's installation" in line and "not under /root" in line
    assert "Traceback" not in done.stderr
    assert not (root / "grades.csv").exists() and not (root / "autograded").exists()
