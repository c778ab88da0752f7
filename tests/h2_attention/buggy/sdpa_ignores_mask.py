"""Forgets to pass the mask on to the softmax: masked keys keep weight, no row is ever empty."""
# ruff: noqa: F403, F405
from solutions.attention import *

EXPECTED_PART = "scaled_dot_product_attention"
EXPECTED_DIAGNOSIS = None
ALSO_AFFECTS = set()  # the intervention passes its mask on correctly: carried forward


def scaled_dot_product_attention(Q, K, V, mask=None, scale=None, temperature=1.0):
    scores = attention_scores(Q, K, scale=scale)
    weights = stable_softmax(scores, temperature=temperature)  # BUG: mask=mask is missing
    return attention_context(weights, V), weights
