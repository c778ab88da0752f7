"""A Dask worker runs the same sandbox: a notebook of stubs whose last cell imports the
reference or reads the grader's files scores exactly what the same stubs score (issue 25,
item 3; a Dask worker of a non-editable install: ``tests/end_to_end/test_pip_install.py``)."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest

from autograder.base.course import Course
from autograder.batch.cluster.choice import DASK_LOCAL, ClusterChoice
from autograder.batch.engine import BatchOptions, grade_course
from autograder.spec import REPO
from tests.support.dask_cluster import FAST_LIMITS
from tests.support.h2 import SPEC
from tests.support.reference_attack import DISTRIBUTION, write_stubs

pytestmark = pytest.mark.slow


def test_a_dask_worker_shows_nothing_of_the_grader(tmp_path):
    site = Path(sysconfig.get_paths()["purelib"])
    reference = [str(REPO / "solutions" / "attention.py"),
                 str(REPO / "autograder" / "bundles" / "h2_attention" / "checks" / "test_softmax.py"),
                 *(str(p) for p in site.glob(f"__editable__*{DISTRIBUTION}*"))]
    root = tmp_path / "course"
    write_stubs(root / "submitted" / "a-stubs" / SPEC.name, "a-stubs")
    write_stubs(root / "submitted" / "b-takes-reference" / SPEC.name, "b-takes-reference",
                reference)
    options = BatchOptions(progress=False, limits=FAST_LIMITS,
                           cluster=ClusterChoice(DASK_LOCAL, workers=1))
    summary = grade_course(Course(root, SPEC.name), options=options)
    by_student = {result.student: result for result in summary.results}
    stubs, taker = by_student["a-stubs"], by_student["b-takes-reference"]
    assert stubs.score < SPEC.total_points
    assert taker.score == stubs.score
    assert [(p.part, p.points) for p in taker.parts] == [(p.part, p.points) for p in stubs.parts]
    assert "minimal-root" in taker.isolation, taker.isolation
