"""Hidden checks for ``causal_mask``."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

from autograder.bundles.h2_attention import misconceptions as mc
from autograder.bundles.h2_attention.checks import probes
from autograder.grading.assertions import call, expect_array, expect_dtype, expect_equal_mask
from autograder.grading.student import Student

NAME = "causal_mask"


def _check(student: Student, n_q: int, n_k: int | None, what: str) -> None:
    args = (n_q,) if n_k is None else (n_q, n_k)
    got = call(student, NAME, *args)
    width = n_q if n_k is None else n_k
    expect_equal_mask(got, probes.causal(n_q, width), what, diagnose=lambda g: mc.causal_signatures(n_q, width, g))


@pytest.mark.part(NAME, requires="the diagonal is allowed (a token sees itself). ``n_k=None`` means a square mask")
def test_square(student: Student, reference: ModuleType) -> None:
    """Square causal mask: query i may attend to keys j <= i (diagonal included)"""
    _check(student, 6, None, "the causal mask")


@pytest.mark.part(NAME, weight=2, requires="Top-left aligned like ``is_causal=True`` in PyTorch")
def test_more_keys_than_queries(student: Student, reference: ModuleType) -> None:
    """Causal mask with n_k > n_q is top-left aligned"""
    _check(student, probes.NQ, probes.NK, "the causal mask with more keys than queries")


@pytest.mark.part(NAME, requires="query i may attend to key j iff ``j <= i``")
def test_more_queries_than_keys(student: Student, reference: ModuleType) -> None:
    """Causal mask with n_q > n_k is top-left aligned"""
    _check(student, probes.NK, probes.NQ, "the causal mask with more queries than keys")


@pytest.mark.part(NAME, requires="Boolean ``(n_q, n_k)`` mask")
def test_boolean_dtype(student: Student, reference: ModuleType) -> None:
    """The causal mask is a Boolean array"""
    got = expect_array(call(student, NAME, 4, 6), "the causal mask", shape=(4, 6))
    expect_dtype(got, np.bool_, "the causal mask", diagnoses="mask_not_boolean")
