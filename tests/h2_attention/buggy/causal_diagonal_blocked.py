"""Causal mask off by one: the diagonal is blocked (np.tril(..., k=-1))."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "causal_mask"
EXPECTED_DIAGNOSIS = "causal_off_by_one"
ALSO_AFFECTS = set()


def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return np.tril(np.ones((n_q, n_k), dtype=bool), k=-1)  # BUG: a token cannot see itself
