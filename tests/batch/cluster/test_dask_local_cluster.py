"""A Dask LocalCluster of 2 worker processes grades a cohort exactly as the local pool does:
every results.json (scores, statuses, messages, hashes; timings aside), every
feedback.html byte for byte, and grades.csv. Its workers are not daemonic and may start
processes; no grading session outlives the batch; a re-run skips what is done."""

from __future__ import annotations

import csv
import multiprocessing
import os
from dataclasses import replace

import psutil
import pytest

from autograder.base.course import Course
from autograder.batch.cluster.choice import DASK_LOCAL, ClusterChoice
from autograder.batch.cluster.executor import connect
from autograder.batch.engine import BatchOptions, grade_course
from tests.support.dask_cluster import FAST_LIMITS, saved
from tests.support.h2 import SPEC

pytestmark = pytest.mark.slow

ROSTER = {
    "a-correct": "correct",
    "b-wrong-axis": "softmax_wrong_axis",
    "c-context-argmax": "context_argmax",
    "d-broken": "broken_notebook",
    "e-no-evidence": "no_evidence",
    "f-reads-reference": "reads_reference",
    "h-linked-evidence": "correct",
}
# Not the infinite loop: it would add ~25 s to each run here (it waits out its limits);
# the killed-worker test grades it on Dask and checks its message.
DUE = "2026-12-14 23:59:00+00:00"


def _child_exit_code() -> int | None:
    child = multiprocessing.get_context("spawn").Process(target=os.getpid)
    child.start()
    child.join()
    return child.exitcode


def zygotes_of_this_process() -> list[psutil.Process]:
    return [p for p in psutil.Process().children(recursive=True)
            if "autograder.untrusted.zygote" in " ".join(p.cmdline())]


def test_a_local_cluster_grades_as_the_local_pool(tmp_path, course_factory, course_copy):
    from datetime import datetime

    source = course_factory(tmp_path / "source", ROSTER)
    evidence = source / "submitted" / "h-linked-evidence" / SPEC.name / SPEC.evidence_file
    evidence.unlink()
    evidence.symlink_to("/etc/passwd")  # refused unread, with the same message on a worker
    (evidence.parent / "timestamp.txt").write_text("2026-12-15 08:00:00 UTC")  # late
    pool_root, dask_root = tmp_path / "pool", tmp_path / "dask"
    course_copy(source, pool_root, dask_root)
    options = BatchOptions(jobs=2, progress=False, limits=FAST_LIMITS,
                           due=datetime.fromisoformat(DUE))
    pool = grade_course(Course(pool_root, SPEC.name), options=options)
    on_dask = replace(options, cluster=ClusterChoice(DASK_LOCAL, workers=2))
    dask = grade_course(Course(dask_root, SPEC.name), options=on_dask)

    assert sorted(dask.graded) == sorted(ROSTER) and dask.skipped == []
    assert [r.student for r in dask.results] == [r.student for r in pool.results]
    for student in ROSTER:
        pool_json, pool_page = saved(pool_root, student)
        dask_json, dask_page = saved(dask_root, student)
        assert dask_json == pool_json, student
        assert dask_page == pool_page, student
    with (pool_root / "grades.csv").open() as a, (dask_root / "grades.csv").open() as b:
        assert list(csv.DictReader(a)) == list(csv.DictReader(b))
    scores = {r.student: r.score for r in dask.results}
    assert scores["a-correct"] == 100 and scores["b-wrong-axis"] < 100
    by_student = {r.student: r for r in dask.results}
    assert by_student["d-broken"].status == "ungradable"
    assert by_student["h-linked-evidence"].late and "symbolic link" in str(
        saved(dask_root, "h-linked-evidence")[0])
    assert "<path>" in str(saved(dask_root, "f-reads-reference")[0])  # redacted, as locally
    assert zygotes_of_this_process() == [], "a grading session outlived the batch"

    again = grade_course(Course(dask_root, SPEC.name), options=on_dask)
    assert again.graded == [] and sorted(again.skipped) == sorted(ROSTER)


def test_the_workers_are_not_daemonic_and_may_start_processes():
    """Dask runs workers as daemonic processes unless told otherwise; ours are told."""
    with connect(ClusterChoice(DASK_LOCAL, workers=1)) as client:
        daemonic = client.run(lambda: multiprocessing.current_process().daemon)
        assert list(daemonic.values()) == [False]
        assert client.submit(_child_exit_code, pure=False).result(timeout=60) == 0
