"""Projects with X @ W.T, as nn.Linear stores its weight (out, in): shape error unless square."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "self_attention"
EXPECTED_DIAGNOSIS = "projection_transposed"
ALSO_AFFECTS = set()


def self_attention(X, W_q, W_k, W_v, mask=None):
    X, W_q, W_k, W_v = (np.asarray(x) for x in (X, W_q, W_k, W_v))
    Q = X @ W_q.T  # BUG: "like nn.Linear": but these W are (d_model, width)
    K = X @ W_k.T
    V = X @ W_v.T
    return scaled_dot_product_attention(Q, K, V, mask=mask)
