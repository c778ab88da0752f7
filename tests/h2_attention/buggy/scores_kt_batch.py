"""K.T with batch/head dimensions: reverses every axis, not just the last two."""
# ruff: noqa: F403, F405
import math

import numpy as np

from solutions.attention import *

EXPECTED_PART = "attention_scores"
EXPECTED_DIAGNOSIS = "kt_batch_dims"
ALSO_AFFECTS = set()


def attention_scores(Q, K, scale=None):
    Q, K = np.asarray(Q), np.asarray(K)
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError("d_k mismatch")
    if scale is None:
        scale = 1.0 / math.sqrt(Q.shape[-1])
    return (Q @ K.T) * scale  # BUG: K.T
