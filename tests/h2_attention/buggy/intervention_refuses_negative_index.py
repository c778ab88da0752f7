"""A defensive ``0 <= index < n_k`` that refuses negative indexes (-1 is the last key)."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "value_intervention"
EXPECTED_DIAGNOSIS = None
ALSO_AFFECTS = set()


def value_intervention(Q, K, V, index, new_value, mask=None):
    V = np.asarray(V)
    n_k = V.shape[-2]
    if not 0 <= index < n_k:  # BUG: Python counts -1 from the end
        raise IndexError(f"index {index} is out of range for {n_k} value rows")
    context_before, weights_before = scaled_dot_product_attention(Q, K, V, mask=mask)
    V_after = V.copy()
    V_after[..., index, :] = new_value
    context_after, weights_after = scaled_dot_product_attention(Q, K, V_after, mask=mask)
    return {
        "weights_before": weights_before,
        "weights_after": weights_after,
        "context_before": context_before,
        "context_after": context_after,
    }
