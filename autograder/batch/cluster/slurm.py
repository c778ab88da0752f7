"""``--cluster slurm``: the ``[cluster]`` table of ``cohorts.toml`` as a dask-jobqueue
``SLURMCluster``, and the batch's Slurm jobs watched until it is done (``SlurmJobs``).

One Slurm job asks for ``cores`` cores and ``memory`` for ``walltime`` on partition
``queue`` and runs ``processes`` Dask worker processes (one per core unless said
otherwise), each with one thread and so one grading session; ``jobs`` such jobs are
submitted. The job script makes the workers non-daemonic
(``DASK_DISTRIBUTED__WORKER__DAEMON=False``) and runs the same Python as the coordinator,
so the repository must be installed at the same path on the nodes; the submissions
themselves travel with the tasks (no shared filesystem needed for them). The jobs are
never requeued by Slurm (``--no-requeue``): a lost job is replaced here, under a new id.

Before a job is queued, ``scontrol ping`` must reach the controller and ``sbatch
--test-only`` must accept the script (``check_slurm``), each failure one line that says
which. While the batch runs, ``SlurmJobs.check`` reads the jobs' states with ``squeue``:
a job that ended (its walltime, its node, an administrator) is replaced, at most
``job_retries`` times in a batch, then the batch stops with one line naming the job and
Slurm's reason; while no worker is connected it says which jobs wait and why (Slurm's
reason), and gives up after ``pending_timeout`` seconds. On exit (done, an error, Ctrl-C)
every job it submitted is cancelled.

```toml
[cluster]
queue = "cpu"          # Slurm partition (sbatch -p)
cores = 16             # cores per job; one grading process per core
memory = "32GB"        # per job; about 2 GB per grading process
walltime = "01:00:00"  # per job (sbatch -t)
jobs = 4               # jobs submitted
# optional: processes, account, interface, job_extra_directives, prologue, python,
# local_directory, log_directory, pending_timeout, job_retries
```
"""

from __future__ import annotations

import contextlib
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
from dask.utils import parse_bytes

from autograder.batch.cluster.choice import ClusterError

TABLE = "cluster"
WALLTIME = re.compile(r"^(\d+-)?\d{1,3}(:\d{2}){0,2}$")
MIN_MEMORY_PER_PROCESS = 1.5e9  # a grading process (torch, checks) and its sandboxed worker
DAEMON_OFF = "export DASK_DISTRIBUTED__WORKER__DAEMON=False"
NO_REQUEUE = "--no-requeue"  # a lost job is replaced here (new id), never rerun by Slurm
JOB_NAME = "autograder"
LOG_FOLDER = "slurm-logs"  # under the course root unless log_directory says otherwise
PENDING_TIMEOUT = 600.0  # seconds a batch waits with no worker before it gives up
JOB_RETRIES = 3  # lost jobs replaced in a batch before it stops
REQUIRED = ("queue", "cores", "memory", "walltime", "jobs")
OPTIONAL = ("processes", "account", "interface", "job_extra_directives", "prologue",
            "python", "local_directory", "log_directory", "pending_timeout", "job_retries")
COMMAND_TIMEOUT = 60.0  # seconds for one sbatch, squeue or scancel to answer


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
    pending_timeout: float = PENDING_TIMEOUT
    job_retries: int = JOB_RETRIES
    path: Path = Path("cohorts.toml")  # the file the table was read from (for messages)

    @property
    def worker_processes(self) -> int:
        return self.processes or self.cores

    @property
    def where(self) -> str:
        """How messages name the table: ``the [cluster] table of <file>``."""
        return f"the [{TABLE}] table of {self.path}"


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
    retries = table.get("job_retries", JOB_RETRIES)
    if type(retries) is not int or retries < 0:
        raise _problem(path, f"has job_retries = {retries!r}: a whole number of at least 0")
    waiting = table.get("pending_timeout", PENDING_TIMEOUT)
    if type(waiting) not in (int, float) or not 0 < waiting < float("inf"):
        raise _problem(path, f"has pending_timeout = {waiting!r}: seconds, more than 0 "
                             "(e.g. 600)")
    for key in ("queue", "memory", "walltime", "account", "interface", "python",
                "local_directory", "log_directory"):
        if key in table and (not isinstance(table[key], str) or not table[key].strip()):
            raise _problem(path, f"has {key} = {table[key]!r}: a non-empty string")
    for key in ("job_extra_directives", "prologue"):
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise _problem(path, f"has {key} = {value!r}: a list of strings")
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
        pending_timeout=float(waiting), job_retries=retries, path=Path(path),
    )


