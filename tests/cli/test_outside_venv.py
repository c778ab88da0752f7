"""Run by a Python without the grader's dependencies (the system ``python3`` from the
repository root, the venv not activated), a command says so in one line, names the missing
module and how to activate the environment, and exits 2: no ``ModuleNotFoundError``
traceback (issue 27)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.cli import missing_dependency
from autograder.spec import REPO
from tests.support.h2 import SPEC
from tests.support.skips import install

VENV_BIN = Path(sys.executable).parent


def lacks_tqdm(python: str) -> bool:
    """A Python 3.11+ (the grader's own code runs on it) without the grader's dependencies."""
    done = subprocess.run([python, "-c", "import sys; assert sys.version_info >= (3, 11); "
                           "import tqdm"], capture_output=True, text=True, timeout=60, check=False)
    return done.returncode != 0 and "No module named 'tqdm'" in done.stderr


NO_SYSTEM_PYTHON = install("no python3 3.11+ without tqdm on this machine",
                           "apt-get install -y python3")


def system_python() -> list[str] | None:
    """``python3`` as a shell finds it with the venv not on PATH (``make test`` puts it first)."""
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                           if p and Path(p).resolve() != VENV_BIN.resolve())
    for found in (shutil.which("python3", path=path), "/usr/bin/python3"):
        if found and Path(found).exists() and lacks_tqdm(found):
            return [found]
    return None


def test_the_system_python3_lacks_the_dependencies_here():
    """The premise of the test below, where a system python3 exists (a CI image has one)."""
    if system_python() is None:
        pytest.skip(NO_SYSTEM_PYTHON)
    assert lacks_tqdm(system_python()[0])


@pytest.mark.parametrize("python", ["system python3", "the venv's python without site"])
def test_autograde_outside_the_venv_is_one_line_and_exit_2(tmp_path, python):
    command = system_python() if python == "system python3" else [sys.executable, "-S"]
    if command is None:
        pytest.skip(NO_SYSTEM_PYTHON)
    env = {key: value for key, value in os.environ.items()
           if key not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    done = subprocess.run([*command, "-m", "autograder", "autograde", SPEC.name,
                           "--root", str(tmp_path)],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    line = done.stderr
    assert line.startswith("error: ") and "'tqdm'" in line
    assert "source .venv/bin/activate" in line and "make setup" in line
    assert list(tmp_path.iterdir()) == []  # refused before anything touched the root


def test_a_module_of_our_own_missing_is_not_taken_for_the_environment():
    assert missing_dependency(ModuleNotFoundError("x", name="autograder.nothing")) is None
    assert missing_dependency(ModuleNotFoundError("x", name="solutions.nothing")) is None
    assert "'dask'" in (missing_dependency(ModuleNotFoundError("x", name="dask.distributed"))
                        or "")
