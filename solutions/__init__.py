"""Reference solution of the H2 attention assignment (trusted side only; never released)."""

from solutions.attention import (
    additive_scores,
    attention_context,
    attention_scores,
    causal_mask,
    combine_masks,
    cross_attention,
    padding_mask,
    scaled_dot_product_attention,
    score_entry_count,
    self_attention,
    stable_softmax,
    torch_sdpa,
    value_intervention,
)

__all__ = [
    "attention_scores",
    "additive_scores",
    "stable_softmax",
    "causal_mask",
    "padding_mask",
    "combine_masks",
    "attention_context",
    "scaled_dot_product_attention",
    "self_attention",
    "cross_attention",
    "torch_sdpa",
    "value_intervention",
    "score_entry_count",
]
