"""Hidden checks for ``mean``."""

from __future__ import annotations

import math
from types import ModuleType

import pytest

from autograder.grading.assertions import call, expect, expect_error
from autograder.grading.student import Student

NAME = "mean"


@pytest.mark.part(NAME, weight=3, requires="their sum divided by how many there are")
def test_mean_of_five_numbers(student: Student, reference: ModuleType) -> None:
    """The mean of five numbers"""
    values = [2.0, -1.5, 7.25, 0.0, 3.5]
    got = call(student, NAME, values)
    want = reference.mean(values)
    by_one_too_few = isinstance(got, float | int) and math.isclose(got, sum(values) / (len(values) - 1))
    expect(isinstance(got, float | int) and abs(got - want) <= 1e-9,
           f"Expected the sum divided by how many numbers there are; got {got!r} instead.",
           diagnoses=["divides_by_n_minus_1"] if by_one_too_few else [])


@pytest.mark.part(NAME, requires="An empty list raises `ValueError`")
def test_mean_of_nothing(student: Student, reference: ModuleType) -> None:
    """The mean of an empty list"""
    expect_error(student, NAME, [], errors=["ValueError"], situation="for an empty list")
