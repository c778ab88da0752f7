"""Multiplies the scores by the temperature instead of dividing."""
# ruff: noqa: F403, F405
from solutions.attention import *

EXPECTED_PART = "stable_softmax"
EXPECTED_DIAGNOSIS = "temperature_multiplied"
ALSO_AFFECTS = set()

_reference_softmax = stable_softmax


def stable_softmax(scores, mask=None, temperature=1.0):
    if not temperature > 0:
        raise ValueError("temperature must be > 0")
    return _reference_softmax(scores, mask=mask, temperature=1.0 / temperature)  # BUG
