"""Error carried forward (issue 11): a mistake costs points once, in the part where it lives.

The corpus test already holds every buggy solution to "only its own part loses points";
these tests pin the wording students read and the limits of the rule: an unimplemented
building block is not carried forward, and a block's error that is not the cause is not
blamed.
"""

from __future__ import annotations

import pytest

from tests.support.corpus import grade_source, override_source
from tests.support.said import said

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
        assert scores[part].points == scores[part].max_points, said(scores[part].messages)
    assert any(m.startswith("carried forward from `attention_scores`")
               for m in said(scores["scaled_dot_product_attention"].messages))
    # Their SDPA keeps its points (it only carries the bug forward), so the note on the
    # intervention names where the bug lives, not the function it calls.
    assert any("carried forward from `attention_scores`" in m
               for m in said(scores["value_intervention"].messages)), said(scores["value_intervention"].messages)
    # Each of their SDPA's checks names the block: the note names it once.
    assert said(scores["value_intervention"].messages) == (
        "carried forward from `attention_scores`: your `value_intervention` uses it correctly, "
        "so the bug costs points only in `attention_scores`",
    ), said(scores["value_intervention"].messages)


def test_an_unimplemented_block_costs_the_parts_that_cannot_run_without_it():
    scores = grade_source(override_source(STUB_SCORES))
    assert scores["attention_scores"].points == 0
    sdpa = scores["scaled_dot_product_attention"]
    assert sdpa.points == 0
    assert any("needs your `attention_scores`, which is not implemented yet" in m
               for m in said(sdpa.messages)), said(sdpa.messages)
    assert scores["stable_softmax"].points == scores["stable_softmax"].max_points


def test_a_correct_block_is_not_blamed_for_the_caller_s_bug():
    scores = grade_source(override_source(SDPA_IGNORES_MASK))
    sdpa = scores["scaled_dot_product_attention"]
    assert sdpa.points < sdpa.max_points
    assert not any("The cause is in your `stable_softmax`" in m for m in said(sdpa.messages))
    assert scores["stable_softmax"].points == scores["stable_softmax"].max_points


# ---------------------------------------------------- self- and cross-attention use SDPA

SOFTMAX_OVER_QUERIES = '''
def stable_softmax(scores, mask=None, temperature=1.0):
    scores = np.asarray(scores) / temperature
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    exps = np.exp(scores - scores.max(axis=-2, keepdims=True))
    return exps / exps.sum(axis=-2, keepdims=True)  # BUG: normalised over the queries
'''
OWN_WIRING_BUGS = '''
def self_attention(X, W_q, W_k, W_v, mask=None):
    X = np.asarray(X)
    return scaled_dot_product_attention(X @ W_q, X @ W_k, X @ W_k, mask=mask)  # BUG: V = X W_k


def cross_attention(X_dec, X_enc, W_q, W_k, W_v, mask=None):
    X_dec, X_enc = np.asarray(X_dec), np.asarray(X_enc)
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    causal = causal_mask(Q.shape[-2], K.shape[-2])  # BUG: no causal mask in cross-attention
    return scaled_dot_product_attention(Q, K, V, mask=causal if mask is None else causal & mask)
'''
STUB_SDPA = '''
def scaled_dot_product_attention(Q, K, V, mask=None, scale=None, temperature=1.0):
    raise NotImplementedError()
'''
PROJECTING_PARTS = ("self_attention", "cross_attention")


def test_a_softmax_bug_costs_nothing_in_self_and_cross_attention():
    scores = grade_source(override_source(SOFTMAX_OVER_QUERIES))
    assert scores["stable_softmax"].points < scores["stable_softmax"].max_points
    for part in ("scaled_dot_product_attention", *PROJECTING_PARTS):
        assert scores[part].points == scores[part].max_points, said(scores[part].messages)
    assert any(m.startswith("carried forward from `stable_softmax`")
               for m in said(scores["scaled_dot_product_attention"].messages))
    # The note names where the bug lives (their SDPA only carries it forward and keeps
    # its points), not the function self- and cross-attention call.
    for part in PROJECTING_PARTS:
        assert said(scores[part].messages) == (
            f"carried forward from `stable_softmax`: your `{part}` uses it correctly, so the bug "
            "costs points only in `stable_softmax`",
        ), said(scores[part].messages)


def test_an_sdpa_bug_of_its_own_is_named_in_self_and_cross_attention():
    scores = grade_source(override_source(SDPA_IGNORES_MASK))
    assert scores["scaled_dot_product_attention"].points < scores["scaled_dot_product_attention"].max_points
    for part in PROJECTING_PARTS:
        assert scores[part].points == scores[part].max_points, said(scores[part].messages)
        assert any(m.startswith("carried forward from `scaled_dot_product_attention`: "
                                f"your `{part}` uses it correctly")
                   for m in said(scores[part].messages)), said(scores[part].messages)


