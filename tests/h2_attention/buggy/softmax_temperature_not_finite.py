"""Refuses a temperature <= 0 but accepts inf and NaN (issue 25): the docstring says "a
temperature that is not a finite number > 0 raises ValueError"."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "stable_softmax"
EXPECTED_DIAGNOSIS = None
ALSO_AFFECTS = set()


def stable_softmax(scores, mask=None, temperature=1.0):
    scores = np.asarray(scores)
    if not np.issubdtype(scores.dtype, np.floating):
        scores = scores.astype(np.float64)
    if temperature <= 0:  # BUG: inf passes, and so does NaN (every comparison with NaN is False)
        raise ValueError(f"temperature must be > 0, got {temperature!r}")
    allowed = ~np.isneginf(scores)
    if mask is not None:
        allowed = allowed & np.asarray(mask)
    scores, allowed = np.broadcast_arrays(scores, allowed)
    empty_rows = ~allowed.any(axis=-1)
    if empty_rows.any():
        raise ValueError(f"row {np.argwhere(empty_rows)[0].tolist()} has no permitted key")
    safe = np.where(allowed, scores, -np.inf)
    exps = np.exp((safe - safe.max(axis=-1, keepdims=True)) / temperature)
    return exps / exps.sum(axis=-1, keepdims=True)
