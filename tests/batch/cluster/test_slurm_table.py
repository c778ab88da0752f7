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
    JOB_RETRIES,
    NO_REQUEUE,
    PENDING_TIMEOUT,
    job_script,
    load_slurm_spec,
    log_folder,
    refusal,
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
    ("pending_timeout", "0", "seconds, more than 0"),
    ("pending_timeout", '"10m"', "seconds, more than 0"),
    ("job_retries", "-1", "at least 0"),
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


def test_lost_jobs_are_replaced_by_the_grader_not_requeued_by_slurm(tmp_path):
    """Slurm would rerun a lost job under the same id, which Dask may already have given up
    on: the grader replaces it itself (``job_retries``) and says so."""
    config = tmp_path / "cohorts.toml"
    config.write_text(TABLE)
    spec = load_slurm_spec(config)
    assert (spec.pending_timeout, spec.job_retries) == (PENDING_TIMEOUT, JOB_RETRIES)
    assert f"#SBATCH {NO_REQUEUE}" in job_script(spec)
    config.write_text(TABLE + 'job_extra_directives = ["--requeue"]\npending_timeout = 30\n')
    spec = load_slurm_spec(config)
    assert spec.pending_timeout == 30 and NO_REQUEUE not in job_script(spec)


def test_job_logs_go_to_the_course_root(tmp_path):
    config = tmp_path / "cohorts.toml"
    config.write_text(TABLE)
    spec = load_slurm_spec(config)
    root = tmp_path / "course"
    assert log_folder(spec, root) == str(root / "slurm-logs")
    config.write_text(TABLE + 'log_directory = "logs/slurm"\n')
    assert log_folder(load_slurm_spec(config), root) == str(root / "logs" / "slurm")
    config.write_text(TABLE + 'log_directory = "/scratch/dl/logs"\n')
    assert log_folder(load_slurm_spec(config), root) == "/scratch/dl/logs"


def test_an_interface_this_machine_lacks_is_named(tmp_path):
    config = tmp_path / "cohorts.toml"
    config.write_text(TABLE + 'interface = "ib7"\n')
    with pytest.raises(ClusterError, match=r"interface = 'ib7', which this machine does not "
                                           r"have \(it has .*lo"):
        job_script(load_slurm_spec(config))


def test_a_missing_cohorts_file_points_at_config(tmp_path):
    with pytest.raises(ClusterError, match="no cohorts file at .*: pass .* with --config FILE"):
        load_slurm_spec(tmp_path / "nowhere.toml")


@pytest.mark.parametrize(("said", "says"), [
    ("allocation failure: Unable to contact slurm controller (connect failure)",
     "the Slurm controller (slurmctld) is unreachable"),
    ("allocation failure: Invalid partition name specified",
     "Slurm refuses the partition queue = 'cpu-short'"),
    ("allocation failure: Invalid account or account/partition combination specified",
     "Slurm refuses the account 'dl-course'"),
    ("allocation failure: Requested node configuration is not available",
     "Slurm has no node for a job of 8 cores and 24GB"),
])
def test_slurms_refusal_names_what_to_change(tmp_path, said, says):
    """Slurm's own words (seen from sbatch 22.05), turned into the key to change."""
    config = tmp_path / "cohorts.toml"
    config.write_text(TABLE)
    line = str(refusal(load_slurm_spec(config), said))
    assert says in line and said in line and "\n" not in line, line
