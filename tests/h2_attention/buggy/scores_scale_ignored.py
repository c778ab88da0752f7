"""Always scales by 1/sqrt(d_k), ignoring an explicit `scale`."""
# ruff: noqa: F403, F405
import math

import numpy as np

from solutions.attention import *

EXPECTED_PART = "attention_scores"
EXPECTED_DIAGNOSIS = "scale_ignored"
ALSO_AFFECTS = set()


def attention_scores(Q, K, scale=None):
    Q, K = np.asarray(Q), np.asarray(K)
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError("d_k mismatch")
    if not np.issubdtype(Q.dtype, np.floating):
        Q = Q.astype(np.float64)
    return (Q @ np.swapaxes(K, -1, -2)) / math.sqrt(Q.shape[-1])  # BUG: `scale` unused
