"""The batch command starts the zygote before it checks the course and imports the grader
(``launch_sandbox``), so both warm up side by side. A zygote started that early may have more
channels than the batch needs, or not be needed at all: it must still serve the channels that
are used, and never be left running (importing torch) when it is not."""

from __future__ import annotations

from pathlib import Path

from autograder.batch.course import Course
from autograder.batch.engine import BatchOptions, grade_course, launch_sandbox
from autograder.sandbox.client import SandboxStudent
from autograder.sandbox.limits import Limits
from autograder.sandbox.uids import UidLease
from autograder.sandbox.zygote import Zygote, discard
from autograder.spec import SPEC


def test_channels_closed_before_the_zygote_is_ready_do_not_stop_it():
    """A batch with fewer submissions than ``--jobs`` closes the surplus channels at once,
    long before the zygote has imported torch and says it is ready on every channel."""
    owner, *surplus = Zygote.launch(channels=3)
    discard(surplus)
    lease = UidLease.acquire()
    try:
        owner.wait_ready()
        with SandboxStudent([], owner, limits=Limits(), uid=lease.uid) as worker:
            assert worker.report.isolation
    finally:
        owner.close()
        lease.release()
    assert owner.process.returncode == 0  # it ended as it should once its last channel closed


def test_a_discarded_zygote_is_ended_at_once():
    """Discarding the owner kills the zygote even while it is still importing (it reads its
    channels only once it is warm), and discarding it again is harmless."""
    channels = Zygote.launch(channels=2)
    discard(channels)
    assert channels[0].process.returncode is not None  # waited for: no zombie, nothing running
    discard(channels)


def test_a_batch_with_nothing_to_grade_ends_the_sandbox_it_was_given(tmp_path: Path):
    options = BatchOptions(jobs=2, progress=False, write_gradebook=False)
    sandbox = launch_sandbox(options)
    assert sandbox is not None and len(sandbox) == 2
    summary = grade_course(Course(tmp_path, SPEC.name), [], options, sandbox)
    assert summary.results == []
    assert sandbox[0].process.returncode is not None


def test_a_batch_for_a_cluster_starts_no_local_sandbox():
    from autograder.batch.cluster.choice import parse_cluster

    assert launch_sandbox(BatchOptions(cluster=parse_cluster("dask-local:1"))) is None
