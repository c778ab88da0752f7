"""Hidden checks for ``additive_scores``."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

from autograder.bundles.h2_attention import misconceptions as mc
from autograder.bundles.h2_attention.checks import probes
from autograder.bundles.h2_attention.checks.properties import works_readonly
from autograder.grading.assertions import call, expect_close, expect_error
from autograder.grading.student import Student

NAME = "additive_scores"
HIDDEN = 6


def _inputs(seed: int, lead: tuple[int, ...] = (), d_q: int = 3, d_k: int = 4) -> tuple[np.ndarray, ...]:
    """Q (..., 5, d_q), K (..., 7, d_k), W_q (d_q, 6), W_k (d_k, 6), w_v (6,); tanh not saturated."""
    Q = probes.normal(seed, *lead, probes.NQ, d_q)
    K = probes.normal(seed + 1, *lead, probes.NK, d_k)
    W_q = probes.normal(seed + 2, d_q, HIDDEN, scale=0.5)
    W_k = probes.normal(seed + 3, d_k, HIDDEN, scale=0.5)
    w_v = probes.normal(seed + 4, HIDDEN)
    return Q, K, W_q, W_k, w_v


def _check(student: Student, reference: ModuleType, args: tuple[np.ndarray, ...], what: str, readonly: bool = False) -> None:
    got = call(student, NAME, *args, readonly=readonly)
    expect_close(got, reference.additive_scores(*args), what, diagnose=lambda g: mc.additive_signatures(*args, g))


@pytest.mark.part(NAME, requires="It can compare vectors of different widths (`d_q ≠ d_k`)")
def test_different_query_and_key_widths(student: Student, reference: ModuleType) -> None:
    """Additive scores (n_q, n_k) when queries and keys have different widths"""
    _check(student, reference, _inputs(201), "the additive scores")


@pytest.mark.part(NAME, requires="Additive (Bahdanau) scores ``s_ij = w_v . tanh(q_i W_q + k_j W_k)``")
def test_equal_query_and_key_widths(student: Student, reference: ModuleType) -> None:
    """Additive scores when queries and keys have the same width"""
    _check(student, reference, _inputs(211, d_q=4, d_k=4), "the additive scores")


@pytest.mark.part(NAME, requires="Leading dimensions (batch, heads) broadcast: every function works on `(..., n, d)` arrays, not only on 2-D ones")
def test_batch_dimension(student: Student, reference: ModuleType) -> None:
    """Additive scores with a batch dimension (B, n_q, n_k)"""
    _check(student, reference, _inputs(221, lead=(probes.B,)), "the batched additive scores")


@pytest.mark.part(NAME, requires="The grader passes read-only arrays: build new arrays instead of writing into your arguments")
def test_inputs_not_modified(student: Student, reference: ModuleType) -> None:
    """Works on read-only inputs (inputs are not modified)"""
    args = _inputs(231)
    works_readonly(student, NAME, *args, want=reference.additive_scores(*args))


@pytest.mark.part(NAME, requires="A ``w_v`` whose length is not ``h`` (or projections of different widths) raises ``ValueError``")
def test_mismatched_hidden_width_raises(student: Student, reference: ModuleType) -> None:
    """A w_v whose length differs from the projections' width raises ValueError"""
    Q, K, W_q, W_k, w_v = _inputs(241)
    call(student, NAME, Q, K, W_q, W_k, w_v)  # must work on valid input first
    expect_error(student, NAME, Q, K, W_q, W_k, w_v[:-1], errors=["ValueError"],
                 situation="when w_v's length differs from the width of W_q and W_k")
