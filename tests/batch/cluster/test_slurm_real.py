"""`--cluster slurm` against a real one-node Slurm (munged, slurmctld and slurmd from
Debian's packages, on loopback: tests/support/slurm_cluster.py): it grades a cohort exactly
as the local pool does, replaces a job lost to its walltime or its node and regrades what
that job held (each submission recorded once), stops with one line after its bounded
replacements, after waiting pending_timeout on a job Slurm keeps pending, on a stopped
controller and on a partition Slurm refuses, and on Ctrl-C cancels its jobs and exits 130
as the pool does. Job logs go to <course root>/slurm-logs, not the current folder."""

from __future__ import annotations

import csv
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from autograder.base.course import Course
from autograder.batch.cluster.choice import SLURM, ClusterChoice, ClusterError
from autograder.batch.cluster.executor import grade_on_cluster
from autograder.batch.cluster.slurm import JOB_NAME
from autograder.batch.command import interrupted_line
from autograder.batch.engine import BatchOptions
from tests.support import slurm_cluster
from tests.support.commands import interruptible
from tests.support.dask_cluster import FAST_LIMITS, make_course, saved
from tests.support.h2 import SPEC
from tests.support.slurm_cluster import SlurmCluster

pytestmark = pytest.mark.slow
slurm = slurm_cluster.slurm  # the module's cluster (a fixture)

ROSTER = {
    "a-correct": "correct",
    "b-wrong-axis": "softmax_wrong_axis",
    "c-context-argmax": "context_argmax",
    "d-broken": "broken_notebook",
    "e-no-evidence": "no_evidence",
    "f-reads-reference": "reads_reference",
}
LIMITS = ("--cell-timeout", "5", "--call-timeout", "3")  # as FAST_LIMITS, on the command line
TABLE = """\
[cluster]
queue = "{queue}"
cores = 1
memory = "2GB"
walltime = "{walltime}"
jobs = {jobs}
interface = "lo"
pending_timeout = {pending}
job_retries = {retries}
prologue = {prologue}
"""
ACTIVE = ("PENDING", "RUNNING", "CONFIGURING")


def cluster_table(folder: Path, *, queue: str = "cpu", walltime: str = "00:10:00",
                  jobs: int = 2, pending: float = 120, retries: int = 3,
                  prologue: tuple[str, ...] = ()) -> Path:
    """A cohorts file holding only a [cluster] table for the test cluster."""
    config = folder / "cohorts.toml"
    quoted = "[" + ", ".join(f"'{line}'" for line in prologue) + "]"
    config.write_text(TABLE.format(queue=queue, walltime=walltime, jobs=jobs, pending=pending,
                                   retries=retries, prologue=quoted))
    return config


def autograde_command(root: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "autograder", "autograde", SPEC.name, "--root", str(root),
            "--no-progress", *LIMITS, *extra]


def on_slurm(slurm: SlurmCluster, root: Path, config: Path, *,
             timeout: float = 300) -> subprocess.CompletedProcess:
    """`autograde --cluster slurm --config CONFIG`, run from a folder of its own."""
    return subprocess.run(
        autograde_command(root, "--cluster", "slurm", "--config", str(config)),
        cwd=config.parent, env=slurm.env, capture_output=True, text=True, timeout=timeout,
        check=False)


def last_error(done: subprocess.CompletedProcess, code: int = 2) -> str:
    """The one error line a refused batch ends with (and no traceback)."""
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and done.stderr.strip().splitlines()[-1] == errors[0], done.stderr
    return errors[0]


def active_jobs(slurm: SlurmCluster) -> dict[str, str]:
    return {job: state for job, state in slurm.job_states().items() if state in ACTIVE}


def test_the_test_cluster_stops_every_daemon_it_started(tmp_path):
    """Before the module's cluster starts: one of its own, on other ports."""
    with slurm_cluster.running_slurm(tmp_path / "slurm") as cluster:
        assert cluster.node_state() == "idle"
        daemons = dict(cluster.daemons)
        assert sorted(daemons) == ["munged", "slurmctld", "slurmd"]
        assert all(process.poll() is None for process in daemons.values())
    assert all(process.poll() is not None for process in daemons.values())


