"""Hidden check for ``dot``."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest
from vectors_helpers import number  # checks/vectors_helpers.py: code the checks share

from autograder.grading.assertions import call, expect
from autograder.grading.student import Student

NAME = "dot"


@pytest.mark.part(NAME, requires="the sum of `a[i] * b[i]`")
def test_dot_of_two_vectors(student: Student, reference: ModuleType) -> None:
    """The dot product of two vectors of length 5"""
    rng = np.random.default_rng(11)
    a, b = rng.standard_normal(5), rng.standard_normal(5)
    got = number(call(student, NAME, a, b), "the dot product")
    want = reference.dot(a, b)
    expect(abs(got - want) <= 1e-9 * max(1.0, abs(want)),
           f"Expected the sum of a[i] * b[i]; got {got:.6g} instead.")
