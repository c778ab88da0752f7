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