def test_without_slurm_the_tests_skip_here_and_fail_in_ci(monkeypatch):
    monkeypatch.setattr(slurm_cluster, "missing_software", lambda: "slurmctld, slurmd")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install -y slurm-wlm munge"):
        slurm_cluster.require_slurm()
    monkeypatch.setenv("CI", "1")
    with pytest.raises(pytest.fail.Exception, match="CI must run the Slurm tests"):
        slurm_cluster.require_slurm()


@pytest.fixture(scope="module")
def cohort(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The cohort's submissions, built once (each test grades a copy)."""
    return make_course(tmp_path_factory.mktemp("cohort"), ROSTER)


def copy_of(cohort: Path, root: Path) -> Path:
    shutil.copytree(cohort / "submitted", root / "submitted", symlinks=True)
    return root


@pytest.fixture(scope="module")
def pooled(cohort: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The cohort graded by the local pool (2 processes), from the same command line."""
    root = copy_of(cohort, tmp_path_factory.mktemp("pool"))
    started = time.monotonic()
    done = subprocess.run(autograde_command(root, "--jobs", "2"), capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    print(f"pool: {time.monotonic() - started:.1f} s")
    return root


@pytest.fixture(scope="module")
def walltime_batch(cohort: Path, tmp_path_factory: pytest.TempPathFactory):
    """A batch whose first job outlives its walltime, started on a Slurm of its own when the
    module's first cluster test starts, and left to run while the others use theirs.

    Slurm's shortest walltime is a minute and it checks limits every 30 s, so the first job
    is timed out 60-90 s after it starts: that wait passes beside the other tests instead of
    after them (``test_a_job_that_reaches_its_walltime_is_replaced`` reads the outcome). The
    first job sleeps past its walltime before its worker starts; its replacement (the marker
    exists then) grades the batch."""
    folder = tmp_path_factory.mktemp("walltime")
    with slurm_cluster.running_slurm(folder / "slurm") as cluster:
        root = copy_of(cohort, folder / "course")
        marker = folder / "first-job-started"
        config = cluster_table(folder, jobs=1, retries=1, walltime="00:01:00",
                               prologue=(f"[ -e {marker} ] || {{ touch {marker}; sleep 300; }}",))
        with (folder / "out").open("w+") as out, (folder / "err").open("w+") as err:
            batch = subprocess.Popen(
                autograde_command(root, "--cluster", "slurm", "--config", str(config)),
                cwd=folder, env=cluster.env, stdout=out, stderr=err, text=True)
            try:
                yield SimpleNamespace(batch=batch, root=root, out=folder / "out",
                                      err=folder / "err", started=time.monotonic())
            finally:
                if batch.poll() is None:  # the test was not run (-k): no need to wait
                    batch.kill()
                    batch.wait()


@pytest.fixture
def fresh_slurm(slurm: SlurmCluster, walltime_batch) -> Iterator[SlurmCluster]:  # noqa: ANN001
    """The module's cluster, put back as it was after each test (``SlurmCluster.restore``);
    the first test to ask for it starts ``walltime_batch`` too."""
    try:
        yield slurm
    finally:
        slurm.restore()


def test_slurm_grades_as_the_pool(fresh_slurm, cohort, pooled, tmp_path):
    root = copy_of(cohort, tmp_path / "slurm")
    config = cluster_table(tmp_path, jobs=2)
    started = time.monotonic()
    done = on_slurm(fresh_slurm, root, config)
    print(f"slurm: {time.monotonic() - started:.1f} s")
    assert done.returncode == 0, done.stderr
    assert "6 submissions: 5 graded, 1 ungradable, 0 grader errors" in done.stdout
    for student in ROSTER:
        assert saved(root, student) == saved(pooled, student), student
    with (pooled / "grades.csv").open() as a, (root / "grades.csv").open() as b:
        assert list(csv.DictReader(a)) == list(csv.DictReader(b))
    # Two jobs, their logs in the course root; none in the folder it was started from.
    logs = sorted(path.name for path in (root / "slurm-logs").iterdir())
    assert len(logs) == 4 and all(name.startswith(f"{JOB_NAME}-") for name in logs), logs
    assert not list(tmp_path.glob("*.out")) and not list(tmp_path.glob("*.err"))
    assert active_jobs(fresh_slurm) == {}


def _fail_node_on_first_result(slurm: SlurmCluster, recorded: list, failed: dict):
    """An ``on_result`` that records, and fails the node when the first result arrives
    (the batch half done: its job dies with submissions in flight)."""

    def on_result(result) -> None:  # noqa: ANN001
        recorded.append(result)
        if failed:
            return
        failed.update(jobs=active_jobs(slurm), at=len(recorded))
        slurm.fail_node()
        # ReturnToService=2 brings the node back when slurmd answers; RESUME makes it sure.
        threading.Timer(1.0, slurm.run, ("scontrol", "update", f"NodeName={slurm.node}",
                                         "State=RESUME"), {"check": False}).start()

    return on_result


def test_a_job_whose_node_fails_is_replaced_and_its_submissions_regraded(
        fresh_slurm, cohort, tmp_path, monkeypatch, capfd):
    monkeypatch.setenv("SLURM_CONF", str(fresh_slurm.conf))
    course = Course(copy_of(cohort, tmp_path / "course"), SPEC.name)
    config = cluster_table(tmp_path, jobs=1, retries=1)
    recorded: list = []
    failed: dict = {}
    options = BatchOptions(progress=False, limits=FAST_LIMITS,
                           cluster=ClusterChoice(SLURM, config=config))
    started = time.monotonic()
    grade_on_cluster(course, SPEC, list(ROSTER),
                     options, _fail_node_on_first_result(fresh_slurm, recorded, failed))
    print(f"node failure: {time.monotonic() - started:.1f} s")
    assert failed and failed["at"] < len(ROSTER), "the node failed after the batch: no test"
    [lost] = failed["jobs"]
    assert sorted(r.student for r in recorded) == sorted(ROSTER)  # every one, each once
    by_student = {r.student: r for r in recorded}
    assert by_student["a-correct"].score == 100 and by_student["d-broken"].status == "ungradable"
    assert all((course.autograded(s) / "results.json").exists() for s in ROSTER)
    said = capfd.readouterr().err
    assert f"Slurm job {lost} lost its node (NODE_FAIL" in said, said
    assert "replaced by job" in said and "(replacement 1 of 1)" in said, said
    assert active_jobs(fresh_slurm) == {}


def test_a_lost_job_without_replacement_left_stops_the_batch_in_one_line(
        fresh_slurm, cohort, tmp_path, monkeypatch):
    monkeypatch.setenv("SLURM_CONF", str(fresh_slurm.conf))
    course = Course(copy_of(cohort, tmp_path / "course"), SPEC.name)
    config = cluster_table(tmp_path, jobs=1, retries=0)
    recorded: list = []
    failed: dict = {}
    options = BatchOptions(progress=False, limits=FAST_LIMITS,
                           cluster=ClusterChoice(SLURM, config=config))
    started = time.monotonic()
    with pytest.raises(ClusterError) as stopped:
        grade_on_cluster(course, SPEC, list(ROSTER), options,
                         _fail_node_on_first_result(fresh_slurm, recorded, failed))
    print(f"no replacement left: {time.monotonic() - started:.1f} s")
    [lost] = failed["jobs"]
    line = str(stopped.value)
    assert "\n" not in line
    assert line.startswith(f"Slurm job {lost} lost its node (NODE_FAIL"), line
    assert "job_retries = 0" in line and f"slurm-logs/{JOB_NAME}-{lost}.err" in line, line
    assert len(recorded) < len(ROSTER)
    assert active_jobs(fresh_slurm) == {}


def test_a_pending_job_is_named_with_slurms_reason_and_given_up_on(fresh_slurm, cohort,
                                                                   tmp_path):
    fresh_slurm.set_partition("DOWN")
    root = copy_of(cohort, tmp_path / "course")
    config = cluster_table(tmp_path, jobs=2, pending=3)
    before = set(fresh_slurm.job_states())
    started = time.monotonic()
    done = on_slurm(fresh_slurm, root, config)
    print(f"pending: {time.monotonic() - started:.1f} s")
    line = last_error(done)
    assert "within pending_timeout = 3 s" in line and "PartitionDown" in line, line
    ids = sorted(set(fresh_slurm.job_states()) - before, key=int)
    assert len(ids) == 2 and f"jobs {', '.join(ids)} pending (PartitionDown" in line, line
    assert active_jobs(fresh_slurm) == {}  # cancelled on the way out


def test_ctrl_c_cancels_the_jobs_and_exits_130(fresh_slurm, cohort, tmp_path):
    root = copy_of(cohort, tmp_path / "course")
    config = cluster_table(tmp_path, jobs=2)
    batch = interruptible(
        autograde_command(root, "--cluster", "slurm", "--config", str(config)),
        cwd=tmp_path, env=fresh_slurm.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    try:
        deadline = time.monotonic() + 60
        while list(active_jobs(fresh_slurm).values()) != ["RUNNING", "RUNNING"]:
            assert batch.poll() is None, batch.communicate()
            assert time.monotonic() < deadline, "the jobs did not start"
            time.sleep(0.2)
        started = time.monotonic()
        batch.send_signal(signal.SIGINT)
        out, err = batch.communicate(timeout=60)
        print(f"ctrl-c: exit after {time.monotonic() - started:.1f} s")
    finally:
        if batch.poll() is None:
            batch.kill()
            batch.wait()
    assert batch.returncode == 130, (out, err)
    assert err.strip().splitlines()[-1] == interrupted_line(force=False), err
    assert "Traceback" not in err
    assert active_jobs(fresh_slurm) == {}  # scancel'd: none pending or running


def test_a_stopped_controller_is_named(fresh_slurm, cohort, tmp_path):
    fresh_slurm.stop_controller()
    root = copy_of(cohort, tmp_path / "course")
    started = time.monotonic()
    done = on_slurm(fresh_slurm, root, cluster_table(tmp_path))
    print(f"stopped controller: {time.monotonic() - started:.1f} s")
    line = last_error(done)
    assert "the Slurm controller (slurmctld) is unreachable" in line, line
    assert "refuses" not in line


def test_a_controller_that_stops_mid_batch_leaves_the_workers_grading(
        fresh_slurm, cohort, tmp_path, monkeypatch, capfd):
    """The jobs run on without slurmctld: the batch ends, and names the job it could not
    cancel (the restore after the test cancels it)."""
    monkeypatch.setenv("SLURM_CONF", str(fresh_slurm.conf))
    course = Course(copy_of(cohort, tmp_path / "course"), SPEC.name)
    recorded: list = []
    jobs: dict = {}

    def on_result(result) -> None:  # noqa: ANN001
        recorded.append(result)
        if not jobs:
            jobs.update(active_jobs(fresh_slurm))
            fresh_slurm.stop_controller()

    options = BatchOptions(progress=False, limits=FAST_LIMITS,
                           cluster=ClusterChoice(SLURM, config=cluster_table(tmp_path, jobs=1)))
    started = time.monotonic()
    grade_on_cluster(course, SPEC, list(ROSTER), options, on_result)
    print(f"controller stopped mid-batch: {time.monotonic() - started:.1f} s")
    assert sorted(r.student for r in recorded) == sorted(ROSTER)
    [job] = jobs
    said = capfd.readouterr().err
    assert "could not cancel the Slurm jobs of this batch" in said, said
    assert "Unable to contact slurm controller" in said and f"`scancel {job}`" in said, said


def test_a_partition_slurm_does_not_have_is_named(fresh_slurm, cohort, tmp_path):
    root = copy_of(cohort, tmp_path / "course")
    before = set(fresh_slurm.job_states())
    done = on_slurm(fresh_slurm, root, cluster_table(tmp_path, queue="gpu"))
    line = last_error(done)
    assert "Slurm refuses the partition queue = 'gpu'" in line, line
    assert "Invalid partition name" in line, line
    assert set(fresh_slurm.job_states()) <= before  # nothing was queued


def test_a_job_that_reaches_its_walltime_is_replaced(walltime_batch):
    """The last test of the module: the batch started with its first cluster test has had
    their time to reach its first job's walltime (``walltime_batch``)."""
    walltime_batch.batch.wait(timeout=300)
    print(f"walltime: {time.monotonic() - walltime_batch.started:.1f} s after it started")
    out, err = walltime_batch.out.read_text(), walltime_batch.err.read_text()
    assert walltime_batch.batch.returncode == 0, err
    assert "6 submissions: 5 graded, 1 ungradable, 0 grader errors (6 assessed" in out
    assert "reached its walltime (00:01:00; TIMEOUT)" in err, err
    assert "replaced by job" in err, err
    # The first job's log: the lowest job id (as a number: job 10 comes after job 9).
    first = min((walltime_batch.root / "slurm-logs").glob("*.err"),
                key=lambda path: int(path.stem.rsplit("-", 1)[1])).read_text()
    assert "DUE TO TIME LIMIT" in first, first
