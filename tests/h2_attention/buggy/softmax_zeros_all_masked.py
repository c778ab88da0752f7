"""Returns zeros for a row where every key is masked (PyTorch SDPA behaviour) instead of raising."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "stable_softmax"
EXPECTED_DIAGNOSIS = "all_masked_zeros"
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
    safe = np.where(allowed, scores, -np.inf)
    row_max = safe.max(axis=-1, keepdims=True)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)
    exps = np.where(allowed, np.exp((safe - row_max) / temperature), 0.0)
    sums = exps.sum(axis=-1, keepdims=True)
    return exps / np.where(sums == 0, 1.0, sums)  # BUG: an empty row silently becomes zeros
