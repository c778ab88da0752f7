"""Adds a causal mask in cross-attention, "because it is the decoder"."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "cross_attention"
EXPECTED_DIAGNOSIS = "cross_causal_mask"
ALSO_AFFECTS = set()


def cross_attention(X_dec, X_enc, W_q, W_k, W_v, mask=None):
    X_dec, X_enc = np.asarray(X_dec), np.asarray(X_enc)
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    causal = causal_mask(Q.shape[-2], K.shape[-2])  # BUG: the encoder's sequence is all known
    mask = causal if mask is None else causal & mask
    return scaled_dot_product_attention(Q, K, V, mask=mask)