def load_slurm_spec(path: Path) -> SlurmSpec:
    """The ``[cluster]`` table of the cohorts file at ``path``."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ClusterError(f"no cohorts file at {path}: pass the one with your [{TABLE}] "
                           "table with --config FILE") from None
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ClusterError(f"cannot read {path}: {error}") from None
    return spec_from_table(data.get(TABLE), Path(path))


def log_folder(spec: SlurmSpec, root: Path | None) -> str:
    """Where the jobs' ``.out`` and ``.err`` go: ``log_directory`` (relative to the course
    root), else ``<course root>/slurm-logs``; "" (the current folder) without a root."""
    if root is None:
        return spec.log_directory
    return str(Path(root) / (spec.log_directory or LOG_FOLDER))


def cluster_arguments(spec: SlurmSpec, logs: str = "") -> dict[str, Any]:
    """Keyword arguments of ``SLURMCluster`` for ``spec``: one thread per worker process
    (one grading session each), non-daemonic workers, never requeued by Slurm, the
    scheduler's web page on any free port, job logs in ``logs`` (or ``log_directory``)."""
    extra = list(spec.job_extra_directives)
    if not any("requeue" in directive for directive in extra):
        extra.append(NO_REQUEUE)
    arguments: dict[str, Any] = {
        "queue": spec.queue,
        "cores": spec.worker_processes,  # dask-jobqueue: threads in all = cores
        "processes": spec.worker_processes,
        "job_cpu": spec.cores,
        "memory": spec.memory,
        "walltime": spec.walltime,
        "python": spec.python,
        "job_name": JOB_NAME,
        "job_script_prologue": [DAEMON_OFF, *spec.prologue],
        "job_extra_directives": extra,
        "scheduler_options": {"dashboard_address": ":0"},  # any free port of the login node
    }
    for key in ("account", "interface", "local_directory", "log_directory"):
        if getattr(spec, key):
            arguments[key] = getattr(spec, key)
    if logs:
        arguments["log_directory"] = logs
    return arguments


def check_interface(spec: SlurmSpec) -> None:
    """``interface`` must be one of this machine's: dask would stop with a traceback."""
    if not spec.interface:
        return
    names = sorted(psutil.net_if_addrs())
    if spec.interface not in names:
        raise ClusterError(
            f"{spec.where} has interface = {spec.interface!r}, which this machine does not "
            f"have (it has {', '.join(names)}): name the one the compute nodes reach it on, "
            "or \"lo\" when they run on this machine")


def slurm_cluster(spec: SlurmSpec, **overrides: Any) -> Any:
    """A ``SLURMCluster`` for ``spec`` (its scheduler runs in this process; nothing is
    submitted to Slurm until it is scaled)."""
    # dask_jobqueue's import replaces Ctrl-C's handler with a silent sys.exit() (exit 0,
    # no line): the previous one is put back, so Ctrl-C stops the batch as in the pool.
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGINT) if in_main else None
    try:
        from dask_jobqueue import SLURMCluster  # here: its handler undone, its absence one line
    except ImportError:
        raise ClusterError("--cluster slurm needs dask-jobqueue: `pip install -e .` in the "
                           "repository installs it") from None
    finally:
        if in_main and previous is not None:
            signal.signal(signal.SIGINT, previous)
    check_interface(spec)
    return SLURMCluster(**{**cluster_arguments(spec), **overrides})


