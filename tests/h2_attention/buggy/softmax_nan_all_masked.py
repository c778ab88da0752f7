"""Returns NaN for a row where every key is masked instead of raising."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "stable_softmax"
EXPECTED_DIAGNOSIS = "all_masked_nan"
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
    safe = np.where(allowed, scores, -np.inf)
    row_max = safe.max(axis=-1, keepdims=True)
    exps = np.exp((safe - row_max) / temperature)  # BUG: empty rows give 0/0 = NaN
    return exps / exps.sum(axis=-1, keepdims=True)
