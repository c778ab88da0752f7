"""Converts weights and V with dtype=float: float32 inputs give a float64 context."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "attention_context"
EXPECTED_DIAGNOSIS = "dtype_not_preserved"
ALSO_AFFECTS = set()


def attention_context(weights, V):
    weights = np.asarray(weights, dtype=float)  # BUG: always float64
    V = np.asarray(V, dtype=float)
    if V.ndim < 2 or weights.shape[-1] != V.shape[-2]:
        raise ValueError(f"weights have n_k={weights.shape[-1]} columns but V has shape {V.shape}")
    return weights @ V
