"""Hidden checks for ``padding_mask``."""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType

import numpy as np
import pytest

from autograder.bundles.h2_attention import misconceptions as mc
from autograder.bundles.h2_attention.checks import probes
from autograder.grading.assertions import (
    call,
    expect_array,
    expect_dtype,
    expect_equal_mask,
    expect_error,
)
from autograder.grading.student import Student

NAME = "padding_mask"


def _check(student: Student, lengths: Sequence[int] | np.ndarray, n_k: int, what: str) -> None:
    got = call(student, NAME, lengths, n_k)
    expect_equal_mask(got, probes.padding(list(lengths), n_k), what,
                      diagnose=lambda g: mc.padding_signatures(np.asarray(lengths), n_k, g))


@pytest.mark.part(NAME, weight=2, requires="key-padding mask: True where ``position < length``")
def test_lengths_array(student: Student, reference: ModuleType) -> None:
    """Key-padding mask (B, n_k): True where position < length (lengths 3, 7 and 0)"""
    _check(student, np.array([3, 7, 0]), probes.NK, "the padding mask")


@pytest.mark.part(NAME, requires="``lengths`` may be a list or an array")
def test_lengths_list(student: Student, reference: ModuleType) -> None:
    """Lengths given as a Python list"""
    _check(student, [2, 5], 6, "the padding mask for a list of lengths")


@pytest.mark.part(NAME, requires="Boolean ``(B, n_k)`` key-padding mask")
def test_boolean_dtype(student: Student, reference: ModuleType) -> None:
    """The padding mask is a Boolean array"""
    got = expect_array(call(student, NAME, np.array([1, 4]), 5), "the padding mask", shape=(2, 5))
    expect_dtype(got, np.bool_, "the padding mask", diagnoses="mask_not_boolean")


@pytest.mark.part(NAME, requires="Lengths outside ``[0, n_k]`` raise ``ValueError``")
def test_lengths_out_of_range_raise(student: Student, reference: ModuleType) -> None:
    """Lengths below 0 or above n_k raise ValueError"""
    call(student, NAME, np.array([3, 7]), 7)  # must work on valid input first
    for lengths in ([3, 8], [-1, 2]):
        expect_error(student, NAME, np.array(lengths), 7, errors=["ValueError"],
                     situation="for a length outside [0, n_k]")
