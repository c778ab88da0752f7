"""Counts one score matrix, n_q * n_k, and forgets that every head of every sequence has its own."""
# ruff: noqa: F403, F405
from solutions.attention import *

EXPECTED_PART = "score_entry_count"
EXPECTED_DIAGNOSIS = None
ALSO_AFFECTS = set()


def score_entry_count(n_q, n_k, heads=1, batch=1):
    for value in (n_q, n_k, heads, batch):
        if int(value) != value or value < 0:
            raise ValueError(f"sizes must be non-negative integers, got {value!r}")
    return int(n_q) * int(n_k)  # BUG: heads and batch are not counted
