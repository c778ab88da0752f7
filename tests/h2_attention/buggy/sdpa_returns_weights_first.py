"""Returns ``(weights, context)``: the pair in the wrong order (context comes first)."""
# ruff: noqa: F403, F405
from solutions.attention import *

EXPECTED_PART = "scaled_dot_product_attention"
EXPECTED_DIAGNOSIS = "sdpa_pair_order"
ALSO_AFFECTS = set()  # the intervention unpacks it the same way: carried forward


def scaled_dot_product_attention(Q, K, V, mask=None, scale=None, temperature=1.0):
    scores = attention_scores(Q, K, scale=scale)
    weights = stable_softmax(scores, mask=mask, temperature=temperature)
    context = attention_context(weights, V)
    return weights, context  # BUG: the order is (context, weights)
