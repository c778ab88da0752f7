"""Student-facing failure messages for the hidden checks.

A check fails by raising ``CheckFailure(message, diagnoses=codes)``. Messages say
what was expected (a shape, a property, a value at a position) in the
student's terms and never show the hidden inputs or the check's code. The
``expect_*`` helpers validate the type of a plain result first, so a
surprising result (a list, a dict, NaN) yields a clear message rather than
an internal error.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from autograder.grading.diagnoses import MUTATES_INPUT, readonly_signatures
from autograder.grading.student import Student, StudentError
from autograder.grading.student import reached_out as named_a_path
from autograder.untrusted import plain
from autograder.untrusted.errors import ErrorKind

# The engine's tolerances, in one place: every comparison of a student's numbers with the
# reference's (these helpers, and the bundle's own, e.g. when it recomputes with a student's
# building blocks) uses ``tolerance``.
# float64: any correct formula (different summation order, multiply by 1/sqrt(d) vs divide,
# max-subtraction before or after the temperature) agrees with the reference to ~1e-13
# relative on these sizes; every known bug differs by >= 1e-3. rtol 1e-7 sits between.
RTOL_F64 = 1e-7
ATOL_F64 = 1e-9
# float32 (eps 1.2e-7): reordered sums and exp() of shifted scores differ by ~1e-6 relative;
# the PyTorch notes measure up to ~1e-4 absolute on large logits. Same fair bound as there.
RTOL_F32 = 1e-4
ATOL_F32 = 1e-5


def tolerance(dtype: np.dtype | type) -> tuple[float, float]:
    """``(rtol, atol)`` a result of ``dtype`` is compared with (float32's, else float64's)."""
    return (RTOL_F32, ATOL_F32) if np.dtype(dtype) == np.float32 else (RTOL_F64, ATOL_F64)


Diagnoses = str | Sequence[str] | None
"""Diagnosis codes a failure names: one code, several, or none (the misconceptions a
bundle's hooks explain, ``Assignment.misconceptions``)."""


def codes_of(diagnoses: Diagnoses, diagnosis: Diagnoses = None) -> tuple[str, ...]:
    """The codes named by ``diagnoses=``, or by ``diagnosis=``: the keyword's former
    spelling, kept (deprecated) for bundles written before it was unified; not both."""
    if diagnosis is not None:
        if diagnoses is not None:
            raise TypeError("pass diagnoses=, not both diagnoses= and diagnosis=")
        warnings.warn("diagnosis= is deprecated: pass diagnoses= (the same codes)",
                      DeprecationWarning, stacklevel=3)
        diagnoses = diagnosis
    if diagnoses is None:
        return ()
    return (diagnoses,) if isinstance(diagnoses, str) else tuple(diagnoses)


class CheckFailure(Exception):
    """A check's verdict: what the student should know, plus diagnosis codes (``diagnoses``:
    one code or several; ``diagnosis=`` is the deprecated spelling of the same keyword).

    ``reached_out``: the message tells of code that named a path of the grading machine
    (hidden in it); by default, whether ``student_error`` did."""

    def __init__(self, message: str, diagnoses: Diagnoses = None,
                 student_error: StudentError | None = None,
                 reached_out: bool | None = None, *, diagnosis: Diagnoses = None) -> None:
        super().__init__(message)
        self.reached_out = named_a_path(student_error) if reached_out is None else reached_out
        self.message = message
        self.diagnoses: tuple[str, ...] = codes_of(diagnoses, diagnosis)
        self.student_error = student_error


class CarriedForward(Exception):
    """A check's verdict "passed, carried forward": the function is right about how it uses
    the student's own earlier functions, and only those are wrong (charged in their parts).
    ``blocks`` names them; ``failure`` is the verdict without carry-forward, which stands
    if none of them lost points in its own part (``carried_forward.transfer``); ``raised``:
    what was carried forward is an error a block raised, not a wrong value."""

    def __init__(self, message: str, blocks: Sequence[str] = (),
                 failure: CheckFailure | None = None, raised: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.blocks = tuple(blocks)
        self.failure = failure
        self.raised = raised


def fail(message: str, diagnoses: Diagnoses = None, *, diagnosis: Diagnoses = None) -> None:
    """Raise ``CheckFailure``; for checks of plain conditions."""
    raise CheckFailure(message, codes_of(diagnoses, diagnosis))


def expect(condition: bool, message: str, diagnoses: Diagnoses = None, *,
           diagnosis: Diagnoses = None) -> None:
    """Fail with ``message`` unless ``condition`` holds."""
    if not condition:
        raise CheckFailure(message, codes_of(diagnoses, diagnosis))


def call(
    student: Student,
    name: str,
    *args: Any,
    readonly: bool = False,
    mutation_code: str = MUTATES_INPUT,
    on_error: Callable[[StudentError], Iterable[str]] | None = None,
    **kwargs: Any,
) -> Any:
    """Call the student's function; a student exception becomes the check's failure.

    ``on_error`` may inspect the error (and probe further) to add diagnoses.
    With ``readonly=True`` a "read-only" error is diagnosed as ``mutation_code``.
    """
    try:
        if readonly:
            return student.call_readonly(name, *args, **kwargs)
        return student.call(name, *args, **kwargs)
    except StudentError as err:
        codes = list(on_error(err)) if on_error is not None else []
        if readonly:
            codes += readonly_signatures(err.message, mutation_code)
        raise CheckFailure(err.describe(), codes, student_error=err) from None


def expect_error(
    student: Student,
    name: str,
    *args: Any,
    errors: Sequence[str],
    situation: str,
    diagnose: Callable[[Any], Iterable[str]] | None = None,
    **kwargs: Any,
) -> StudentError:
    """Expect ``name(*args)`` to raise one of ``errors`` (type names); returns the error."""
    wanted = " or ".join(errors)
    try:
        result = student.call(name, *args, **kwargs)
    except StudentError as err:
        if err.is_a(*errors):
            return err
        raise CheckFailure(
            f"Expected `{name}` to raise {wanted} {situation}, but it {_what_happened(err)}.",
            student_error=err,
        ) from None
    codes = tuple(diagnose(result)) if diagnose is not None else ()
    raise CheckFailure(
        f"Expected `{name}` to raise {wanted} {situation}, but it returned {_summary(result)}.", codes
    )


def expect_array(got: Any, what: str, *, shape: tuple[int, ...] | None = None,
                 diagnoses: Diagnoses = None, diagnosis: Diagnoses = None) -> np.ndarray:
    """``got`` must be a NumPy array (of ``shape``); returns it."""
    codes = codes_of(diagnoses, diagnosis)
    if type(got) is not np.ndarray:
        raise CheckFailure(f"Expected {what} to be a NumPy array, got {plain.describe_type(got)}.", codes)
    if shape is not None and got.shape != tuple(shape):
        raise CheckFailure(f"Expected {what} to have shape {tuple(shape)}, got {got.shape}.", codes)
    return got


def expect_dtype(got: np.ndarray, dtype: np.dtype | type, what: str, diagnoses: Diagnoses = None,
                 *, diagnosis: Diagnoses = None) -> None:
    """Exact dtype (e.g. float32 in must give float32 out, masks must be bool)."""
    want = np.dtype(dtype)
    codes = codes_of(diagnoses, diagnosis)
    if got.dtype != want:
        raise CheckFailure(f"Expected {what} to have dtype {want}, got {got.dtype}.", codes)


def _require_array(
    got: Any, shape: tuple[int, ...], what: str, kind: str, codes: Callable[[], tuple[str, ...]]
) -> None:
    """A base ndarray of the expected shape holding numbers, or a student-facing failure."""
    if type(got) is not np.ndarray:
        raise CheckFailure(f"Expected {what} to be a NumPy array, got {plain.describe_type(got)}.", codes())
    if got.shape != shape:
        raise CheckFailure(f"Expected {what} to have shape {shape}, got {got.shape}.", codes())
    if got.dtype.kind not in "biuf":
        raise CheckFailure(f"Expected {what} {kind}, got dtype {got.dtype}.", codes())


def expect_close(
    got: Any,
    want: np.ndarray,
    what: str,
    *,
    diagnose: Callable[[Any], Iterable[str]] | None = None,
    rtol: float | None = None,
    atol: float | None = None,
) -> np.ndarray:
    """Shape, finiteness, then values; on failure names the worst position, not the inputs."""
    want = np.asarray(want)
    default_rtol, default_atol = tolerance(want.dtype)
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol

    def codes() -> tuple[str, ...]:
        return tuple(diagnose(got)) if diagnose is not None else ()

    _require_array(got, want.shape, what, "to hold real numbers", codes)
    values = got.astype(np.float64)
    target = want.astype(np.float64)
    bad_nan = np.isnan(values) & ~np.isnan(target)
    if bad_nan.any():
        raise CheckFailure(f"NaN in {what} at position {_pos(bad_nan)}; every entry should be a number.", codes())
    bad_inf = np.isinf(values) & ~np.isinf(target)
    if bad_inf.any():
        raise CheckFailure(f"inf in {what} at position {_pos(bad_inf)}; every entry should be finite.", codes())
    with np.errstate(invalid="ignore"):
        error = np.abs(values - target) - (atol + rtol * np.abs(target))
    error = np.where(np.isnan(target) | (values == target), -1.0, error)
    if (error > 0).any():
        index = np.unravel_index(int(np.argmax(error)), error.shape)
        expected, actual = _distinct(float(target[index]), float(values[index]))
        dtype_note = (
            f" Your result has dtype {got.dtype}; expected {want.dtype}, the dtype of the inputs."
            if got.dtype != want.dtype else ""
        )
        raise CheckFailure(
            f"Wrong values in {what}: the largest difference is at position "
            f"{tuple(int(i) for i in index)} (expected {expected}, got {actual}).{dtype_note}",
            codes(),
        )
    return got


def expect_equal_mask(got: Any, want: np.ndarray, what: str, *, diagnose: Callable[[Any], Iterable[str]] | None = None) -> None:
    """A Boolean pattern check (dtype is checked separately); names the first wrong entry."""

    def codes() -> tuple[str, ...]:
        return tuple(diagnose(got)) if diagnose is not None else ()

    _require_array(got, want.shape, what, "to be Boolean", codes)
    wrong = got.astype(bool) != want
    if wrong.any():
        index = _pos(wrong)
        raise CheckFailure(
            f"Wrong entry in {what} at position {index}: expected {bool(want[index])}, "
            f"got {bool(got.astype(bool)[index])}.",
            codes(),
        )


def _pos(flags: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argwhere(flags)[0])


def _distinct(expected: float, actual: float) -> tuple[str, str]:
    """Both numbers with just enough digits to look different."""
    for digits in (6, 10, 17):
        a, b = f"{expected:.{digits}g}", f"{actual:.{digits}g}"
        if a != b:
            break
    return a, b


def _what_happened(err: StudentError) -> str:
    if err.kind is ErrorKind.RAISED:
        return f"raised {err.type_name}" + (f" ({err.message})" if err.message else "")
    return err.describe().split(" ", 1)[1] if " " in err.describe() else err.describe()


def _summary(value: Any) -> str:
    if type(value) is np.ndarray:
        extra = " containing NaN" if value.dtype.kind == "f" and np.isnan(value).any() else ""
        return f"an array of shape {value.shape}{extra}"
    return f"a value of type {plain.describe_type(value)}"


def expect_pair(got: object, first: str, second: str) -> tuple[object, object]:
    """The pair ``(first, second)`` a function returns (a tuple or a list of two), or a
    failure saying one was expected."""
    if type(got) not in (tuple, list) or len(got) != 2:
        raise CheckFailure(f"Expected a pair ({first}, {second}) to be returned.")
    return got[0], got[1]
