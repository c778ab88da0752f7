"""Divides by np.sqrt(d_k), a float64 scalar that turns float32 scores into float64."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "attention_scores"
EXPECTED_DIAGNOSIS = "dtype_not_preserved"
ALSO_AFFECTS = set()


def attention_scores(Q, K, scale=None):
    Q, K = np.asarray(Q), np.asarray(K)
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError("d_k mismatch")
    if scale is None:
        scale = 1.0 / np.sqrt(np.float64(Q.shape[-1]))  # BUG: float64 scalar
    return (Q @ np.swapaxes(K, -1, -2)) * np.float64(scale)
