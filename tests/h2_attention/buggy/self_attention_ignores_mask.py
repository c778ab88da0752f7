"""Never passes the mask on: a decoder's causal mask has no effect."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "self_attention"
EXPECTED_DIAGNOSIS = None
ALSO_AFFECTS = set()


def self_attention(X, W_q, W_k, W_v, mask=None):
    X = np.asarray(X)
    return scaled_dot_product_attention(X @ W_q, X @ W_k, X @ W_v)  # BUG: mask dropped
