"""Additive scores without the tanh non-linearity."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "additive_scores"
EXPECTED_DIAGNOSIS = "additive_no_tanh"
ALSO_AFFECTS = set()


def additive_scores(Q, K, W_q, W_k, w_v):
    Q, K, W_q, W_k, w_v = (np.asarray(x) for x in (Q, K, W_q, W_k, w_v))
    hidden = (Q @ W_q)[..., :, None, :] + (K @ W_k)[..., None, :, :]  # BUG: no tanh
    return hidden @ w_v
