"""Every formula a docstring gives the student holds as written, on batched shapes (issue 30).

A docstring of the reference (copied into the notebook's solution cells, so the student
reads it) may state a formula in double backticks. Each such formula is evaluated here,
with the text exactly as the docstring has it, on inputs with batch and head dimensions
and distinct sizes, and compared with what the reference function returns. A formula
written in mathematical notation (not Python) has its Python reading next to it.

``value_intervention``'s formula once read ``weights[..., :, index] * (new_value -
V[..., index, :])``: it multiplies ``(..., n_q)`` by ``(..., d_v)`` and only worked
because the hand example has one query. This test would have caught it.
"""

from __future__ import annotations

import ast
import inspect
import math
import re
from collections.abc import Callable

import numpy as np
import pytest

import solutions
from solutions import attention

B, H, NQ, NK, DK, DV, HIDDEN = 2, 3, 5, 7, 9, 4, 6  # all distinct: a mixed-up axis shows
RNG_SEED = 30


def formulas_of(function: Callable) -> list[str]:
    """The double-backticked spans of ``function``'s docstring that are formulas: Python
    with an operation, a comparison, an index or a call in it, or notation with an ``=``."""
    found = []
    for span in re.findall(r"``(.+?)``", inspect.getdoc(function) or "", flags=re.S):
        text = " ".join(span.split())
        try:
            tree = ast.parse(text)
        except SyntaxError:
            if "=" in text:
                found.append(text)
            continue
        operations = (ast.BinOp, ast.Compare, ast.Subscript, ast.Call)
        if any(isinstance(node, operations) for node in ast.walk(tree)):
            found.append(text)
    return found


def rng() -> np.random.Generator:
    return np.random.default_rng(RNG_SEED)


def evaluate(formula: str, namespace: dict) -> object:
    """``formula`` as written: an expression's value, or the namespace after an assignment."""
    scope = {"np": np, "sqrt": math.sqrt, **namespace}
    try:
        return eval(formula, scope)  # noqa: S307 - our own docstrings
    except SyntaxError:
        exec(formula, scope)  # noqa: S102
        return scope


def batched_qkv() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r = rng()
    return (r.standard_normal((B, H, NQ, DK)), r.standard_normal((B, H, NK, DK)),
            r.standard_normal((B, H, NK, DV)))


def check_attention_scores(formula: str) -> None:
    Q, K, _ = batched_qkv()
    if formula.startswith("S ="):
        got = evaluate(formula, {"Q": Q, "K": K, "scale": 0.3})["S"]
        np.testing.assert_allclose(got, attention.attention_scores(Q, K, scale=0.3))
    elif formula.startswith("np.swapaxes"):
        swapped = evaluate(formula, {"K": K})
        assert swapped.shape == (B, H, DK, NK)
        np.testing.assert_array_equal(swapped[1, 2], K[1, 2].T)  # each matrix transposed
    else:  # the default scale
        scale = evaluate(formula, {"d_k": DK})
        np.testing.assert_allclose(attention.attention_scores(Q, K),
                                   attention.attention_scores(Q, K, scale=scale))


def check_additive_scores(formula: str) -> None:
    assert formula == "s_ij = w_v . tanh(q_i W_q + k_j W_k)"
    r = rng()
    Q, K = r.standard_normal((B, H, NQ, 3)), r.standard_normal((B, H, NK, DK))
    W_q, W_k, w_v = r.standard_normal((3, HIDDEN)), r.standard_normal((DK, HIDDEN)), r.standard_normal(HIDDEN)
    scores = attention.additive_scores(Q, K, W_q, W_k, w_v)
    assert scores.shape == (B, H, NQ, NK)
    for i, j in ((0, 0), (NQ - 1, NK - 1), (2, 5)):
        # The notation read as Python: q_i = Q[..., i, :], k_j = K[..., j, :], "." = a dot product.
        s_ij = np.tanh(Q[..., i, :] @ W_q + K[..., j, :] @ W_k) @ w_v
        np.testing.assert_allclose(scores[..., i, j], s_ij)


def check_causal_mask(formula: str) -> None:
    i, j = np.indices((NQ, NK))
    np.testing.assert_array_equal(evaluate(formula, {"i": i, "j": j}), attention.causal_mask(NQ, NK))


def check_padding_mask(formula: str) -> None:
    lengths = np.array([3, 0, NK])
    mask = attention.padding_mask(lengths, NK)
    if formula == "lengths[b]":
        for b in range(len(lengths)):
            assert mask[b].sum() == evaluate(formula, {"lengths": lengths, "b": b})
    else:
        position, length = np.arange(NK)[None, :], lengths[:, None]
        np.testing.assert_array_equal(evaluate(formula, {"position": position, "length": length}), mask)


def check_attention_context(formula: str) -> None:
    r = rng()
    weights = attention.stable_softmax(r.standard_normal((B, H, NQ, NK)))
    V = r.standard_normal((B, H, NK, DV))
    got = evaluate(formula, {"weights": weights, "V": V})
    assert got.shape == (B, H, NQ, DV)
    np.testing.assert_allclose(got, attention.attention_context(weights, V))


def projections(formulas: list[str], X_dec: np.ndarray, X_enc: np.ndarray, W: dict) -> dict:
    """Q, K and V as the docstring's three assignments compute them."""
    names = {}
    for formula in formulas:
        names.update({key: value for key, value in evaluate(formula, {"X": X_dec, "X_dec": X_dec,
                                                                     "X_enc": X_enc, **W}).items()
                      if key in ("Q", "K", "V")})
    return names


