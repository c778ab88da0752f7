"""The reference solution reproduces the lecture and has the properties the checks rely on."""

from __future__ import annotations

import math

import numpy as np
import pytest

import solutions as ref

Q_HAND = np.array([[1.0, 0.0]])
K_HAND = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
V_HAND = np.array([[10.0, 0.0], [0.0, 10.0], [10.0, 10.0]])

# Distractors from ../shared/NOTES-attention.md: what common mistakes produce.
DISTRACTOR_WEIGHTS = {
    "unscaled": [0.422319, 0.155362, 0.422319],
    "scaled by d_k": [0.383652, 0.232697, 0.383652],
}
DISTRACTOR_CONTEXTS = {
    "unscaled": [8.446376, 5.776812],
    "scaled by d_k": [7.673035, 6.163483],
    "argmax": [10.0, 0.0],
}


def readonly(array: np.ndarray) -> np.ndarray:
    array = np.array(array)
    array.flags.writeable = False
    return array


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20261130)


# ---------------------------------------------------------------- hand example


def test_hand_example_raw_and_scaled_scores():
    np.testing.assert_allclose(ref.attention_scores(Q_HAND, K_HAND, scale=1.0), [[1, 0, 1]])
    np.testing.assert_allclose(
        ref.attention_scores(Q_HAND, K_HAND), [[0.707107, 0.0, 0.707107]], atol=5e-7
    )


def test_hand_example_weights_and_context_to_four_decimals():
    context, weights = ref.scaled_dot_product_attention(Q_HAND, K_HAND, V_HAND)
    assert np.round(weights, 4).tolist() == [[0.4011, 0.1978, 0.4011]]
    assert np.round(context, 4).tolist() == [[8.0222, 5.9889]]
    assert weights[0, 1] > 0.19, "a zero score still gets positive weight (exp(0) = 1)"


@pytest.mark.parametrize("name", DISTRACTOR_WEIGHTS)
def test_hand_example_is_not_a_distractor_weight(name):
    _, weights = ref.scaled_dot_product_attention(Q_HAND, K_HAND, V_HAND)
    assert not np.allclose(weights[0], DISTRACTOR_WEIGHTS[name], atol=1e-3)


@pytest.mark.parametrize("name", DISTRACTOR_CONTEXTS)
def test_hand_example_is_not_a_distractor_context(name):
    context, _ = ref.scaled_dot_product_attention(Q_HAND, K_HAND, V_HAND)
    assert not np.allclose(context[0], DISTRACTOR_CONTEXTS[name], atol=1e-3)


def test_value_intervention_on_hand_example():
    result = ref.value_intervention(Q_HAND, K_HAND, V_HAND, 1, np.array([0.0, 20.0]))
    np.testing.assert_array_equal(result["weights_before"], result["weights_after"])
    assert np.round(result["context_after"], 4).tolist() == [[8.0222, 7.9666]]
    change = result["context_after"] - result["context_before"]
    np.testing.assert_allclose(change, [[0.0, 1.977758]], atol=1e-6)
    np.testing.assert_allclose(change, result["weights_before"][:, [1]] * [0.0, 10.0], atol=1e-12)


# ---------------------------------------------------------------- properties


def random_case(rng, batch=(2, 3), n_q=5, n_k=7, d_k=9, d_v=4):
    """Distinct sizes so that no transposition or wrong scale can go unnoticed."""
    return (
        rng.standard_normal((*batch, n_q, d_k)),
        rng.standard_normal((*batch, n_k, d_k)),
        rng.standard_normal((*batch, n_k, d_v)),
    )


def test_shapes_with_batch_dims_and_unequal_sizes(rng):
    Q, K, V = random_case(rng)
    context, weights = ref.scaled_dot_product_attention(Q, K, V)
    assert weights.shape == (2, 3, 5, 7)
    assert context.shape == (2, 3, 5, 4)


def test_scores_match_an_explicit_loop(rng):
    Q, K, _ = random_case(rng)
    scores = ref.attention_scores(Q, K)
    b, h, i, j = 1, 2, 3, 6
    assert scores[b, h, i, j] == pytest.approx(Q[b, h, i] @ K[b, h, j] / 3.0)


