"""Subtracts one maximum over the whole array instead of each row's maximum."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "stable_softmax"
EXPECTED_DIAGNOSIS = "softmax_global_max"
ALSO_AFFECTS = set()


def stable_softmax(scores, mask=None, temperature=1.0):
    scores = np.asarray(scores)
    if not np.issubdtype(scores.dtype, np.floating):
        scores = scores.astype(np.float64)
    if not (np.isscalar(temperature) and np.isfinite(temperature) and temperature > 0):
        raise ValueError(f"temperature must be a finite number > 0, got {temperature!r}")
    allowed = ~np.isneginf(scores)
    if mask is not None:
        allowed = allowed & np.asarray(mask)
    scores, allowed = np.broadcast_arrays(scores, allowed)
    empty_rows = ~allowed.any(axis=-1)
    if empty_rows.any():
        raise ValueError(f"row {np.argwhere(empty_rows)[0].tolist()} has no permitted key")
    safe = np.where(allowed, scores, -np.inf)
    exps = np.exp((safe - safe.max()) / temperature)  # BUG: global max
    return exps / exps.sum(axis=-1, keepdims=True)
