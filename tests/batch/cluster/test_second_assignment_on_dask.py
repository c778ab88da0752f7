"""A Dask LocalCluster grades an assignment that is not the package's (the `vectors` bundle of
a folder, `--assignments tests/bundles`) exactly as the local pool does: its workers are told
the bundle's name and folder as plain data and load it themselves, never H2."""

from __future__ import annotations

import pytest

from autograder.base.course import Course
from autograder.batch.cluster.choice import DASK_LOCAL, ClusterChoice
from autograder.batch.cluster.worker import GradingSessionPlugin, bundle_folders
from autograder.batch.engine import BatchOptions, grade_course
from tests.support.dask_cluster import FAST_LIMITS, saved
from tests.support.h2 import SPEC as H2
from tests.support.vectors import BUNDLES, REFERENCE, VECTORS, WRONG_NORMALIZE, submit


def test_a_worker_is_told_where_the_bundle_is_as_plain_data():
    assert bundle_folders(H2) == []  # the package's: the worker's installed grader has it
    assert bundle_folders(VECTORS) == [str(BUNDLES.resolve())]
    plugin = GradingSessionPlugin(VECTORS.name, bundle_folders(VECTORS), FAST_LIMITS.to_dict(),
                                  True, False)
    assert plugin.state()["assignment"] == "vectors" and not plugin.state()["ready"]


@pytest.mark.slow
def test_a_folder_bundle_grades_on_dask_as_on_the_local_pool(tmp_path):
    pool, dask = Course(tmp_path / "pool", "vectors"), Course(tmp_path / "dask", "vectors")
    for course in (pool, dask):
        submit(course.root, "s1", REFERENCE)
        submit(course.root, "s2", REFERENCE | {"normalize": WRONG_NORMALIZE})
    options = BatchOptions(jobs=2, progress=False, write_gradebook=False, limits=FAST_LIMITS)
    by_pool = grade_course(pool, options=options, assignment=VECTORS)
    by_dask = grade_course(dask, options=BatchOptions(
        progress=False, write_gradebook=False, limits=FAST_LIMITS,
        cluster=ClusterChoice(DASK_LOCAL, workers=1)), assignment=VECTORS)
    assert [r.score for r in by_dask.results] == [r.score for r in by_pool.results] == [10, 6]
    for student in ("s1", "s2"):
        assert saved(dask.root, student, VECTORS.name) == saved(pool.root, student, VECTORS.name)
        assert saved(dask.root, student, VECTORS.name)[0]["extra_data"]["assignment"] == "vectors"
