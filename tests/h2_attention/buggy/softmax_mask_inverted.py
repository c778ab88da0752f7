"""Reads the mask as True = blocked (nn.MultiheadAttention convention)."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "stable_softmax"
EXPECTED_DIAGNOSIS = "mask_inverted"
ALSO_AFFECTS = set()

_reference_softmax = stable_softmax


def stable_softmax(scores, mask=None, temperature=1.0):
    if mask is not None:
        mask = ~np.asarray(mask, dtype=bool)  # BUG: True taken to mean "blocked"
    return _reference_softmax(scores, mask=mask, temperature=temperature)
