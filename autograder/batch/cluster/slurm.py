"""``--cluster slurm``: the ``[cluster]`` table of ``cohorts.toml`` as a dask-jobqueue
``SLURMCluster``.

One Slurm job asks for ``cores`` cores and ``memory`` for ``walltime`` on partition
``queue`` and runs ``processes`` Dask worker processes (one per core unless said
otherwise), each with one thread and so one grading session; ``jobs`` such jobs are
submitted. The job script makes the workers non-daemonic
(``DASK_DISTRIBUTED__WORKER__DAEMON=False``) and runs the same Python as the coordinator,
so the repository must be installed at the same path on the nodes; the submissions
themselves travel with the tasks (no shared filesystem needed for them). Before a job is
queued, ``sbatch --test-only`` must accept the script (``check_slurm``).

```toml
[cluster]
queue = "cpu"          # Slurm partition (sbatch -p)
cores = 16             # cores per job; one grading process per core
memory = "32GB"        # per job; about 2 GB per grading process
walltime = "01:00:00"  # per job (sbatch -t)
jobs = 4               # jobs submitted
# optional: processes, account, interface, job_extra_directives, prologue, python,
# local_directory, log_directory
```
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autograder.batch.cluster.choice import ClusterError

TABLE = "cluster"
WALLTIME = re.compile(r"^(\d+-)?\d{1,3}(:\d{2}){0,2}$")
MIN_MEMORY_PER_PROCESS = 1.5e9  # a grading process (torch, checks) and its sandboxed worker
DAEMON_OFF = "export DASK_DISTRIBUTED__WORKER__DAEMON=False"
REQUIRED = ("queue", "cores", "memory", "walltime", "jobs")
OPTIONAL = ("processes", "account", "interface", "job_extra_directives", "prologue",
            "python", "local_directory", "log_directory")


@dataclass(frozen=True)
class SlurmSpec:
    """The ``[cluster]`` table, checked; see the module docstring."""

    queue: str
    cores: int
    memory: str
    walltime: str
    jobs: int
    processes: int = 0  # 0: one per core
    account: str = ""
    interface: str = ""
    job_extra_directives: tuple[str, ...] = ()
    prologue: tuple[str, ...] = ()
    python: str = field(default_factory=lambda: sys.executable)
    local_directory: str = ""
    log_directory: str = ""

    @property
    def worker_processes(self) -> int:
        return self.processes or self.cores


def _problem(path: Path, text: str) -> ClusterError:
    return ClusterError(f"the [{TABLE}] table of {path} {text}")


def spec_from_table(table: object, path: Path) -> SlurmSpec:
    """A ``SlurmSpec`` from a parsed ``[cluster]`` table; ``ClusterError`` naming the key
    that is missing or wrong."""
    if not isinstance(table, dict):
        raise ClusterError(
            f"{path} has no [{TABLE}] table: add one with {', '.join(REQUIRED)} "
            "to grade with --cluster slurm (docs/cluster.md)")
    missing = [key for key in REQUIRED if key not in table]
    if missing:
        raise _problem(path, f"lacks {', '.join(missing)} (it needs {', '.join(REQUIRED)})")
    unknown = sorted(set(table) - set(REQUIRED) - set(OPTIONAL) - {"kind"})
    if unknown:
        raise _problem(path, f"has unknown keys {', '.join(unknown)} (known: "
                             f"{', '.join(REQUIRED + OPTIONAL)})")
    if table.get("kind", "slurm") != "slurm":
        raise _problem(path, f"has kind = {table['kind']!r}; only \"slurm\" is supported")
    for key in ("cores", "jobs", "processes"):
        value = table.get(key, 1)
        if type(value) is not int or value < 1:
            raise _problem(path, f"has {key} = {value!r}: a whole number of at least 1")
    for key in ("queue", "memory", "walltime", "account", "interface", "python",
                "local_directory", "log_directory"):
        if key in table and (not isinstance(table[key], str) or not table[key].strip()):
            raise _problem(path, f"has {key} = {table[key]!r}: a non-empty string")
    for key in ("job_extra_directives", "prologue"):
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise _problem(path, f"has {key} = {value!r}: a list of strings")
    from dask.utils import parse_bytes

    try:
        memory = parse_bytes(table["memory"])
    except (ValueError, TypeError):
        raise _problem(path, f"has memory = {table['memory']!r}: write it as \"32GB\"") from None
    processes = table.get("processes", table["cores"])
    if processes > table["cores"]:
        raise _problem(path, f"has processes = {processes} > cores = {table['cores']}")
    if memory / processes < MIN_MEMORY_PER_PROCESS:
        raise _problem(path, f"gives {memory / processes / 1e9:.1f} GB to each of {processes} "
                             "grading processes: each needs about 2 GB (raise memory or set "
                             "fewer processes)")
    if not WALLTIME.match(table["walltime"]):
        raise _problem(path, f"has walltime = {table['walltime']!r}: write it as \"01:00:00\"")
    return SlurmSpec(
        queue=table["queue"], cores=table["cores"], memory=table["memory"],
        walltime=table["walltime"], jobs=table["jobs"], processes=table.get("processes", 0),
        account=table.get("account", ""), interface=table.get("interface", ""),
        job_extra_directives=tuple(table.get("job_extra_directives", [])),
        prologue=tuple(table.get("prologue", [])),
        python=table.get("python", sys.executable),
        local_directory=table.get("local_directory", ""),
        log_directory=table.get("log_directory", ""),
    )


def load_slurm_spec(path: Path) -> SlurmSpec:
    """The ``[cluster]`` table of the cohorts file at ``path``."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ClusterError(f"cannot read {path}: {error}") from None
    return spec_from_table(data.get(TABLE), Path(path))


