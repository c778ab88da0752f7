"""Course roots of H2's sample submissions for the tests that grade a few students, and the
limits and batch options they grade with (fast: a sample's cells end in well under a second)."""

from __future__ import annotations

from pathlib import Path

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


def fast_options() -> BatchOptions:
    """Two grading processes, no progress bar, the fast limits."""
    return BatchOptions(jobs=2, progress=False, limits=FAST_LIMITS)
