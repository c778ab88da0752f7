"""A check named for a property tests that property, not the values (issue 26).

"Works on read-only inputs" and "float32 in, float32 out" pass on a function whose values
are wrong, so one value bug is charged once, by the checks about values. They still fail
on a function that writes into its inputs, changes the dtype, returns nothing, or behaves
differently when its inputs are read-only.
"""

from __future__ import annotations

import pytest

from autograder.grading import CheckResult
from tests.support.corpus import buggy_cases, check_results, grade_source, reference_source
from tests.support.said import said

CASES = {case.name: case for case in buggy_cases()}

READ_ONLY = {
    "stable_softmax": "test_softmax::test_inputs_not_modified",
    "torch_sdpa": "test_torch::test_inputs_not_modified",
    "additive_scores": "test_additive::test_inputs_not_modified",
    "combine_masks": "test_combine::test_inputs_not_modified",
    "scaled_dot_product_attention": "test_sdpa::test_inputs_not_modified",
    "value_intervention": "test_intervention::test_value_rows_not_modified",
}
FLOAT32 = {
    "stable_softmax": "test_softmax::test_float32_stays_float32",
    "torch_sdpa": "test_torch::test_float32_stays_float32",
    "attention_scores": "test_scores::test_float32_stays_float32",
    "attention_context": "test_context::test_float32_stays_float32",
    "scaled_dot_product_attention": "test_sdpa::test_float32_stays_float32",
    "self_attention": "test_self_attention::test_float32_stays_float32",
}
PROPERTY_CHECKS = set(READ_ONLY.values()) | set(FLOAT32.values())


def _by_name(source: str) -> dict[str, CheckResult]:
    return {result.name: result for result in check_results(source)}


def _override(code: str) -> str:
    """The reference followed by one redefined function, as a later notebook cell would."""
    return reference_source() + "\n\n# ---- override ----\n" + code


def test_an_inverted_sdpa_mask_costs_nothing_under_read_only():
    results = _by_name(CASES["torch_inverted_mask"].source)
    assert results[READ_ONLY["torch_sdpa"]].status == "passed"
    assert results[FLOAT32["torch_sdpa"]].status == "passed"
    # The values with a mask are still wrong, and charged where values are checked.
    assert results["test_torch::test_boolean_mask_convention"].status == "failed"
    assert results["test_torch::test_combined_mask_values"].status == "failed"
    score = grade_source(CASES["torch_inverted_mask"].source)["torch_sdpa"]
    assert (score.points, score.max_points) == (4, 6)
    assert "sdpa_inverted_mask" in score.diagnoses


def test_a_wrong_axis_softmax_fails_no_read_only_or_dtype_check():
    results = _by_name(CASES["softmax_wrong_axis"].source)
    assert results[READ_ONLY["stable_softmax"]].status == "passed"
    assert results[FLOAT32["stable_softmax"]].status == "passed"
    assert results["test_softmax::test_rows_are_distributions"].status == "failed"
    score = grade_source(CASES["softmax_wrong_axis"].source)["stable_softmax"]
    assert "softmax_wrong_axis" in score.diagnoses
    assert not any(title in message for message in said(score.messages)
                   for title in ("read-only", "float32"))


# A value bug in the graded function itself, on which its property checks must pass.
VALUE_BUGS = [
    ("additive_no_tanh", READ_ONLY["additive_scores"]),
    ("scores_unscaled", FLOAT32["attention_scores"]),
    ("context_argmax", FLOAT32["attention_context"]),
    ("sdpa_scale_sqrt_dv", READ_ONLY["scaled_dot_product_attention"]),
    ("sdpa_scale_sqrt_dv", FLOAT32["scaled_dot_product_attention"]),
    ("intervention_changes_weights", READ_ONLY["value_intervention"]),
    ("self_attention_swapped_projections", FLOAT32["self_attention"]),
    ("softmax_mask_inverted", READ_ONLY["stable_softmax"]),
    ("softmax_mask_inverted", FLOAT32["stable_softmax"]),
    ("torch_dropout", READ_ONLY["torch_sdpa"]),
    ("torch_dropout", FLOAT32["torch_sdpa"]),
]