def test_a_wiring_bug_of_its_own_still_costs_points_beside_a_softmax_bug():
    scores = grade_source(override_source(SOFTMAX_OVER_QUERIES + OWN_WIRING_BUGS))
    # Their result is not what their own SDPA gives on the right projections: every
    # check of both parts about values fails, none is carried forward. (The float32 check
    # tests the dtype only, which their self-attention keeps: issue 26.)
    for part in PROJECTING_PARTS:
        about_values = [c for c in scores[part].checks if "float32" not in c.name]
        assert about_values and all(c.points == 0 for c in about_values), said(scores[part].messages)
        assert not any("carried forward" in m for m in said(scores[part].messages)), said(scores[part].messages)
        assert not any(c.carried_from for c in scores[part].checks)
    # The same bugs on a correct softmax: each part reports its own misconception.
    alone = grade_source(override_source(OWN_WIRING_BUGS))
    assert "values_projected_with_wk" in alone["self_attention"].diagnoses
    assert "cross_causal_mask" in alone["cross_attention"].diagnoses
    assert alone["stable_softmax"].points == alone["stable_softmax"].max_points


@pytest.mark.parametrize(("stub", "missing"), [(STUB_SDPA, "scaled_dot_product_attention"),
                                               (STUB_SCORES, "attention_scores")], ids=["sdpa", "scores"])
def test_self_and_cross_attention_cannot_run_without_an_implemented_block(stub, missing):
    scores = grade_source(override_source(stub))
    for part in PROJECTING_PARTS:
        assert scores[part].points == 0
        assert any(f"needs your `{missing}`, which is not implemented yet" in m
                   for m in said(scores[part].messages)), said(scores[part].messages)


# ---------------------------------------------- carried forward is a transfer, never a gift

UNDONE = ("scaled_dot_product_attention", "self_attention", "cross_attention", "value_intervention")
STUBS = {
    "not implemented": "raise NotImplementedError()",
    "raises": 'raise ValueError("not done")',
    "constant": "return np.zeros(1)",
}
SIGNATURES = {
    "scaled_dot_product_attention": "Q, K, V, mask=None, scale=None, temperature=1.0",
    "self_attention": "X, W_q, W_k, W_v, mask=None",
    "cross_attention": "X_q, X_kv, W_q, W_k, W_v, mask=None",
    "value_intervention": "Q, K, V, index, new_value, mask=None",
}


def _stubs(body: str, record: str = "") -> str:
    return "\n".join(f"def {name}({SIGNATURES[name]}):\n"
                     + (f"    {record}\n" if record and name == UNDONE[0] else "")
                     + f"    {body}\n" for name in UNDONE)


# attention_scores is right on its own checks, but raises the stubs' error whenever it is
# handed the Q and K the SDPA was given (the attack), or once the SDPA was called.
RECOGNISES_THE_RECHECK = _stubs(STUBS["raises"], record="_SEEN.append(np.array(Q, copy=True))") + \
    """
_SEEN = []
_right_scores = attention_scores
def attention_scores(Q, K, scale=None):
    if any(seen.shape == np.shape(Q) and np.array_equal(seen, Q) for seen in _SEEN):
        raise ValueError("not done")
    return _right_scores(Q, K, scale=scale)
"""
REMEMBERS_THE_CALL = _stubs(STUBS["raises"], record="_SEEN.append(1)") + """
_SEEN = []
_right_scores = attention_scores
def attention_scores(Q, K, scale=None):
    if _SEEN:
        raise ValueError("not done")
    return _right_scores(Q, K, scale=scale)
"""


def _total(scores) -> float:
    return sum(score.points for score in scores.values())


@pytest.fixture(scope="module")
def honest_stubs_total():
    return _total(grade_source(override_source(_stubs(STUBS["not implemented"]))))


@pytest.mark.parametrize("source", [
    _stubs(STUBS["raises"]), _stubs(STUBS["constant"]), RECOGNISES_THE_RECHECK, REMEMBERS_THE_CALL,
], ids=["raising-stubs", "constant-stubs", "scores-recognises-the-recheck", "scores-remembers-the-call"])
def test_unwritten_functions_earn_nothing_by_carry_forward(source, honest_stubs_total):
    scores = grade_source(override_source(source))
    for part in UNDONE:
        assert scores[part].points == 0, (part, said(scores[part].messages))
        assert not any(m.startswith("carried forward") for m in said(scores[part].messages)), said(scores[part].messages)
    assert _total(scores) <= honest_stubs_total


def test_a_carried_pass_whose_block_kept_its_points_says_why_it_is_not_carried():
    scores = grade_source(override_source(RECOGNISES_THE_RECHECK))
    assert scores["attention_scores"].points == scores["attention_scores"].max_points
    assert any("This is not carried forward: your `attention_scores` passes all of its own checks"
               in m for m in said(scores["self_attention"].messages)), said(scores["self_attention"].messages)


def test_a_block_that_fails_differently_on_every_input_still_carries_its_error():
    """Missing keepdims makes every softmax call raise a shape error naming the shapes: an
    honest bug that computes something, charged in `stable_softmax` only."""
    scores = grade_source(override_source('''
def stable_softmax(scores, mask=None, temperature=1.0):
    scores = np.asarray(scores, dtype=float)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    exps = np.exp(scores - scores.max(axis=-1))  # BUG: no keepdims
    return exps / exps.sum(axis=-1, keepdims=True)
'''))
    assert scores["stable_softmax"].points < scores["stable_softmax"].max_points
    sdpa = scores["scaled_dot_product_attention"]
    assert any(m.startswith("carried forward from `stable_softmax`") for m in said(sdpa.messages)), said(sdpa.messages)
