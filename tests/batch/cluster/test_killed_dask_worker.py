"""A Dask worker process killed mid-batch (SIGKILL, as the OOM killer or a lost node):
Dask re-runs what it was grading on another worker, every submission gets its result,
each is recorded exactly once, and the grades are what they would have been. The batch
grades the small `vectors` bundle (its folder told to the workers as plain data): what is
checked is Dask's scheduling, not an assignment's."""

from __future__ import annotations

import os
import signal
import time

import dask
import pytest
from distributed import Client, LocalCluster

from autograder.base.course import Course
from autograder.batch.cluster.choice import SCHEDULER, ClusterChoice
from autograder.batch.cluster.executor import grade_on_cluster
from autograder.batch.engine import BatchOptions, grade_course
from tests.support.dask_cluster import FAST_LIMITS
from tests.support.vectors import REFERENCE, VECTORS, WRONG_NORMALIZE, submit

pytestmark = pytest.mark.slow

LOOPS = REFERENCE | {"normalize": "def normalize(a):\n    while True:\n        pass\n"}
# Graded in this order; the slow one (a function that loops until its limit) is certainly
# still being graded when the first results arrive.
ROSTER = {"a-loop": LOOPS} | {f"s{n}": REFERENCE for n in range(5)} | {
    "t-wrong-normalize": REFERENCE | {"normalize": WRONG_NORMALIZE}}


def test_a_killed_worker_loses_nothing_and_records_nothing_twice(tmp_path):
    course = Course(tmp_path / "course", VECTORS.name)
    for student, functions in ROSTER.items():
        submit(course.root, student, functions)
    settings = {"distributed.worker.daemon": False,
                "distributed.scheduler.allowed-failures": 1}
    with dask.config.set(settings), LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address="127.0.0.1:0", silence_logs=50,
    ) as cluster, Client(cluster, set_as_default=False) as observer:
        pids = observer.run(os.getpid)
        killed: dict[str, object] = {}
        recorded = []

        def on_result(result) -> None:  # noqa: ANN001
            recorded.append(result)
            if killed:
                return
            busy = {address: keys for address, keys in observer.processing().items() if keys}
            for address, keys in busy.items():
                if any("a-loop" in str(key) for key in keys):  # mid-way through its limits
                    os.kill(pids[address], signal.SIGKILL)
                    killed.update(address=address, keys=keys, at=time.monotonic())
                    return

        options = BatchOptions(progress=False, limits=FAST_LIMITS,
                               cluster=ClusterChoice(SCHEDULER, address=cluster.scheduler_address))
        grade_on_cluster(course, VECTORS, list(ROSTER), options, on_result)
        assert killed, "no worker was killed: the test did not test anything"
        assert sorted(r.student for r in recorded) == sorted(ROSTER)  # all, each once
        by_student = {r.student: r for r in recorded}
        assert {r.status for r in recorded} == {"graded"}
        assert all(by_student[f"s{n}"].score == 10 for n in range(5))
        assert by_student["t-wrong-normalize"].score == 6
        assert "did not finish in time" in str(by_student["a-loop"].to_gradescope())
        assert all((course.autograded(s) / "results.json").exists() for s in ROSTER)
        # The worker that died was replaced by its nanny, with a grading session of its own
        # (its restart takes its own time on a slow machine: waited for, within a bound).
        observer.wait_for_workers(2, timeout=120)
        assert len(observer.run(os.getpid)) == 2

    # A re-run skips every submission already graded (and starts no cluster for nothing).
    summary = grade_course(course, options=options, assignment=VECTORS)
    assert summary.graded == [] and sorted(summary.skipped) == sorted(ROSTER)
