"""Hidden check for ``norm``."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest
from vectors_helpers import number  # checks/vectors_helpers.py: code the checks share

from autograder.grading.assertions import call, expect
from autograder.grading.student import Student

NAME = "norm"


@pytest.mark.part(NAME, requires="the square root of `dot(a, a)`")
def test_norm_of_a_vector(student: Student, reference: ModuleType) -> None:
    """The Euclidean length of a vector of length 6"""
    a = np.random.default_rng(12).standard_normal(6)
    got = number(call(student, NAME, a), "the length")
    want = reference.norm(a)
    expect(abs(got - want) <= 1e-9 * max(1.0, want),
           f"Expected the square root of the sum of squares; got {got:.6g} instead.")