@pytest.mark.parametrize(("case", "check"), VALUE_BUGS, ids=[f"{c}-{k.split('::')[1]}" for c, k in VALUE_BUGS])
def test_a_value_bug_passes_the_property_checks(case, check):
    results = _by_name(CASES[case].source)
    assert results[check].status == "passed", results[check].message
    own = [r for r in results.values() if r.part == CASES[case].expected_part and r.status != "passed"]
    assert own and all(r.name not in PROPERTY_CHECKS for r in own)


# A bug of the property itself: exactly that property check fails in its part.
PROPERTY_BUGS = [
    ("torch_scales_q_in_place", READ_ONLY["torch_sdpa"], "mutates_input"),
    ("softmax_mutates_input", READ_ONLY["stable_softmax"], "mutates_input"),
    ("sdpa_scales_q_in_place", READ_ONLY["scaled_dot_product_attention"], "mutates_input"),
    ("intervention_mutates_v", READ_ONLY["value_intervention"], "intervention_mutates_v"),
    ("torch_float64_cast", FLOAT32["torch_sdpa"], "dtype_not_preserved"),
    ("context_float64_upcast", FLOAT32["attention_context"], "dtype_not_preserved"),
    ("scores_float64_upcast", FLOAT32["attention_scores"], "dtype_not_preserved"),
    ("sdpa_float64_inputs", FLOAT32["scaled_dot_product_attention"], "dtype_not_preserved"),
]


@pytest.mark.parametrize(("case", "check", "code"), PROPERTY_BUGS, ids=[c for c, _, _ in PROPERTY_BUGS])
def test_a_property_bug_fails_exactly_its_property_check(case, check, code):
    results = _by_name(CASES[case].source)
    failed = {r.name for r in results.values() if r.part == CASES[case].expected_part and r.status != "passed"}
    assert failed == {check}
    assert code in results[check].diagnoses


def test_a_function_that_returns_nothing_earns_no_property_points():
    source = _override("def stable_softmax(scores, mask=None, temperature=1.0):\n    return None\n\n\n"
                       "def torch_sdpa(Q, K, V, mask=None, scale=None):\n    return None\n")
    results = _by_name(source)
    for check in (READ_ONLY["stable_softmax"], FLOAT32["stable_softmax"],
                  READ_ONLY["torch_sdpa"], FLOAT32["torch_sdpa"]):
        assert results[check].status == "failed", check


def test_a_function_that_behaves_otherwise_on_read_only_inputs_fails_the_read_only_check():
    source = _override(
        "_reference_softmax = stable_softmax\n\n\n"
        "def stable_softmax(scores, mask=None, temperature=1.0):\n"
        "    if not np.asarray(scores).flags.writeable:\n"
        "        return np.zeros(np.shape(scores))  # gives up instead of copying\n"
        "    return _reference_softmax(scores, mask=mask, temperature=temperature)\n")
    results = _by_name(source)
    assert results[READ_ONLY["stable_softmax"]].status == "failed"
    assert "read-only" in results[READ_ONLY["stable_softmax"]].message
    assert results[FLOAT32["stable_softmax"]].status == "passed"


def test_a_function_that_ignores_its_inputs_earns_no_read_only_point():
    """The sample cohort's monkeypatching softmax: zeros whatever the scores."""
    source = _override("def stable_softmax(scores, mask=None, temperature=1.0):\n"
                       "    return np.zeros(np.shape(scores))\n")
    results = _by_name(source)
    assert results[READ_ONLY["stable_softmax"]].status == "failed"
    assert "whatever its inputs" in results[READ_ONLY["stable_softmax"]].message
    # A constant block makes its callers constant too: nothing is carried forward (issue 25).
    assert results[READ_ONLY["scaled_dot_product_attention"]].status == "failed"
    assert not results[READ_ONLY["scaled_dot_product_attention"]].carried_from
