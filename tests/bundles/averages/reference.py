"""The reference solution of the ``averages`` test bundle (trusted side, never released)."""

from __future__ import annotations


def mean(values: list[float]) -> float:
    """The arithmetic mean of a non-empty list: its sum divided by its length."""
    if not values:
        raise ValueError("the mean of no values is undefined")
    return float(sum(values)) / len(values)
