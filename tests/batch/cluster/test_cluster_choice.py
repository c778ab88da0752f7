"""`--cluster`: what it accepts, and one line for what it does not (no traceback), through
the real command line; an unreachable scheduler is refused within the connect timeout. The
course root holds a submission of the small `vectors` bundle (`--assignments tests/bundles`):
the refusals are the engine's, not an assignment's."""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from autograder.batch.cluster.choice import (
    DASK_LOCAL,
    SCHEDULER,
    SLURM,
    ClusterChoice,
    parse_cluster,
)
from autograder.batch.cluster.executor import CONNECT_TIMEOUT
from autograder.integrations.cohorts.config import CONFIG
from tests.support.cli import one_line_error
from tests.support.vectors import BUNDLES, VECTORS, submit


@pytest.mark.parametrize(("text", "expected"), [
    ("local", None),
    ("dask-local:2", ClusterChoice(DASK_LOCAL, workers=2)),
    ("tcp://10.0.0.5:8786", ClusterChoice(SCHEDULER, address="tcp://10.0.0.5:8786")),
    ("tcp://head-node", ClusterChoice(SCHEDULER, address="tcp://head-node:8786")),
    ("tls://[::1]:9000", ClusterChoice(SCHEDULER, address="tls://[::1]:9000")),
    ("slurm", ClusterChoice(SLURM)),
])
def test_accepted_values(text, expected):
    assert parse_cluster(text) == expected


def test_dask_local_alone_uses_every_core():
    choice = parse_cluster("dask-local")
    assert choice is not None and choice.kind == DASK_LOCAL and choice.workers >= 1


@pytest.mark.parametrize("text", ["dask-local:0", "dask-local:-1", "dask-local:two", "sge",
                                  "tcp://", "tcp://host:70000", "http://host:8786"])
def test_refused_values(text):
    with pytest.raises(argparse.ArgumentTypeError):
        parse_cluster(text)


def autograde(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", "autograde", *args],
                          capture_output=True, text=True, timeout=timeout, check=False)


@pytest.mark.parametrize(("value", "says"), [
    ("dask-local:0", "at least 1"),
    ("kubernetes", "use local (default), dask-local[:N], tcp://HOST:PORT or slurm"),
    ("tcp://host:99999", "not a Dask scheduler address"),
])
def test_a_bad_value_is_one_line(value, says):
    line = one_line_error(autograde("--cluster", value))
    assert line.startswith("error: argument --cluster:") and says in line, line


@pytest.fixture
def course(tmp_path):
    root = tmp_path / "course"
    submit(root, "s1")
    return root


def grade(course: Path, *args: str) -> subprocess.CompletedProcess:
    """`autograde vectors` in ``course``, with ``args``."""
    return autograde(VECTORS.name, "--root", str(course), "--assignments", str(BUNDLES),
                     "--no-progress", *args)


@pytest.mark.slow
def test_an_unreachable_scheduler_is_one_line_within_the_timeout(course):
    with socket.socket() as closed:  # a port nobody listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    done = grade(course, "--cluster", f"tcp://127.0.0.1:{port}")
    line = one_line_error(done)
    assert (f"cannot reach the Dask scheduler at tcp://127.0.0.1:{port} within "
            f"{CONNECT_TIMEOUT:g} s") in line, line
    assert not (course / "autograded").exists() and not (course / "grades.csv").exists()


@pytest.mark.slow
def test_slurm_without_a_cluster_table_is_one_line(course):
    if "cluster" in tomllib.loads(CONFIG.read_text()):
        pytest.skip(f"{CONFIG} has a [cluster] table")
    done = grade(course, "--cluster", "slurm")
    line = one_line_error(done)
    assert f"{CONFIG} has no [cluster] table" in line, line
    assert "queue, cores, memory, walltime, jobs" in line


def test_cohort_grade_takes_the_cluster_table_from_its_config(tmp_path):
    """`cohort --config FILE grade C --cluster slurm` reads FILE's [cluster] table;
    `autograde --cluster slurm` the repository's cohorts.toml."""
    from autograder.batch.command import options_from
    from autograder.cli import build_parser

    config = tmp_path / "cohorts.toml"
    argv = ["cohort", "--config", str(config), "grade", "c1", "--cluster", "slurm"]
    assert options_from(build_parser(argv).parse_args(argv)).cluster.config == config
    argv = ["autograde", "--cluster", "slurm"]
    assert options_from(build_parser(argv).parse_args(argv)).cluster.config == CONFIG
    argv = ["autograde"]
    assert options_from(build_parser(argv).parse_args(argv)).cluster is None
