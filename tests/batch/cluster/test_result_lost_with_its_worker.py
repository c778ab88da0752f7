"""A task that finished on a worker lost before its result was fetched (a Slurm node that
failed just then): Dask computes it again, which needs a worker, so the batch keeps
replacing lost jobs while it waits (``executor._result``). It used to wait for ever (seen in
a full run: the node-failure test of ``test_slurm_real`` held its worker for 15 minutes)."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator

import dask
import pytest
from distributed import Client, LocalCluster

from autograder.batch.cluster import executor
from autograder.batch.cluster.choice import ClusterError

pytestmark = pytest.mark.slow  # a Dask cluster of processes


class Replacing:
    """What ``SlurmJobs.check`` does for a lost job, on a local cluster: start a worker."""

    def __init__(self, cluster: LocalCluster) -> None:
        self.cluster, self.checks = cluster, []

    def check(self, workers: int) -> None:
        self.checks.append(workers)
        if workers == 0 and len(self.checks) == 1:
            self.cluster.scale(1)


@pytest.fixture
def lost_result(monkeypatch) -> Iterator[tuple]:  # noqa: ANN001
    """A task computed on a cluster's only worker, which is then killed before its result is
    fetched, and no worker comes back by itself (as a lost Slurm job): (cluster, client,
    future)."""
    monkeypatch.setattr(executor, "RESULT_WAIT", 0.5)
    with dask.config.set({"distributed.worker.daemon": False}), LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address="127.0.0.1:0", silence_logs=50,
    ) as cluster, Client(cluster, set_as_default=False) as client:
        (pid,) = client.run(os.getpid).values()
        future = client.submit(sum, [1, 2, 3], pure=False)
        while future.status != "finished":  # computed, its result still on the worker
            time.sleep(0.05)
        cluster.scale(0)
        os.kill(pid, signal.SIGKILL)
        yield cluster, client, future


def test_a_result_lost_with_its_worker_is_computed_again_on_a_replacement(lost_result):
    cluster, client, future = lost_result
    watch = Replacing(cluster)
    assert executor._result(future, client, watch) == 6
    assert watch.checks and watch.checks[0] == 0


class GivingUp:
    """What ``SlurmJobs.check`` does for a lost job with no replacement left."""

    def check(self, workers: int) -> None:
        raise ClusterError("Slurm job 8 lost its node (NODE_FAIL, ...); no replacement is left")


def test_a_watch_that_gives_up_while_a_result_is_fetched_stops_the_batch(lost_result):
    """The batch stops with the watch's line, not a grader error for the student whose result
    was being fetched (the line was lost, and the batch waited out pending_timeout)."""
    cluster, client, future = lost_result
    with pytest.raises(ClusterError, match="NODE_FAIL"):
        executor.fetch(future, client, GivingUp(), "twice")
    failing = client.submit(int, "not a number", pure=False)
    cluster.scale(1)
    assert executor.fetch(failing, client, Replacing(cluster), "twice") == (
        None, "ValueError: invalid literal for int() with base 10: 'not a number'")
