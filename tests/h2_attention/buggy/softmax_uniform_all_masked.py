"""Fills masked scores with -1e9: an all-masked row silently becomes uniform."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "stable_softmax"
EXPECTED_DIAGNOSIS = "all_masked_uniform"
ALSO_AFFECTS = set()


def stable_softmax(scores, mask=None, temperature=1.0):
    scores = np.asarray(scores)
    if not np.issubdtype(scores.dtype, np.floating):
        scores = scores.astype(np.float64)
    if not (np.isscalar(temperature) and np.isfinite(temperature) and temperature > 0):
        raise ValueError(f"temperature must be a finite number > 0, got {temperature!r}")
    if mask is not None:
        scores = np.where(mask, scores, -1e9)  # BUG: finite fill instead of a real block
    row_max = scores.max(axis=-1, keepdims=True)
    exps = np.exp((scores - row_max) / temperature)
    return exps / exps.sum(axis=-1, keepdims=True)
