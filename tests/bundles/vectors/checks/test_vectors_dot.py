"""Hidden check for ``dot``."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

from autograder.grading.assertions import CheckFailure, call, expect
from autograder.grading.student import Student
from autograder.untrusted import plain

NAME = "dot"


def number(got: object, what: str) -> float:
    """A float, or a 0-d floating array (a NumPy float arrives as one)."""
    if type(got) is float:
        return got
    if type(got) is np.ndarray and got.shape == () and got.dtype.kind == "f":
        return float(got)
    raise CheckFailure(f"Expected {what} to be a number, got {plain.describe_type(got)}.")


@pytest.mark.part(NAME, requires="the sum of `a[i] * b[i]`")
def test_dot_of_two_vectors(student: Student, reference: ModuleType) -> None:
    """The dot product of two vectors of length 5"""
    rng = np.random.default_rng(11)
    a, b = rng.standard_normal(5), rng.standard_normal(5)
    got = number(call(student, NAME, a, b), "the dot product")
    want = reference.dot(a, b)
    expect(abs(got - want) <= 1e-9 * max(1.0, abs(want)),
           f"Expected the sum of a[i] * b[i]; got {got:.6g} instead.")
