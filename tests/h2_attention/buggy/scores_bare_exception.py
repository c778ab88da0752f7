"""Checks d_k but raises a bare ``Exception`` instead of ``ValueError``."""
# ruff: noqa: F403, F405
import math

import numpy as np

from solutions.attention import *

EXPECTED_PART = "attention_scores"
EXPECTED_DIAGNOSIS = None
ALSO_AFFECTS = set()


def attention_scores(Q, K, scale=None):
    Q, K = np.asarray(Q), np.asarray(K)
    if Q.shape[-1] != K.shape[-1]:
        raise Exception("Q and K must have the same d_k")  # BUG: not a ValueError
    if not np.issubdtype(Q.dtype, np.floating):
        Q = Q.astype(np.float64)
    if scale is None:
        scale = 1.0 / math.sqrt(Q.shape[-1])
    return (Q @ np.swapaxes(K, -1, -2)) * scale
