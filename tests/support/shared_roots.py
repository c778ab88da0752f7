"""Course roots made once per test run and shared: a root that takes a grading run to make
is made by the first test that asks for it, and every other test reads it or works on a copy.

``made_once`` makes a folder once per run, whichever of the run's processes asks first (with
pytest-xdist, each worker is a process of its own: the others wait for the first one and then
read what it made); ``copy_of`` gives a test a root of its own to change. A copy of a graded
root is a graded root: results are read back by their contents (a plain ``autograde`` there
grades nothing again), and nothing in a root names the folder it is in.
"""

from __future__ import annotations

import fcntl
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

DONE = "made"  # beside what was made: the folder is complete


def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The temporary folder of the whole run: with pytest-xdist, the one that holds each
    worker's own (``popen-gw0``, ``popen-gw1``); without it, the session's."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if base.name.startswith("popen-gw") else base


def made_once(tmp_path_factory: pytest.TempPathFactory, name: str,
              make: Callable[[Path], None]) -> Path:
    """``<run folder>/<name>/root``, which ``make(root)`` filled: the first process to ask
    makes it, under a lock the others wait on; an attempt that failed is made again by the
    next one to ask (and fails its own test the same way)."""
    folder = run_folder(tmp_path_factory) / name
    folder.mkdir(exist_ok=True)
    root = folder / "root"
    with (folder / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        if not (folder / DONE).exists():
            shutil.rmtree(root, ignore_errors=True)
            root.mkdir()
            make(root)
            (folder / DONE).touch()
    return root


def copy_of(root: Path, target: Path) -> Path:
    """A root of the test's own, the same as ``root`` (links kept as links)."""
    shutil.copytree(root, target, symlinks=True)
    return target
