"""Modifies V first, so the "before" context already contains the change."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "value_intervention"
EXPECTED_DIAGNOSIS = "intervention_mutates_v"
ALSO_AFFECTS = set()


def value_intervention(Q, K, V, index, new_value, mask=None):
    V = np.array(V)
    if not -V.shape[-2] <= index < V.shape[-2]:
        raise IndexError(f"index {index} is out of range")
    original = V
    original[..., index, :] = new_value  # BUG: "original" is the same array
    context_before, weights_before = scaled_dot_product_attention(Q, K, original, mask=mask)
    context_after, weights_after = scaled_dot_product_attention(Q, K, V, mask=mask)
    return {
        "weights_before": weights_before,
        "weights_after": weights_after,
        "context_before": context_before,
        "context_after": context_after,
    }