def check_self_attention(formula: str) -> None:
    r = rng()
    X = r.standard_normal((B, NQ, 8))
    W = {"W_q": r.standard_normal((8, DK)), "W_k": r.standard_normal((8, DK)),
         "W_v": r.standard_normal((8, DV))}
    mask = attention.causal_mask(NQ)
    name = formula.split(" =")[0]
    computed = projections([formula], X, X, W)[name]
    context, weights = attention.self_attention(X, W["W_q"], W["W_k"], W["W_v"], mask=mask)
    parts = {"Q": X @ W["W_q"], "K": X @ W["W_k"], "V": X @ W["W_v"], name: computed}
    want_context, want_weights = attention.scaled_dot_product_attention(parts["Q"], parts["K"], parts["V"], mask=mask)
    np.testing.assert_allclose(weights, want_weights)
    np.testing.assert_allclose(context, want_context)


def check_cross_attention(formula: str) -> None:
    r = rng()
    X_dec, X_enc = r.standard_normal((B, NQ, 8)), r.standard_normal((B, NK, 6))
    W = {"W_q": r.standard_normal((8, DK)), "W_k": r.standard_normal((6, DK)),
         "W_v": r.standard_normal((6, DV))}
    padding = attention.padding_mask([NK, 2], NK)
    if formula.startswith("mask["):
        mask = evaluate(formula, {"mask": padding})
        assert mask.shape == (B, 1, NK)
        _, weights = attention.cross_attention(X_dec, X_enc, *W.values(), mask=mask)
        _, want = attention.cross_attention(X_dec, X_enc, *W.values(),
                                            mask=np.broadcast_to(padding[:, None, :], (B, NQ, NK)))
        np.testing.assert_allclose(weights, want)
        return
    name = formula.split(" =")[0]
    parts = {"Q": X_dec @ W["W_q"], "K": X_enc @ W["W_k"], "V": X_enc @ W["W_v"]}
    parts[name] = projections([formula], X_dec, X_enc, W)[name]
    context, weights = attention.cross_attention(X_dec, X_enc, *W.values())
    want_context, want_weights = attention.scaled_dot_product_attention(*parts.values())
    np.testing.assert_allclose(weights, want_weights)
    np.testing.assert_allclose(context, want_context)


def check_torch_sdpa(formula: str) -> None:
    Q, K, V = batched_qkv()
    scale = evaluate(formula, {"d_k": DK})
    np.testing.assert_allclose(solutions.torch_sdpa(Q, K, V), solutions.torch_sdpa(Q, K, V, scale=scale))


@pytest.mark.parametrize("index", [1, -1, NK - 2])
def test_value_interventions_formulas_hold_with_batch_and_head_dimensions(index):
    Q, K, V = batched_qkv()
    new_value = rng().standard_normal(DV)
    mask = attention.combine_masks(attention.causal_mask(NQ, NK), attention.padding_mask([NK, NK], NK))[:, None]
    result = attention.value_intervention(Q, K, V, index, new_value, mask=mask)
    [row, move] = formulas_of(attention.value_intervention)
    # ``V[..., index, :]`` is the row that is replaced
    changed = V.copy()
    changed[..., index, :] = new_value
    assert evaluate(row, {"V": V, "index": index}).shape == (B, H, DV)
    want_context, _ = attention.scaled_dot_product_attention(Q, K, changed, mask=mask)
    np.testing.assert_allclose(result["context_after"], want_context)
    # the context moves by the formula, of the shape the docstring gives
    moved = evaluate(move, {"weights": result["weights_before"], "new_value": new_value, "V": V,
                            "index": index})
    assert moved.shape == (B, H, NQ, DV)  # (..., n_q, d_v), as the docstring says
    np.testing.assert_allclose(result["context_after"] - result["context_before"], moved, atol=1e-12)


def test_score_entry_counts_formula():
    [formula] = formulas_of(attention.score_entry_count)
    sizes = {"batch": B, "heads": H, "n_q": NQ, "n_k": NK}
    assert evaluate(formula, sizes) == attention.score_entry_count(NQ, NK, heads=H, batch=B)


CHECKS: dict[str, Callable[[str], None]] = {
    "attention_scores": check_attention_scores,
    "additive_scores": check_additive_scores,
    "causal_mask": check_causal_mask,
    "padding_mask": check_padding_mask,
    "attention_context": check_attention_context,
    "self_attention": check_self_attention,
    "cross_attention": check_cross_attention,
    "torch_sdpa": check_torch_sdpa,
}
# Functions whose formulas have a test of their own above.
OWN_TESTS = {"value_intervention", "score_entry_count"}


@pytest.mark.parametrize("function, formula", [
    (name, formula) for name in CHECKS for formula in formulas_of(getattr(attention, name))
])
def test_each_docstring_formula_holds_on_batched_shapes(function, formula):
    CHECKS[function](formula)


def test_every_function_with_a_formula_has_its_formulas_evaluated():
    with_formulas = {name for name in attention.__all__ if formulas_of(getattr(attention, name))}
    assert with_formulas == set(CHECKS) | OWN_TESTS


def test_the_formula_finder_sees_the_shapes_that_once_did_not_broadcast():
    """The old value_intervention formula, evaluated as the test does, fails on a batch."""
    old = "weights[..., :, index] * (new_value - V[..., index, :])"
    Q, K, V = batched_qkv()
    weights = attention.stable_softmax(attention.attention_scores(Q, K))
    with pytest.raises(ValueError, match="broadcast"):
        evaluate(old, {"weights": weights, "new_value": np.zeros(DV), "V": V, "index": 1})
