"""Scores without the 1/sqrt(d_k) scaling."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "attention_scores"
EXPECTED_DIAGNOSIS = "scale_missing"
ALSO_AFFECTS = set()


def attention_scores(Q, K, scale=None):
    Q, K = np.asarray(Q), np.asarray(K)
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError("d_k mismatch")
    scores = Q @ np.swapaxes(K, -1, -2)
    return scores if scale is None else scores * scale  # BUG: no default scaling
