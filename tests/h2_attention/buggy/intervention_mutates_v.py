"""Writes the new value row into the caller's V (results are right, the input is damaged)."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "value_intervention"
EXPECTED_DIAGNOSIS = "intervention_mutates_v"
ALSO_AFFECTS = set()


def value_intervention(Q, K, V, index, new_value, mask=None):
    V = np.asarray(V)
    n_k = V.shape[-2]
    if not -n_k <= index < n_k:
        raise IndexError(f"index {index} is out of range")
    context_before, weights_before = scaled_dot_product_attention(Q, K, V, mask=mask)
    V[..., index, :] = new_value  # BUG: modifies the caller's array
    context_after, weights_after = scaled_dot_product_attention(Q, K, V, mask=mask)
    return {
        "weights_before": weights_before,
        "weights_after": weights_after,
        "context_before": context_before,
        "context_after": context_after,
    }
