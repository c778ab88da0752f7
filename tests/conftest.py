"""The test session is a grader process: it starts as one (``autograder.startup``), so the
tests import what the grader's commands import, as fast.

Fixtures here are the ones tests of several folders use; a folder's own are in its
``conftest.py``."""

from __future__ import annotations

import pytest

from autograder.startup import prepare_process

prepare_process()


@pytest.fixture
def options():
    """Batch options for a few sample submissions: two grading processes, fast limits."""
    from tests.support.courses import fast_options

    return fast_options()


@pytest.fixture
def course_factory():
    """``course_factory(root, {student: variant})`` builds a course root of H2's samples."""
    from tests.support.courses import make_course

    return make_course


@pytest.fixture(scope="session")
def graded_sample_cohort(tmp_path_factory: pytest.TempPathFactory):
    """H2's sample cohort (one student of each kind, ``make demo``'s sixteen) graded with the
    real command line in cohort ``demo-2026`` against its due date, once per test run
    (``tests/support/cohort_scores.py``): a test reads it, or changes a copy of its own
    (``tests.support.shared_roots.copy_of``)."""
    from tests.support.cohort_scores import grade_sample_cohort
    from tests.support.shared_roots import made_once

    return made_once(tmp_path_factory, "graded-sample-cohort", grade_sample_cohort)

