"""Hidden check for ``normalize``."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

from autograder.grading.assertions import call, expect_close
from autograder.grading.student import Student

NAME = "normalize"


@pytest.mark.part(NAME, requires="`a / norm(a)`, of the same shape")
def test_unit_vector(student: Student, reference: ModuleType) -> None:
    """The unit vector in the direction of a vector of length 4"""
    a = np.random.default_rng(13).standard_normal(4)
    got = call(student, NAME, a)
    expect_close(got, reference.normalize(a), "the unit vector")
