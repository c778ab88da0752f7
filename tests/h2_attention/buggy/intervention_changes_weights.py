"""Treats keys and values as one vector: replaces the key row too, so the weights change."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "value_intervention"
EXPECTED_DIAGNOSIS = "intervention_changes_weights"
ALSO_AFFECTS = set()


def value_intervention(Q, K, V, index, new_value, mask=None):
    V = np.asarray(V)
    K = np.asarray(K)
    if not -V.shape[-2] <= index < V.shape[-2]:
        raise IndexError(f"index {index} is out of range")
    context_before, weights_before = scaled_dot_product_attention(Q, K, V, mask=mask)
    V_after, K_after = V.copy(), K.copy()
    V_after[..., index, :] = new_value
    K_after[..., index, :] = np.resize(new_value, K.shape[-1])  # BUG: the key moves too
    context_after, weights_after = scaled_dot_product_attention(Q, K_after, V_after, mask=mask)
    return {
        "weights_before": weights_before,
        "weights_after": weights_after,
        "context_before": context_before,
        "context_after": context_after,
    }
