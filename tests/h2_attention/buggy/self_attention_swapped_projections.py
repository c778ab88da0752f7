"""Self-attention with the query and key projections swapped (Q = X W_k, K = X W_q)."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "self_attention"
EXPECTED_DIAGNOSIS = "projections_swapped"
ALSO_AFFECTS = set()


def self_attention(X, W_q, W_k, W_v, mask=None):
    X = np.asarray(X)
    Q = X @ W_k  # BUG: the queries go through the key matrix...
    K = X @ W_q  # ...and the keys through the query matrix
    V = X @ W_v
    return scaled_dot_product_attention(Q, K, V, mask=mask)
