"""The buggy corpus: every misconception loses points on its part, with its diagnosis, and nothing else."""

from __future__ import annotations

import pytest

from autograder.grading import misconceptions

from .corpus_support import buggy_cases, detection

CASES = buggy_cases()


def test_corpus_covers_every_listed_misconception():
    required = {
        "softmax_wrong_axis", "softmax_overflow", "softmax_global_max", "mask_after_softmax",
        "mask_inverted", "causal_off_by_one", "causal_transposed", "causal_bottom_right",
        "scale_missing", "scale_by_dk", "scale_by_sqrt_dv", "kt_batch_dims",
        "padding_broadcast_queries", "all_masked_nan", "all_masked_uniform",
        "argmax_not_weighted_sum", "mutates_input", "temperature_multiplied", "additive_no_tanh",
        "additive_swapped_projections", "sdpa_inverted_mask", "sdpa_dropout",
        "intervention_mutates_v", "intervention_changes_weights",
    }
    declared = {case.expected_diagnosis for case in CASES}
    assert required <= declared, sorted(required - declared)
    assert declared <= set(misconceptions.MISCONCEPTIONS)
    assert len(CASES) >= 25


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_buggy_solution_is_diagnosed(case):
    ok, problems = detection(case)
    assert ok, problems


def test_detection_rate_is_complete(capsys):
    caught = [case.name for case in CASES if detection(case)[0]]
    with capsys.disabled():
        print(f"\ncorpus size {len(CASES)}, detected {len(caught)}/{len(CASES)}")
    assert len(caught) == len(CASES)
