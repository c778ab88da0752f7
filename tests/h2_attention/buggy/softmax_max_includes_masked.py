"""Takes each row's maximum over all its entries, blocked ones included (issue 25)."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "stable_softmax"
EXPECTED_DIAGNOSIS = "softmax_max_includes_masked"
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
    row_max = np.where(np.isneginf(scores), -np.inf, scores).max(axis=-1, keepdims=True)  # BUG: blocked too
    exps = np.where(allowed, np.exp((scores - row_max) / temperature), 0.0)
    return exps / exps.sum(axis=-1, keepdims=True)
