"""Course roots with a few sample submissions, for the batch-level tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.batch.engine import BatchOptions
from autograder.bundles.h2_attention.samples import VARIANTS, build_submission
from autograder.sandbox.limits import Limits

FAST_LIMITS = Limits(cell_timeout=5, call_timeout=3, notebook_timeout=30)


def make_course(root: Path, variants: dict[str, str]) -> Path:
    """``variants``: student id -> sample variant name."""
    by_name = {variant.name: variant for variant in VARIANTS}
    for student, name in variants.items():
        build_submission(root, student, by_name[name])
    return root


@pytest.fixture
def options() -> BatchOptions:
    return BatchOptions(jobs=2, progress=False, limits=FAST_LIMITS)


@pytest.fixture
def course_factory():
    """``course_factory(root, {student: variant})`` builds a course root."""
    return make_course
