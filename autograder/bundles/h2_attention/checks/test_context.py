"""Hidden checks for ``attention_context``."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

from autograder.bundles.h2_attention import misconceptions as mc
from autograder.bundles.h2_attention.checks import probes
from autograder.bundles.h2_attention.checks.properties import expect_float32
from autograder.grading.assertions import call, expect_close, expect_error
from autograder.grading.student import Student

NAME = "attention_context"


def _weights(reference: ModuleType, seed: int, lead: tuple[int, ...] = (), n_q: int = probes.NQ, n_k: int = probes.NK) -> np.ndarray:
    return reference.stable_softmax(probes.normal(seed, *lead, n_q, n_k, scale=2.0))


def _check(student: Student, reference: ModuleType, weights: np.ndarray, V: np.ndarray, what: str) -> np.ndarray:
    got = call(student, NAME, weights, V)
    return expect_close(got, reference.attention_context(weights, V), what,
                        diagnose=lambda g: mc.context_signatures(V, g, weights))


@pytest.mark.part(NAME, requires="Context ``weights @ V``: each query's weighted average of value rows")
def test_hand_example(student: Student, reference: ModuleType) -> None:
    """Context of the lecture's hand example"""
    weights = reference.stable_softmax(reference.attention_scores(probes.HAND_Q, probes.HAND_K))
    _check(student, reference, weights, probes.HAND_V, "the context")


@pytest.mark.part(NAME, weight=2, requires="weights: ``(..., n_q, n_k)``, V: ``(..., n_k, d_v)``; returns ``(..., n_q, d_v)``")
def test_batched_with_value_width(student: Student, reference: ModuleType) -> None:
    """Batched context (..., n_q, d_v) with d_v different from n_k"""
    lead = (probes.B, probes.H)
    V = probes.normal(502, *lead, probes.NK, probes.DV)
    _check(student, reference, _weights(reference, 501, lead), V, "the batched context")


@pytest.mark.part(NAME, requires="Float32 in, float32 out")
def test_float32_stays_float32(student: Student, reference: ModuleType) -> None:
    """float32 weights and values give a float32 context"""
    weights = _weights(reference, 511).astype(np.float32)
    V = probes.normal(512, probes.NK, probes.DV).astype(np.float32)
    expect_float32(call(student, NAME, weights, V), reference.attention_context(weights, V),
                   "the context for float32 inputs")


@pytest.mark.part(NAME, requires="weights and V with different ``n_k`` raise ``ValueError``")
def test_mismatched_key_count_raises(student: Student, reference: ModuleType) -> None:
    """Weights and V with different numbers of keys raise ValueError"""
    weights = _weights(reference, 521)
    call(student, NAME, weights, probes.normal(522, probes.NK, probes.DV))  # valid input works first
    expect_error(student, NAME, weights, probes.normal(523, probes.NK - 1, probes.DV), errors=["ValueError"],
                 situation="when weights has n_k columns but V does not have n_k rows")
