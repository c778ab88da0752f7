"""Scores divided by d_k instead of sqrt(d_k)."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "attention_scores"
EXPECTED_DIAGNOSIS = "scale_by_dk"
ALSO_AFFECTS = set()


def attention_scores(Q, K, scale=None):
    Q, K = np.asarray(Q), np.asarray(K)
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError("d_k mismatch")
    if scale is None:
        scale = 1.0 / Q.shape[-1]  # BUG: 1/d_k
    return (Q @ np.swapaxes(K, -1, -2)) * scale
