"""Probes are made once per grading process (issue 17) but every check gets its own copy: a
check that edits its probe (``scores[1] += 1e4``) cannot change what the next check or the next
submission is given."""

from __future__ import annotations

import numpy as np
import pytest

from autograder.bundles.h2_attention.checks import probes

MAKERS = [
    ("normal", lambda: probes.normal(401, 3, 4, scale=2.0)),
    ("mixed_mask", lambda: probes.mixed_mask(402, 3, 4)),
    ("qkv", lambda: probes.qkv(403, (2,))),
]


@pytest.mark.parametrize("name, make", MAKERS, ids=[name for name, _ in MAKERS])
def test_an_edited_probe_does_not_change_the_next_one(name, make):
    first = make()
    arrays = first if isinstance(first, tuple) else (first,)
    kept = [array.copy() for array in arrays]
    for array in arrays:
        array[...] = 0  # what a check may do to its own copy
    again = make()
    for before, now in zip(kept, again if isinstance(again, tuple) else (again,), strict=True):
        np.testing.assert_array_equal(now, before)
        assert now.flags.writeable


def test_probes_are_what_their_seed_gives():
    np.testing.assert_array_equal(
        probes.normal(404, 2, 3, scale=3.0), np.random.default_rng(404).standard_normal((2, 3)) * 3.0
    )
    Q, K, V = probes.qkv(405, n_q=2, n_k=3, d_k=4, d_v=5, dtype=np.float32)
    rng = np.random.default_rng(405)
    for got, shape in zip((Q, K, V), [(2, 4), (3, 4), (3, 5)], strict=True):
        np.testing.assert_array_equal(got, rng.standard_normal(shape).astype(np.float32))
