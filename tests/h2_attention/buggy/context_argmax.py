"""Hard retrieval: returns the value row with the largest weight instead of the weighted sum."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "attention_context"
EXPECTED_DIAGNOSIS = "argmax_not_weighted_sum"
ALSO_AFFECTS = set()


def attention_context(weights, V):
    weights, V = np.asarray(weights), np.asarray(V)
    if weights.shape[-1] != V.shape[-2]:
        raise ValueError("n_k mismatch")
    best = np.argmax(weights, axis=-1)[..., None]  # BUG: one row, not a weighted average
    V = np.broadcast_to(V, weights.shape[:-2] + V.shape[-2:])
    return np.take_along_axis(V, best, axis=-2)
