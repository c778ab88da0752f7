"""Shifts the caller's score array in place (scores -= max)."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "stable_softmax"
EXPECTED_DIAGNOSIS = "mutates_input"
ALSO_AFFECTS = set()

_reference_softmax = stable_softmax


def stable_softmax(scores, mask=None, temperature=1.0):
    scores = np.asarray(scores)  # no copy
    finite_max = np.max(np.where(np.isfinite(scores), scores, -np.inf), axis=-1, keepdims=True)
    if np.issubdtype(scores.dtype, np.floating):
        scores -= np.where(np.isfinite(finite_max), finite_max, 0.0)  # BUG: in place
    return _reference_softmax(scores, mask=mask, temperature=temperature)
