"""Causal mask aligned to the bottom-right corner when n_q != n_k."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "causal_mask"
EXPECTED_DIAGNOSIS = "causal_bottom_right"
ALSO_AFFECTS = set()


def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q)  # BUG: bottom-right aligned
