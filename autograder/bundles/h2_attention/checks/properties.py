"""Checks named for a property test that property only, never the values.

"Works on read-only inputs" and "float32 in, float32 out" are properties a function
can have while its values are wrong: a wrong value is charged once, in the checks
about values, not again under a heading the student did not violate. Each helper
still asks for a result that could be the answer (an array with at least the
answer's number of dimensions, a pair of them, the same dict keys), and the read-only
check one that depends on the inputs, so a function that returns nothing, or the same
thing whatever it is given, earns no property points.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from autograder.bundles.h2_attention import misconceptions as mc
from autograder.grading.assertions import CheckFailure, call, expect_dtype
from autograder.grading.carried_forward import fresh, same, shaped_like
from autograder.grading.diagnoses import MUTATES_INPUT
from autograder.grading.student import Student
from autograder.untrusted import plain


class IgnoresInputs(CheckFailure):
    """The read-only check's verdict on a function whose result does not depend on its
    inputs; ``result`` is that result, for ``settle``'s ``first`` (no carry-forward either)."""

    def __init__(self, message: str, result: Any) -> None:
        super().__init__(message)
        self.result = result


def _describe(got: object) -> str:
    """What came back, in the student's terms."""
    if type(got) is np.ndarray:
        return f"an array of shape {got.shape}"
    return plain.describe_type(got)


def works_readonly(
    student: Student, name: str, *args: Any, want: Any, mutation_code: str = MUTATES_INPUT,
    **kwargs: Any,
) -> Any:
    """The read-only property: ``name`` runs on read-only arrays (a write into them is
    diagnosed as ``mutation_code``), returns a result shaped like ``want`` and the same
    result as on ordinary writable copies, whatever its values. Returns that result."""
    got = call(student, name, *args, readonly=True, mutation_code=mutation_code, **kwargs)
    if not shaped_like(got, want):
        raise CheckFailure(f"Expected `{name}` to return a result for read-only inputs, "
                           f"got {_describe(got)}.")
    writable = call(student, name, *args, **kwargs)
    if not same(got, writable):
        raise CheckFailure(f"`{name}` returns something else when its inputs are read-only: "
                           "build new arrays instead of writing into your arguments.")
    moved = _moved(args)
    if moved is not None and same(call(student, name, *moved, **kwargs), got):
        raise IgnoresInputs(f"`{name}` returns the same result whatever its inputs, so it does "
                            "not show that it works on read-only inputs.", result=got)
    return got


def _moved(args: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The arguments with their float arrays perturbed (others kept as they are), or None
    when there is none to perturb: a function that ignores its inputs earns no property
    points, as it earns nothing by carry-forward."""
    arrays = [i for i, arg in enumerate(args) if type(arg) is np.ndarray and arg.dtype.kind == "f"]
    if not arrays:
        return None
    perturbed = dict(zip(arrays, fresh(*(args[i] for i in arrays)), strict=True))
    return tuple(perturbed.get(i, arg) for i, arg in enumerate(args))


def expect_float32(got: Any, want: np.ndarray, what: str) -> np.ndarray:
    """The dtype property: ``got`` is an array shaped like ``want`` with dtype float32,
    whatever its values."""
    if type(got) is not np.ndarray:
        raise CheckFailure(f"Expected {what} to be a NumPy array, got {plain.describe_type(got)}.")
    if not shaped_like(got, want):
        raise CheckFailure(f"Expected {what} to have {want.ndim} dimensions, got {_describe(got)}.")
    expect_dtype(got, np.float32, what, diagnoses=mc.dtype_signatures(np.dtype(np.float32), got))
    return got
