"""Scaled dot-product attention scaled by 1/sqrt(d_v) instead of 1/sqrt(d_k)."""
# ruff: noqa: F403, F405
import math

import numpy as np

from solutions.attention import *

EXPECTED_PART = "scaled_dot_product_attention"
EXPECTED_DIAGNOSIS = "scale_by_sqrt_dv"
ALSO_AFFECTS = set()


def scaled_dot_product_attention(Q, K, V, mask=None, scale=None, temperature=1.0):
    if scale is None:
        scale = 1.0 / math.sqrt(np.shape(V)[-1])  # BUG: value width
    weights = stable_softmax(attention_scores(Q, K, scale=scale), mask=mask, temperature=temperature)
    return attention_context(weights, V), weights
