"""Hidden checks for ``combine_masks``."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

from autograder.bundles.h2_attention import misconceptions as mc
from autograder.bundles.h2_attention.checks import probes
from autograder.bundles.h2_attention.checks.properties import works_readonly
from autograder.grading.assertions import call, expect_equal_mask, expect_error
from autograder.grading.student import Student

NAME = "combine_masks"


def _check(student: Student, causal: np.ndarray, key_padding: np.ndarray, what: str, readonly: bool = False) -> None:
    got = call(student, NAME, causal, key_padding, readonly=readonly)
    want = causal[None, :, :] & key_padding[:, None, :]
    expect_equal_mask(got, want, what, diagnose=lambda g: mc.combine_signatures(causal, key_padding, g))


@pytest.mark.part(NAME, requires="Intersect a causal ``(n_q, n_k)`` mask with a key-padding ``(B, n_k)`` mask")
def test_square(student: Student, reference: ModuleType) -> None:
    """Causal and key-padding masks combine into (B, n, n)"""
    _check(student, probes.causal(6, 6), probes.padding([6, 4, 2], 6), "the combined mask")


@pytest.mark.part(NAME, weight=2, requires="The padding mask says which *keys* are real, so it is broadcast along the query axis. Returns ``(B, n_q, n_k)``")
def test_more_keys_than_queries(student: Student, reference: ModuleType) -> None:
    """Combined mask (B, n_q, n_k) when n_q != n_k"""
    _check(student, probes.causal(probes.NQ, probes.NK), probes.padding([7, 3, 1], probes.NK),
           "the combined mask")


@pytest.mark.part(NAME, requires="Masks with different numbers of keys raise ``ValueError``")
def test_mismatched_key_count_raises(student: Student, reference: ModuleType) -> None:
    """Masks with different numbers of keys raise ValueError"""
    causal = probes.causal(probes.NQ, probes.NK)
    call(student, NAME, causal, probes.padding([7, 3], probes.NK))  # valid input works first
    expect_error(student, NAME, causal, probes.padding([6, 3], 6), errors=["ValueError"],
                 situation="when the causal mask and the padding mask disagree on n_k")


@pytest.mark.part(NAME, requires="The grader passes read-only arrays: build new arrays instead of writing into your arguments")
def test_inputs_not_modified(student: Student, reference: ModuleType) -> None:
    """Works on read-only masks (inputs are not modified)"""
    causal, key_padding = probes.causal(probes.NQ, probes.NK), probes.padding([5, 2], probes.NK)
    works_readonly(student, NAME, causal, key_padding, want=causal[None, :, :] & key_padding[:, None, :])
