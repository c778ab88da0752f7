"""Causal mask in nn.MultiheadAttention style: True marks the *blocked* future."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "causal_mask"
EXPECTED_DIAGNOSIS = "mask_inverted"
ALSO_AFFECTS = set()


def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return np.triu(np.ones((n_q, n_k), dtype=bool), k=1)  # BUG: True = blocked