def test_rows_sum_to_one_and_blocked_entries_are_exactly_zero(rng):
    Q, K, V = random_case(rng, batch=(2,))
    mask = ref.combine_masks(ref.causal_mask(5, 7), ref.padding_mask([7, 3], 7))
    _, weights = ref.scaled_dot_product_attention(Q, K, V, mask=mask)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, atol=1e-12)
    assert np.all(weights[~mask] == 0.0)
    assert np.all(weights[mask] > 0.0)


def test_softmax_is_shift_invariant_per_row(rng):
    scores = rng.standard_normal((4, 6))
    shifts = rng.standard_normal((4, 1)) * 100
    np.testing.assert_allclose(
        ref.stable_softmax(scores + shifts), ref.stable_softmax(scores), atol=1e-12
    )


def test_permuting_keys_and_values_together_changes_nothing(rng):
    Q, K, V = random_case(rng, batch=())
    order = rng.permutation(K.shape[0])
    context, weights = ref.scaled_dot_product_attention(Q, K, V)
    context_p, weights_p = ref.scaled_dot_product_attention(Q, K[order], V[order])
    np.testing.assert_allclose(context_p, context, atol=1e-12)
    np.testing.assert_allclose(weights_p, weights[:, order], atol=1e-12)


def test_context_lies_in_the_convex_hull_of_values(rng):
    Q, K, V = random_case(rng, batch=())
    context, _ = ref.scaled_dot_product_attention(Q, K, V)
    assert np.all(context <= V.max(axis=0) + 1e-12)
    assert np.all(context >= V.min(axis=0) - 1e-12)


def test_default_scale_is_one_over_sqrt_dk(rng):
    Q, K, _ = random_case(rng, batch=())
    np.testing.assert_allclose(
        ref.attention_scores(Q, K), ref.attention_scores(Q, K, scale=1.0) / math.sqrt(9)
    )


def test_temperature_divides_scores(rng):
    scores = rng.standard_normal((3, 5))
    np.testing.assert_allclose(
        ref.stable_softmax(scores, temperature=0.5), ref.stable_softmax(scores * 2.0), atol=1e-12
    )


@pytest.mark.parametrize("temperature", [0.0, -1.0, float("nan"), float("inf")])
def test_bad_temperature_raises(temperature):
    with pytest.raises(ValueError, match="temperature"):
        ref.stable_softmax(np.zeros((2, 2)), temperature=temperature)


# ---------------------------------------------------------------- numerics


@pytest.mark.parametrize(
    "scores",
    [
        [1000.0, 1001.0, 1002.0],
        [1e4, -1e4, 0.0],
        [-1e4, -1e4 + 1, -1e4 + 2],
        [1e300, -1e300, 0.0],
    ],
)
def test_extreme_scores_give_no_nan(scores):
    weights = ref.stable_softmax(np.array([scores]))
    assert np.all(np.isfinite(weights))
    assert weights.sum() == pytest.approx(1.0)


def test_rows_far_apart_use_their_own_maximum():
    weights = ref.stable_softmax(np.array([[1000.0, 1001.0], [-1000.0, -999.0]]))
    np.testing.assert_allclose(weights[0], weights[1], atol=1e-12)


def test_large_scores_match_the_notes():
    np.testing.assert_allclose(
        ref.stable_softmax(np.array([1000.0, 1001.0, 1002.0])),
        [0.090031, 0.244728, 0.665241],
        atol=5e-7,
    )


def test_minus_inf_scores_get_zero_weight():
    weights = ref.stable_softmax(np.array([[0.0, -np.inf, 1.0]]))
    assert weights[0, 1] == 0.0
    assert weights.sum() == pytest.approx(1.0)


def test_all_masked_row_raises_and_names_the_row():
    mask = np.array([[[True, False], [False, False]]])
    with pytest.raises(ValueError, match=r"row \(0, 1\)"):
        ref.stable_softmax(np.zeros((1, 2, 2)), mask=mask)


def test_all_minus_inf_row_raises():
    with pytest.raises(ValueError, match="row 0"):
        ref.stable_softmax(np.array([[-np.inf, -np.inf]]))


def test_non_boolean_mask_is_refused():
    with pytest.raises(TypeError, match="Boolean"):
        ref.stable_softmax(np.zeros((2, 2)), mask=np.ones((2, 2)))


def test_dtype_is_preserved(rng):
    Q, K, V = (x.astype(np.float32) for x in random_case(rng, batch=(2,)))
    context, weights = ref.scaled_dot_product_attention(Q, K, V)
    assert context.dtype == np.float32 and weights.dtype == np.float32
    assert ref.torch_sdpa(Q, K, V).dtype == np.float32


