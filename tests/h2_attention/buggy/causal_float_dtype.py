"""Right pattern, but a float 0/1 array instead of a Boolean mask."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "causal_mask"
EXPECTED_DIAGNOSIS = "mask_not_boolean"
ALSO_AFFECTS = set()


def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return np.tril(np.ones((n_q, n_k)))  # BUG: float64, not bool
