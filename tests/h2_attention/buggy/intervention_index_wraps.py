"""Makes negative indexes work with ``index % n_k``: an index past the end wraps to key 0."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "value_intervention"
EXPECTED_DIAGNOSIS = None
ALSO_AFFECTS = set()


def value_intervention(Q, K, V, index, new_value, mask=None):
    V = np.asarray(V)
    index = index % V.shape[-2]  # BUG: no IndexError for an index outside the keys
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