def test_inputs_are_not_mutated(rng):
    Q, K, V = (readonly(x) for x in random_case(rng, batch=(2,)))
    mask = readonly(ref.combine_masks(ref.causal_mask(5, 7), ref.padding_mask([7, 3], 7)))
    copies = [x.copy() for x in (Q, K, V, mask)]
    ref.scaled_dot_product_attention(Q, K, V, mask=mask)
    ref.value_intervention(Q, K, V, 2, np.ones(4), mask=mask)
    ref.torch_sdpa(Q, K, V, mask=mask)
    ref.additive_scores(
        Q, K, readonly(np.ones((9, 3))), readonly(np.ones((9, 3))), readonly(np.ones(3))
    )
    for before, after in zip(copies, (Q, K, V, mask), strict=True):
        np.testing.assert_array_equal(before, after)


# ---------------------------------------------------------------- masks


def test_causal_mask_top_left_aligned():
    np.testing.assert_array_equal(
        ref.causal_mask(2, 4), [[True, False, False, False], [True, True, False, False]]
    )
    np.testing.assert_array_equal(ref.causal_mask(3), np.tril(np.ones((3, 3), dtype=bool)))


def test_causal_mask_matches_torch_is_causal():
    import torch

    q, k = torch.zeros(3, 2, dtype=torch.float64), torch.zeros(5, 2, dtype=torch.float64)
    v = torch.eye(5, dtype=torch.float64)
    weights = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True).numpy()
    np.testing.assert_array_equal(weights > 0, ref.causal_mask(3, 5))


def test_padding_mask_and_bounds():
    np.testing.assert_array_equal(ref.padding_mask([2, 0], 3), [[True, True, False], [False] * 3])
    for bad in ([4], [-1]):
        with pytest.raises(ValueError):
            ref.padding_mask(bad, 3)


def test_combine_masks_broadcasts_padding_along_queries():
    combined = ref.combine_masks(ref.causal_mask(3), ref.padding_mask([3, 1], 3))
    assert combined.shape == (2, 3, 3)
    np.testing.assert_array_equal(combined[1], [[True, False, False]] * 3)


# ---------------------------------------------------------------- other functions


def test_additive_scores_match_an_explicit_loop(rng):
    Q, K = rng.standard_normal((2, 5, 3)), rng.standard_normal((2, 7, 4))
    W_q, W_k, w_v = rng.standard_normal((3, 6)), rng.standard_normal((4, 6)), rng.standard_normal(6)
    scores = ref.additive_scores(Q, K, W_q, W_k, w_v)
    assert scores.shape == (2, 5, 7)
    expected = w_v @ np.tanh(Q[1, 4] @ W_q + K[1, 2] @ W_k)
    assert scores[1, 4, 2] == pytest.approx(expected)


def test_score_entry_count_quadruples_when_t_doubles():
    assert ref.score_entry_count(8, 8) * 4 == ref.score_entry_count(16, 16)
    assert ref.score_entry_count(5, 7, heads=8, batch=2) == 560
    with pytest.raises(ValueError):
        ref.score_entry_count(-1, 3)


# ---------------------------------------------------------------- parity with torch


def test_parity_with_torch_float64(rng):
    Q, K, V = random_case(rng, batch=(2,))
    mask = ref.combine_masks(ref.causal_mask(5, 7), ref.padding_mask([7, 3], 7))
    ours, _ = ref.scaled_dot_product_attention(Q, K, V, mask=mask)
    theirs = ref.torch_sdpa(Q, K, V, mask=mask)
    assert theirs.dtype == np.float64
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-10)


def test_parity_with_torch_float32(rng):
    Q, K, V = (x.astype(np.float32) * 10 for x in random_case(rng, batch=(2,)))
    ours64, _ = ref.scaled_dot_product_attention(*(x.astype(np.float64) for x in (Q, K, V)))
    np.testing.assert_allclose(ref.torch_sdpa(Q, K, V), ours64, rtol=1e-4, atol=1e-5)


def test_parity_with_explicit_scale(rng):
    Q, K, V = random_case(rng, batch=())
    ours, _ = ref.scaled_dot_product_attention(Q, K, V, scale=0.3)
    np.testing.assert_allclose(ref.torch_sdpa(Q, K, V, scale=0.3), ours, rtol=0, atol=1e-10)
