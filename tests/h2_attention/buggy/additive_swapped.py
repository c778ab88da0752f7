"""Additive scores with the projections swapped (queries through W_k, keys through W_q)."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "additive_scores"
EXPECTED_DIAGNOSIS = "additive_swapped_projections"
ALSO_AFFECTS = set()


def additive_scores(Q, K, W_q, W_k, w_v):
    Q, K, W_q, W_k, w_v = (np.asarray(x) for x in (Q, K, W_q, W_k, w_v))
    hidden = np.tanh((Q @ W_k)[..., :, None, :] + (K @ W_q)[..., None, :, :])  # BUG: swapped
    return hidden @ w_v
