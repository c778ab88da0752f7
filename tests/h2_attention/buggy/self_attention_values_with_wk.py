"""Copy-paste slip: the values are projected with W_k (V = X W_k), W_v is never used."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "self_attention"
EXPECTED_DIAGNOSIS = "values_projected_with_wk"
ALSO_AFFECTS = set()


def self_attention(X, W_q, W_k, W_v, mask=None):
    X = np.asarray(X)
    Q = X @ W_q
    K = X @ W_k
    V = X @ W_k  # BUG: should be W_v
    return scaled_dot_product_attention(Q, K, V, mask=mask)
