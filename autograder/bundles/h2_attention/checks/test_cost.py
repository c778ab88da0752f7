"""Hidden checks for ``score_entry_count``."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

from autograder.bundles.h2_attention.checks import probes
from autograder.grading.assertions import CheckFailure, call, expect, expect_error
from autograder.grading.student import Student
from autograder.untrusted import plain

NAME = "score_entry_count"


def _count(got: object, what: str) -> int:
    """An int, or a 0-d integer array (a NumPy integer arrives as one)."""
    if type(got) is int:
        return got
    if type(got) is np.ndarray and got.shape == () and got.dtype.kind in "iu":
        return int(got)
    raise CheckFailure(f"Expected {what} to be an integer, got {plain.describe_type(got)}.")


@pytest.mark.part(NAME, requires="Number of score entries dense attention computes: ``batch * heads * n_q * n_k``")
def test_counts_every_pair(student: Student, reference: ModuleType) -> None:
    """Counts batch * heads * n_q * n_k score entries"""
    got = _count(call(student, NAME, probes.NQ, probes.NK), "the count")
    expect(got == reference.score_entry_count(probes.NQ, probes.NK),
           f"Expected one score entry per (query, key) pair, got {got}.")
    got = _count(call(student, NAME, probes.NQ, probes.NK, heads=3, batch=2), "the count")
    expect(got == reference.score_entry_count(probes.NQ, probes.NK, heads=3, batch=2),
           f"Expected the count to include heads and batch, got {got}.")


@pytest.mark.part(NAME, requires="With ``n_q = n_k = T`` doubling T quadruples the count")
def test_doubling_length_quadruples(student: Student, reference: ModuleType) -> None:
    """Doubling the sequence length T (n_q = n_k = T) quadruples the count"""
    small = _count(call(student, NAME, 64, 64, heads=2), "the count")
    large = _count(call(student, NAME, 128, 128, heads=2), "the count")
    expect(small == reference.score_entry_count(64, 64, heads=2) and large == 4 * small,
           f"Expected doubling T to quadruple the count; got {small} then {large}.")


@pytest.mark.part(NAME, requires="A negative or non-integer size raises ``ValueError``")
def test_negative_size_raises(student: Student, reference: ModuleType) -> None:
    """A negative size raises ValueError"""
    call(student, NAME, 3, 4)  # valid input works first
    expect_error(student, NAME, -3, 4, errors=["ValueError"], situation="for a negative n_q")
