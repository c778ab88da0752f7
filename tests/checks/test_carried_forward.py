"""Error carried forward (issue 11): a mistake costs points once, in the part where it lives.

The corpus test already holds every buggy solution to "only its own part loses points";
these tests pin the wording students read and the limits of the rule: an unimplemented
building block is not carried forward, and a block's error that is not the cause is not
blamed.
"""

from __future__ import annotations

from .corpus_support import grade_source, override_source

UNSCALED = '''
def attention_scores(Q, K, scale=None):
    Q, K = np.asarray(Q), np.asarray(K)
    return Q @ np.swapaxes(K, -1, -2)  # BUG: no 1/sqrt(d_k)
'''
STUB_SCORES = '''
def attention_scores(Q, K, scale=None):
    raise NotImplementedError()
'''
SDPA_IGNORES_MASK = '''
def scaled_dot_product_attention(Q, K, V, mask=None, scale=None, temperature=1.0):
    weights = stable_softmax(attention_scores(Q, K, scale=scale), temperature=temperature)
    return attention_context(weights, V), weights  # BUG: the mask is never used
'''


def test_a_scores_bug_is_charged_in_attention_scores_only():
    scores = grade_source(override_source(UNSCALED))
    assert scores["attention_scores"].points < scores["attention_scores"].max_points
    for part in ("scaled_dot_product_attention", "value_intervention"):
        assert scores[part].points == scores[part].max_points, scores[part].messages
    assert any(m.startswith("carried forward from `attention_scores`")
               for m in scores["scaled_dot_product_attention"].messages)
    assert any("carried forward from `scaled_dot_product_attention`" in m
               for m in scores["value_intervention"].messages)


def test_an_unimplemented_block_costs_the_parts_that_cannot_run_without_it():
    scores = grade_source(override_source(STUB_SCORES))
    assert scores["attention_scores"].points == 0
    sdpa = scores["scaled_dot_product_attention"]
    assert sdpa.points == 0
    assert any("needs your `attention_scores`, which is not implemented yet" in m
               for m in sdpa.messages), sdpa.messages
    assert scores["stable_softmax"].points == scores["stable_softmax"].max_points


def test_a_correct_block_is_not_blamed_for_the_caller_s_bug():
    scores = grade_source(override_source(SDPA_IGNORES_MASK))
    sdpa = scores["scaled_dot_product_attention"]
    assert sdpa.points < sdpa.max_points
    assert not any("The cause is in your `stable_softmax`" in m for m in sdpa.messages)
    assert scores["stable_softmax"].points == scores["stable_softmax"].max_points
