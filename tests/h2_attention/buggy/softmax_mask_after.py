"""Applies the mask after the softmax (zeroes weights without renormalising)."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "stable_softmax"
EXPECTED_DIAGNOSIS = "mask_after_softmax"
ALSO_AFFECTS = set()

_reference_softmax = stable_softmax


def stable_softmax(scores, mask=None, temperature=1.0):
    weights = _reference_softmax(scores, temperature=temperature)
    if mask is None:
        return weights
    mask = np.asarray(mask)
    if not np.broadcast_to(mask, weights.shape).any(axis=-1).all():
        raise ValueError("a row has no permitted key")
    return weights * mask  # BUG: masked after the softmax, rows no longer sum to one