def cluster_arguments(spec: SlurmSpec) -> dict[str, Any]:
    """Keyword arguments of ``SLURMCluster`` for ``spec``: one thread per worker process
    (one grading session each), non-daemonic workers, the scheduler's web page on any free
    port."""
    arguments: dict[str, Any] = {
        "queue": spec.queue,
        "cores": spec.worker_processes,  # dask-jobqueue: threads in all = cores
        "processes": spec.worker_processes,
        "job_cpu": spec.cores,
        "memory": spec.memory,
        "walltime": spec.walltime,
        "python": spec.python,
        "job_name": "h2-grader",
        "job_script_prologue": [DAEMON_OFF, *spec.prologue],
        "job_extra_directives": list(spec.job_extra_directives),
        "scheduler_options": {"dashboard_address": ":0"},  # any free port of the login node
    }
    for key in ("account", "interface", "local_directory", "log_directory"):
        if getattr(spec, key):
            arguments[key] = getattr(spec, key)
    return arguments


def slurm_cluster(spec: SlurmSpec, **overrides: Any) -> Any:
    """A ``SLURMCluster`` for ``spec`` (its scheduler runs in this process; nothing is
    submitted to Slurm until it is scaled)."""
    try:
        from dask_jobqueue import SLURMCluster
    except ImportError:
        raise ClusterError("--cluster slurm needs dask-jobqueue: `pip install -e .` in the "
                           "repository installs it") from None
    return SLURMCluster(**{**cluster_arguments(spec), **overrides})


def check_slurm(script: str) -> None:
    """Fail fast, before a job is queued: ``sbatch`` must be here and accept ``script``
    (``sbatch --test-only`` checks the partition, account and limits without submitting).
    Otherwise the batch would wait for workers that never come."""
    sbatch = shutil.which("sbatch")
    if sbatch is None:
        raise ClusterError("--cluster slurm submits jobs with sbatch, which is not on this "
                           "machine's PATH: run the grader on a Slurm login node")
    try:
        done = subprocess.run([sbatch, "--test-only"], input=script, capture_output=True,
                              text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ClusterError(f"sbatch --test-only did not answer: {error}") from None
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines() or ["no reason given"]
        raise ClusterError(f"Slurm refuses the job the [{TABLE}] table describes: {lines[0]}")


def job_script(spec: SlurmSpec) -> str:
    """The batch script each Slurm job would run (what ``sbatch`` gets), to check a
    ``[cluster]`` table without Slurm: its scheduler listens on 127.0.0.1 only, so the
    address in this script is not the one a real batch uses."""
    cluster = slurm_cluster(spec, scheduler_options={"dashboard_address": "127.0.0.1:0",
                                                     "host": "127.0.0.1"})
    try:
        return cluster.job_script()
    finally:
        cluster.close()
