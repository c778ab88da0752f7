"""Row sums without keepdims: broadcast along the wrong axis (fails unless square)."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "stable_softmax"
EXPECTED_DIAGNOSIS = "softmax_missing_keepdims"
ALSO_AFFECTS = set()


def stable_softmax(scores, mask=None, temperature=1.0):
    scores = np.asarray(scores)
    if not np.issubdtype(scores.dtype, np.floating):
        scores = scores.astype(np.float64)
    if not temperature > 0:
        raise ValueError("temperature must be > 0")
    allowed = ~np.isneginf(scores)
    if mask is not None:
        allowed = allowed & np.asarray(mask)
    scores, allowed = np.broadcast_arrays(scores, allowed)
    if not allowed.any(axis=-1).all():
        raise ValueError(f"row {np.argwhere(~allowed.any(axis=-1))[0].tolist()} has no permitted key")
    safe = np.where(allowed, scores, -np.inf)
    exps = np.exp((safe - safe.max(axis=-1, keepdims=True)) / temperature)
    return exps / exps.sum(axis=-1)  # BUG: no keepdims
