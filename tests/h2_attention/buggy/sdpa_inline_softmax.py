"""Computes the weights inline instead of calling stable_softmax: a fully masked row becomes NaN."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "scaled_dot_product_attention"
EXPECTED_DIAGNOSIS = "all_masked_nan"
ALSO_AFFECTS = set()


def scaled_dot_product_attention(Q, K, V, mask=None, scale=None, temperature=1.0):
    scores = attention_scores(Q, K, scale=scale) / temperature
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    # BUG: its own softmax, without stable_softmax's check: -inf - (-inf) = NaN on an empty row
    exps = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = exps / exps.sum(axis=-1, keepdims=True)
    return attention_context(weights, V), weights
