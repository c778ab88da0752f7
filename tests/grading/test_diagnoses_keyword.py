"""The check API names diagnosis codes one way, ``diagnoses=``, everywhere it takes them
(``CheckFailure``, ``fail``, ``expect``, ``expect_array``, ``expect_dtype``); the keyword's
former spelling ``diagnosis=`` (in the docs until it was unified) still works for bundles
written with it, with a ``DeprecationWarning``, and naming both is refused."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from autograder.grading.assertions import CheckFailure, expect, expect_array, expect_dtype, fail
from autograder.grading.plugin import verdict

COMMON = {"name": "test_x::test_y", "title": "y", "part": "x", "max_points": 1}


def raised(call) -> CheckFailure:  # noqa: ANN001 - a thunk
    with pytest.raises(CheckFailure) as failure:
        call()
    return failure.value


def test_one_code_or_several_become_the_failure_s_diagnoses_and_the_check_s():
    assert CheckFailure("m", diagnoses="a").diagnoses == ("a",)
    assert CheckFailure("m", ["a", "b"]).diagnoses == ("a", "b")
    assert CheckFailure("m").diagnoses == ()
    assert verdict(dict(COMMON), CheckFailure("m", diagnoses=["a", "b"])).diagnoses == ("a", "b")


def test_every_helper_takes_diagnoses():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new spelling warns of nothing
        assert raised(lambda: fail("m", diagnoses="a")).diagnoses == ("a",)
        assert raised(lambda: expect(False, "m", diagnoses=["a"])).diagnoses == ("a",)
        assert raised(lambda: expect_array([1], "x", diagnoses="a")).diagnoses == ("a",)
        assert raised(lambda: expect_dtype(np.zeros(1), np.bool_, "x",
                                           diagnoses="a")).diagnoses == ("a",)


def test_the_former_spelling_still_works_and_says_it_is_deprecated():
    with pytest.warns(DeprecationWarning, match="pass diagnoses="):
        assert CheckFailure("m", diagnosis="a").diagnoses == ("a",)
    with pytest.warns(DeprecationWarning):
        assert raised(lambda: expect_dtype(np.zeros(1), np.bool_, "x",
                                           diagnosis="a")).diagnoses == ("a",)


def test_both_spellings_at_once_are_refused():
    with pytest.raises(TypeError, match="not both"):
        CheckFailure("m", diagnoses="a", diagnosis="b")
