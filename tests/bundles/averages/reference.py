"""The reference solution of the ``averages`` test bundle (trusted side, never released).

`sync-solutions` copies ``mean`` into the source notebook's solution cell; nbgrader releases
it with the lines between the solution markers replaced by a stub."""

from __future__ import annotations


def mean(values: list[float]) -> float:
    """The arithmetic mean of a non-empty list: its sum divided by its length."""
    ### BEGIN SOLUTION
    if not values:
        raise ValueError("the mean of no values is undefined")
    return float(sum(values)) / len(values)
    ### END SOLUTION
