"""A misconception is diagnosed only from behaviour that shows it (issue 26: a softmax that
returns zeros for every input was listed under `all_masked_zeros` and its author invited to
a help hour about fully masked rows)."""

from __future__ import annotations

import numpy as np

from autograder.bundles.h2_attention.misconceptions import (
    all_masked_signatures,
    context_all_masked_signatures,
)
from tests.support.corpus import grade_source, override_source

EMPTY = np.array([False, True, False])
V = np.arange(8.0).reshape(4, 2)


def test_zeros_only_on_the_masked_row_are_the_misconception():
    weights = np.array([[0.5, 0.5, 0, 0], [0, 0, 0, 0], [0.25] * 4])
    assert all_masked_signatures(weights, EMPTY) == ["all_masked_zeros"]
    assert context_all_masked_signatures(weights @ V, EMPTY, V) == ["all_masked_zeros"]


def test_the_same_value_everywhere_is_no_answer_about_masked_rows():
    for constant in (np.zeros((3, 4)), np.full((3, 4), 0.25), np.full((3, 4), np.nan)):
        assert all_masked_signatures(constant, EMPTY) == [], constant
    assert context_all_masked_signatures(np.zeros((3, 2)), EMPTY, V) == []


def test_a_softmax_of_zeros_everywhere_gets_no_masked_row_diagnosis():
    zeros = '''
def stable_softmax(scores, mask=None, temperature=1.0):
    return np.zeros(np.shape(scores))
'''
    scores = grade_source(override_source(zeros))
    assert scores["stable_softmax"].points < scores["stable_softmax"].max_points
    assert not any(code.startswith("all_masked") for code in scores["stable_softmax"].diagnoses)
