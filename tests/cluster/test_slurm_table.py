"""`--cluster slurm`: the `[cluster]` table of a cohorts file becomes the job script that
dask-jobqueue would hand to `sbatch` (checked here without Slurm), and a table with a
mistake is refused with a line that names the key."""

from __future__ import annotations

import re
import tomllib

import pytest

from autograder.batch.cluster.choice import ClusterError
from autograder.batch.cluster.slurm import (
    DAEMON_OFF,
    job_script,
    load_slurm_spec,
    spec_from_table,
)
from autograder.integrations.cohorts.config import CONFIG

TABLE = """
[cohorts.dl-2026-fall-a]
due = "2026-12-14 23:59:00 UTC"

[cluster]
queue = "cpu-short"
cores = 8
memory = "24GB"
walltime = "02:30:00"
jobs = 5
account = "dl-course"
prologue = ["module load python/3.11"]
"""


def test_the_job_script_asks_slurm_for_what_the_table_says(tmp_path):
    config = tmp_path / "cohorts.toml"
    config.write_text(TABLE)
    spec = load_slurm_spec(config)
    assert (spec.queue, spec.cores, spec.jobs, spec.worker_processes) == ("cpu-short", 8, 5, 8)
    script = job_script(spec)
    directives = set(re.findall(r"^#SBATCH (.+)$", script, flags=re.M))
    assert {"-p cpu-short", "--cpus-per-task=8", "-t 02:30:00", "-A dl-course"} <= directives
    assert "--mem=23G" in directives  # 24 GB, as Slurm counts (GiB, rounded up)
    # One worker process per core, one thread each (one grading session each), not daemonic.
    assert DAEMON_OFF in script and "module load python/3.11" in script
    command = script.strip().splitlines()[-1]
    assert "--nworkers 8" in command and "--nthreads 1" in command and "--nanny" in command
    assert "distributed.cli.dask_worker" in command


def test_the_repository_cohorts_file_shows_a_valid_table():
    """cohorts.toml carries the table commented out (active, it would send jobs to Slurm)."""
    lines = CONFIG.read_text().splitlines()
    start = lines.index("# [cluster]")
    block = []
    for line in lines[start:]:
        if not line.startswith("# "):
            break
        block.append(line.removeprefix("# "))
    table = tomllib.loads("\n".join(block))["cluster"]
    assert spec_from_table(table, CONFIG).worker_processes >= 1


def test_no_table_says_how_to_add_one(tmp_path):
    config = tmp_path / "cohorts.toml"
    config.write_text(TABLE.split("[cluster]")[0])
    with pytest.raises(ClusterError, match=r"has no \[cluster\] table: add one with queue"):
        load_slurm_spec(config)


@pytest.mark.parametrize(("drop", "add", "says"), [
    ("jobs", "", "lacks jobs"),
    ("memory", "", "lacks memory"),
    ("", "nodes = 3", "has unknown keys nodes"),
])
def test_a_missing_or_unknown_key_is_named(tmp_path, drop, add, says):
    lines = [line for line in TABLE.splitlines() if not (drop and line.startswith(f"{drop} ="))]
    config = tmp_path / "cohorts.toml"
    config.write_text("\n".join([*lines, add]) + "\n")
    with pytest.raises(ClusterError, match=says):
        load_slurm_spec(config)


@pytest.mark.parametrize(("key", "value", "says"), [
    ("cores", "0", "at least 1"),
    ("memory", '"lots"', "write it as"),
    ("memory", '"4GB"', "each needs about 2 GB"),
    ("walltime", '"soon"', "write it as"),
    ("queue", "3", "a non-empty string"),
    ("prologue", '"module load x"', "a list of strings"),
])
def test_a_wrong_value_names_its_key(tmp_path, key, value, says):
    lines = [line for line in TABLE.splitlines() if not line.startswith(f"{key} =")]
    config = tmp_path / "cohorts.toml"
    config.write_text("\n".join([*lines, f"{key} = {value}"]) + "\n")
    with pytest.raises(ClusterError) as refused:
        load_slurm_spec(config)
    assert key in str(refused.value) and says in str(refused.value), refused.value


def test_without_sbatch_here_the_batch_stops_before_queueing_anything(tmp_path, monkeypatch):
    """This machine has no Slurm: `--cluster slurm` says so in one line instead of waiting
    for workers that never come."""
    from autograder.batch.cluster.slurm import check_slurm

    monkeypatch.setenv("PATH", str(tmp_path))  # no sbatch on it (nor anywhere here)
    with pytest.raises(ClusterError, match="sbatch, which is not on this machine's PATH"):
        check_slurm("#!/usr/bin/env bash\n")
