"""Fixtures of the cluster tests (helpers in ``tests/support/dask_cluster.py``)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.dask_cluster import DaskProcesses


@pytest.fixture
def dask_processes(tmp_path: Path) -> Iterator[DaskProcesses]:
    workdir = tmp_path / "dask"
    workdir.mkdir()
    processes = DaskProcesses(workdir)
    yield processes
    processes.stop_all()


@pytest.fixture
def course_copy():
    """``course_copy(root, copies)``: the same submissions (byte for byte) in more roots."""

    def copy(root: Path, *targets: Path) -> None:
        for target in targets:
            shutil.copytree(root / "submitted", target / "submitted", symlinks=True)

    return copy
