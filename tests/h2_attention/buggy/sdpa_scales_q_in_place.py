"""Scales the caller's Q in place (Q *= 1/sqrt(d_k)) to save work, then asks for unscaled scores."""
# ruff: noqa: F403, F405
import math

import numpy as np

from solutions.attention import *

EXPECTED_PART = "scaled_dot_product_attention"
EXPECTED_DIAGNOSIS = "mutates_input"
# Not carried forward: value_intervention calls this twice with its own Q, so the second
# call sees Q already scaled and the weights really change ("before" != "after").
ALSO_AFFECTS = {"value_intervention"}


def scaled_dot_product_attention(Q, K, V, mask=None, scale=None, temperature=1.0):
    Q = np.asarray(Q)  # no copy
    Q *= 1.0 / math.sqrt(Q.shape[-1]) if scale is None else scale  # BUG: writes into the input
    weights = stable_softmax(attention_scores(Q, K, scale=1.0), mask=mask, temperature=temperature)
    return attention_context(weights, V), weights
