"""Roles swapped: queries from the encoder, keys and values from the decoder."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "cross_attention"
EXPECTED_DIAGNOSIS = "cross_queries_from_encoder"
ALSO_AFFECTS = set()


def cross_attention(X_dec, X_enc, W_q, W_k, W_v, mask=None):
    X_dec, X_enc = np.asarray(X_dec), np.asarray(X_enc)
    Q = X_enc @ W_q  # BUG: the decoder asks the questions, the encoder answers
    K = X_dec @ W_k
    V = X_dec @ W_v
    return scaled_dot_product_attention(Q, K, V, mask=mask)
