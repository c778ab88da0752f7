"""Cross-attention whose keys and values come from the decoder (self-attention on X_dec)."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "cross_attention"
EXPECTED_DIAGNOSIS = "cross_kv_from_decoder"
ALSO_AFFECTS = set()


def cross_attention(X_dec, X_enc, W_q, W_k, W_v, mask=None):
    X_dec = np.asarray(X_dec)
    Q = X_dec @ W_q
    K = X_dec @ W_k  # BUG: keys and values must come from the encoder
    V = X_dec @ W_v
    return scaled_dot_product_attention(Q, K, V, mask=mask)
