"""Converts Q, K and V with np.asarray(x, dtype=float): float32 inputs come back as float64."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "scaled_dot_product_attention"
EXPECTED_DIAGNOSIS = "dtype_not_preserved"
ALSO_AFFECTS = set()


def scaled_dot_product_attention(Q, K, V, mask=None, scale=None, temperature=1.0):
    Q, K, V = (np.asarray(x, dtype=float) for x in (Q, K, V))  # BUG: float means float64
    scores = attention_scores(Q, K, scale=scale)
    weights = stable_softmax(scores, mask=mask, temperature=temperature)
    return attention_context(weights, V), weights