def _slurm_command(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise ClusterError(f"--cluster slurm runs {name}, which is not on this machine's PATH: "
                           "run the grader on a Slurm login node")
    return found


def _run(args: list[str], script: str | None = None,
         timeout: float = COMMAND_TIMEOUT) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(args, input=script, capture_output=True, text=True,
                              timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return subprocess.CompletedProcess(args, 1, "", f"{args[0]}: {error}")


def _said(done: subprocess.CompletedProcess) -> str:
    """The line of a Slurm command's answer that says why (its last error line)."""
    lines = [line.strip() for line in (done.stderr or done.stdout).splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower() or "failure" in line.lower()]
    return (errors or lines or ["no reason given"])[-1]


UNREACHABLE = ("unable to contact slurm controller", "is down", "connection refused",
               "communication connection failure", "socket timed out", "zero bytes")


def controller_unreachable(text: str) -> bool:
    """Whether a Slurm command's error says the controller (slurmctld) did not answer."""
    return any(words in text.lower() for words in UNREACHABLE)


def unreachable_error(said: str) -> ClusterError:
    return ClusterError(
        f"the Slurm controller (slurmctld) is unreachable ({said}): check `scontrol ping` "
        "on this machine, or ask the cluster's administrators; graded submissions are kept")


def refusal(spec: SlurmSpec, said: str) -> ClusterError:
    """Slurm's refusal of the job the table describes, as one line naming the key."""
    low = said.lower()
    if controller_unreachable(said):
        return unreachable_error(said)
    if "account" in low or "association" in low:
        return ClusterError(f"Slurm refuses the account {spec.account or '(none)'!r} of "
                            f"{spec.where} ({said}): name yours (`sacctmgr show assoc "
                            "user=$USER`)")
    if "partition" in low:
        return ClusterError(f"Slurm refuses the partition queue = {spec.queue!r} of "
                            f"{spec.where} ({said}): name one `sinfo -s` lists")
    if "node configuration" in low or "memory" in low or "cpu" in low:
        return ClusterError(f"Slurm has no node for a job of {spec.cores} cores and "
                            f"{spec.memory} ({said}): lower cores or memory in {spec.where}")
    if "time limit" in low:
        return ClusterError(f"Slurm refuses walltime = {spec.walltime!r} on partition "
                            f"{spec.queue!r} ({said}): lower it in {spec.where}")
    return ClusterError(f"Slurm refuses the job {spec.where} describes: {said}")


def check_slurm(script: str, spec: SlurmSpec | None = None) -> None:
    """Fail fast, before a job is queued: the controller must answer ``scontrol ping`` and
    ``sbatch --test-only`` must accept ``script`` (it checks the partition, account and
    limits without submitting). Otherwise the batch would wait for workers that never
    come."""
    sbatch = _slurm_command("sbatch")
    scontrol = shutil.which("scontrol")
    if scontrol is not None:
        ping = _run([scontrol, "ping"])
        if ping.returncode != 0:
            raise unreachable_error(_said(ping))
    done = _run([sbatch, "--test-only"], script)
    if done.returncode != 0:
        said = _said(done)
        if spec is None:
            if controller_unreachable(said):
                raise unreachable_error(said)
            raise ClusterError(f"Slurm refuses the job the [{TABLE}] table describes: {said}")
        raise refusal(spec, said)


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


# -- the batch's jobs ------------------------------------------------------------------------

ENDED = {"BOOT_FAIL", "CANCELLED", "COMPLETED", "DEADLINE", "FAILED", "NODE_FAIL",
         "OUT_OF_MEMORY", "PREEMPTED", "TIMEOUT", "SPECIAL_EXIT", "REVOKED"}
GONE = "GONE"  # no longer listed by squeue (ended long enough ago to be purged)
POLL_WAITING = 2.0  # seconds between squeue calls while no worker is connected
POLL_WORKING = 10.0  # ... while workers grade (a lost job only costs capacity then)
SAY_AFTER = 5.0  # a start quicker than this says nothing
REASONS = {  # Slurm's pending reasons a TA may not know, in words
    "PartitionDown": "its partition is down",
    "PartitionInactive": "its partition is inactive",
    "Resources": "waiting for free nodes",
    "Priority": "other jobs come first",
    "ReqNodeNotAvail": "the nodes it needs are unavailable",
    "QOSMaxJobsPerUserLimit": "you have as many jobs as your QOS allows",
    "AssocGrpCpuLimit": "your account's CPU limit is reached",
    "AssocMaxJobsLimit": "your account's job limit is reached",
    "BeginTime": "its start time is not yet",
    "JobHeldAdmin": "an administrator holds it",
    "JobHeldUser": "it is held (scontrol release)",
}


def ended_words(state: str, reason: str, spec: SlurmSpec) -> str:
    """Why a job ended, as the end of a sentence naming it, and what would help."""
    words = {
        "TIMEOUT": f"reached its walltime ({spec.walltime}; TIMEOUT): raise walltime in "
                   f"{spec.where} (docs/cluster.md sizes it)",
        "NODE_FAIL": f"lost its node (NODE_FAIL, {reason})",
        "BOOT_FAIL": f"could not boot its node (BOOT_FAIL, {reason})",
        "PREEMPTED": "was preempted by Slurm (PREEMPTED)",
        "OUT_OF_MEMORY": f"ran out of memory (OUT_OF_MEMORY): raise memory in {spec.where}",
        "CANCELLED": "was cancelled (CANCELLED: by scancel or an administrator)",
        "DEADLINE": "reached its deadline (DEADLINE)",
        "COMPLETED": "ended: its workers stopped (COMPLETED)",
        "FAILED": f"failed (FAILED, {reason})",
        GONE: "ended (Slurm no longer lists it)",
    }
    return words.get(state, f"ended ({state}, {reason})")


def waiting_words(state: str, reason: str) -> str:
    """What a job the batch waits for is doing, in Slurm's words and ours."""
    if state == "PENDING":
        meaning = REASONS.get(reason.split(",")[0])
        shown = "queued" if reason in ("", "None") else reason
        return f"pending ({shown}{': ' + meaning if meaning else ''})"
    if state == "RUNNING":
        return "running, but no Dask worker of it has connected (interface in docs/cluster.md)"
    return state.lower()


def grouped(states: dict[str, tuple[str, str]]) -> str:
    """``job 12 pending (...)``, or ``jobs 12, 13 pending (...)`` when they say the same."""
    by_words: dict[str, list[str]] = {}
    for job_id, (state, reason) in states.items():
        by_words.setdefault(waiting_words(state, reason), []).append(job_id)
    return "; ".join(f"job{'s' if len(ids) > 1 else ''} {', '.join(ids)} {words}"
                     for words, ids in by_words.items())


@dataclass
class SlurmJobs:
    """The jobs of one batch: submitted, watched, replaced when lost, cancelled at the end;
    see the module docstring. ``say`` prints a line beside the progress bar."""

    spec: SlurmSpec
    cluster: Any
    say: Callable[[str], None] = print
    logs: str = ""
    names: dict[str, str] = field(default_factory=dict)  # live job's worker name -> id
    submitted: list[str] = field(default_factory=list)  # every id, in order
    replaced: int = 0
    polled: float = 0.0
    waiting_since: float | None = None
    unanswered_since: float | None = None
    failure: str = ""  # what squeue said when it failed
    last_words: str = ""

    def start(self) -> None:
        """Check the job with Slurm, then submit ``jobs`` of them."""
        check_slurm(self.cluster.job_script(), self.spec)
        self.cluster.scale(jobs=self.spec.jobs)
        self._submit()

    def _submit(self) -> None:
        """Submit the jobs the cluster's spec has and no job yet (``sbatch``), waiting for
        Slurm's answer: a refusal is one line, not a traceback in Dask's event loop."""
        try:
            self.cluster.sync(self.cluster._correct_state)
        except RuntimeError as error:  # dask-jobqueue: "Command exited with non-zero..."
            raise refusal(self.spec, _sbatch_error(str(error))) from None

        async def ids() -> dict[str, str]:
            return {name: str(job.job_id) for name, job in self.cluster.workers.items()
                    if getattr(job, "job_id", None)}

        by_id = sorted(self.cluster.sync(ids).items(),
                       key=lambda item: (len(item[1]), item[1]))  # numeric order
        for name, job_id in by_id:
            if name not in self.names and job_id not in self.submitted:
                self.names[name] = job_id
                self.submitted.append(job_id)

    def log_of(self, job_id: str) -> str:
        return f"{self.logs or '.'}/{JOB_NAME}-{job_id}.err"

    def states(self) -> dict[str, tuple[str, str]] | None:
        """``{id: (state, reason)}`` of the live jobs (``GONE`` for one squeue no longer
        lists); ``None`` when squeue does not answer (``failure`` says why)."""
        ids = list(self.names.values())
        if not ids:
            return {}
        done = _run([_slurm_command("squeue"), "-h", "-t", "all", "-j", ",".join(ids),
                     "-o", "%i|%T|%r"])
        # "Invalid job id": every job asked for ended long enough ago to be forgotten.
        if done.returncode != 0 and "invalid job id" not in _said(done).lower():
            self.failure = _said(done)
            return None
        states: dict[str, tuple[str, str]] = {}
        for line in done.stdout.splitlines():
            job_id, _, rest = line.strip().partition("|")
            state, _, reason = rest.partition("|")
            states[job_id] = (state.strip(), reason.strip())
        return {job_id: states.get(job_id, (GONE, "")) for job_id in ids}

    def check(self, workers: int) -> None:
        """While the batch has work: replace lost jobs, say what the batch waits for, give
        up after ``pending_timeout`` with no worker (``ClusterError``). ``workers``: the
        Dask workers connected now. Calls ``squeue`` every few seconds at most."""
        now = time.monotonic()
        if workers:
            self.waiting_since, self.last_words = None, ""
        elif self.waiting_since is None:
            self.waiting_since = now
        if now - self.polled < (POLL_WORKING if workers else POLL_WAITING):
            return
        self.polled = now
        states = self.states()
        if states is None:
            self._unanswered(now, workers)
            return
        self.unanswered_since = None
        lost = [(name, job_id, *states[job_id]) for name, job_id in self.names.items()
                if states[job_id][0] in ENDED or states[job_id][0] == GONE]
        for name, job_id, state, reason in lost:
            self._lost(name, job_id, state, reason)
        if not workers:
            self._waiting(now, (self.states() or {}) if lost else states)

    def _lost(self, name: str, job_id: str, state: str, reason: str) -> None:
        del self.names[name]
        words = ended_words(state, reason, self.spec)
        if self.replaced >= self.spec.job_retries:
            raise ClusterError(
                f"Slurm job {job_id} {words}; no replacement is left (job_retries = "
                f"{self.spec.job_retries} in {self.spec.where}), so the batch stops (its log: "
                f"{self.log_of(job_id)}); graded submissions are kept: run the command again "
                "to resume")
        self.replaced += 1
        # A new job under a new name (Dask would otherwise reuse the lost one's name, still
        # in its list of jobs, and start nothing); the lost one is closed, not restarted.
        self.cluster.worker_spec.pop(name, None)
        self.cluster.worker_spec[f"replacement-{self.replaced}"] = dict(self.cluster.new_spec)
        self._submit()
        new = self.submitted[-1]
        self.say(f"Slurm job {job_id} {words}; replaced by job {new} (replacement "
                 f"{self.replaced} of {self.spec.job_retries}); its submissions are graded "
                 "again")

    def _waiting(self, now: float, states: dict[str, tuple[str, str]]) -> None:
        assert self.waiting_since is not None
        waited = now - self.waiting_since
        jobs = grouped({job_id: states[job_id] for job_id in self.names.values()
                        if job_id in states})
        if waited >= self.spec.pending_timeout:
            ids = ",".join(self.names.values())
            raise ClusterError(
                f"no Dask worker came from Slurm within pending_timeout = "
                f"{self.spec.pending_timeout:g} s ({jobs or 'no job left'}): fix what Slurm "
                f"says (`squeue -j {ids}`) or raise pending_timeout in {self.spec.where}; "
                "graded submissions are kept")
        if jobs and waited >= SAY_AFTER and jobs != self.last_words:
            self.last_words = jobs
            self.say(f"waiting for Slurm: {jobs}")

    def _unanswered(self, now: float, workers: int) -> None:
        """squeue failed: the batch goes on with the workers it has; with none, it gives up
        after ``pending_timeout``, saying what squeue said."""
        if self.unanswered_since is None:
            self.unanswered_since = now
            self.say(f"Slurm does not answer squeue ({self.failure})"
                     + (": the batch goes on with the workers it has" if workers else ""))
        if not workers and self.waiting_since is not None and (
                now - self.waiting_since >= self.spec.pending_timeout):
            if controller_unreachable(self.failure):
                raise unreachable_error(self.failure)
            raise ClusterError(f"Slurm does not answer squeue ({self.failure}) and no Dask "
                               f"worker came within pending_timeout = "
                               f"{self.spec.pending_timeout:g} s; graded submissions are kept")

    def cancel(self) -> None:
        """Cancel every job of the batch (``scancel``), then close the cluster; a job that
        could not be cancelled is named, with the command that cancels it."""
        if self.submitted:
            done = _run([_slurm_command("scancel"), *self.submitted])
            if done.returncode != 0 and "invalid job id" not in _said(done).lower():
                self.say(f"could not cancel the Slurm jobs of this batch ({_said(done)}): "
                         f"cancel them with `scancel {' '.join(self.submitted)}`")

            async def forget() -> None:  # cancelled above: Dask need not scancel each again
                for job in self.cluster.workers.values():
                    if str(getattr(job, "job_id", None)) in self.submitted:
                        job.job_id = None

            with contextlib.suppress(Exception):
                self.cluster.sync(forget)
        self.cluster.close()


def _sbatch_error(text: str) -> str:
    """sbatch's own words in dask-jobqueue's "Command exited with non-zero exit code"."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower() or "failure" in line.lower()]
    return (errors or lines or ["sbatch failed"])[-1]
