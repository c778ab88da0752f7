"""Validates the shapes with ``assert``: AssertionError (gone under python -O), not ValueError."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "attention_context"
EXPECTED_DIAGNOSIS = None
ALSO_AFFECTS = set()


def attention_context(weights, V):
    weights, V = np.asarray(weights), np.asarray(V)
    assert weights.shape[-1] == V.shape[-2], "n_k mismatch"  # BUG: assert is not input validation
    return weights @ V
