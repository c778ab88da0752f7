"""Hidden check for ``normalize``, built on the student's own ``norm``."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

from autograder.grading.assertions import CheckFailure, call, expect_close
from autograder.grading.carried_forward import carry_forward
from autograder.grading.student import Student

NAME = "normalize"


@pytest.mark.part(NAME, requires="`a / norm(a)`, of the same shape")
def test_unit_vector(student: Student, reference: ModuleType) -> None:
    """The unit vector in the direction of a vector of length 4"""
    a = np.random.default_rng(13).standard_normal(4)
    got = None
    try:
        got = call(student, NAME, a)
        expect_close(got, reference.normalize(a), "the unit vector")
    except CheckFailure as failure:
        # A wrong `norm` is charged in `norm`: here, `normalize` must do what `a / norm(a)`
        # gives with the student's own `norm`.
        carry_forward(failure, student, reference, NAME, a,
                      compose=lambda blocks, a: a / blocks("norm", a), first=got)
