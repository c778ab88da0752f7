"""A grading run is not shaped by the pytest settings of the environment it starts in: a TA's
shell (or a test run of the suite itself, `PYTEST_ADDOPTS=--store-durations make test`) may set
``PYTEST_ADDOPTS`` or ``PYTEST_PLUGINS`` for every pytest; the hidden checks' collection must
not read them (it once failed on an option only the suite knows, and every check of every
submission became a grader error)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from autograder.base.course import Course
from autograder.grading.runner import own_pytest_environment
from autograder.results.result import load
from autograder.spec import REPO
from tests.support.vectors import BUNDLES, VECTORS, submit

pytestmark = pytest.mark.slow

OUTSIDE = {"PYTEST_ADDOPTS": "--store-durations -p no_such_plugin -x",
           "PYTEST_PLUGINS": "no_such_plugin_module"}


def test_the_environments_pytest_settings_are_set_aside_and_restored(monkeypatch):
    for name, value in OUTSIDE.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    with own_pytest_environment():
        seen = {name: os.environ.get(name) for name in [*OUTSIDE, "PYTEST_DISABLE_PLUGIN_AUTOLOAD"]}
    assert seen == {"PYTEST_ADDOPTS": None, "PYTEST_PLUGINS": None,
                    "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    assert {name: os.environ.get(name) for name in OUTSIDE} == OUTSIDE
    assert "PYTEST_DISABLE_PLUGIN_AUTOLOAD" not in os.environ


def test_autograde_grades_whatever_pytest_options_the_shell_sets(tmp_path):
    root = tmp_path / "course"
    submit(root, "s1")
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "autograde", VECTORS.name, "--root", str(root),
         "--assignments", str(BUNDLES), "--no-progress", "--jobs", "1"],
        cwd=REPO, env={**os.environ, **OUTSIDE}, capture_output=True, text=True, timeout=300,
        check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    result = load(Course(root, VECTORS.name).autograded("s1") / "results.json")
    assert result.status == "graded" and result.score == VECTORS.total, result.reason
