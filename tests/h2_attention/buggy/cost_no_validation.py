"""Multiplies the sizes without checking them: a negative length gives a negative count."""
# ruff: noqa: F403, F405
from solutions.attention import *

EXPECTED_PART = "score_entry_count"
EXPECTED_DIAGNOSIS = None
ALSO_AFFECTS = set()


def score_entry_count(n_q, n_k, heads=1, batch=1):
    return batch * heads * n_q * n_k  # BUG: -3 keys are accepted
