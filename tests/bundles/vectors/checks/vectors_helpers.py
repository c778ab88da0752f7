"""Code the vectors checks share: a helper module of ``checks/``, imported by its name
(``from vectors_helpers import number``), named after the bundle as its check modules are."""

from __future__ import annotations

import numpy as np

from autograder.grading.assertions import CheckFailure
from autograder.untrusted import plain


def number(got: object, what: str) -> float:
    """A float, or a 0-d floating array (a NumPy float arrives as one)."""
    if type(got) is float:
        return got
    if type(got) is np.ndarray and got.shape == () and got.dtype.kind == "f":
        return float(got)
    raise CheckFailure(f"Expected {what} to be a number, got {plain.describe_type(got)}.")
