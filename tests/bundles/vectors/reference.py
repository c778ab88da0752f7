"""The reference solution of the ``vectors`` test bundle (trusted side, never released)."""

from __future__ import annotations

import numpy as np


def dot(a: np.ndarray, b: np.ndarray) -> float:
    """The dot product of two vectors of the same length: the sum of ``a[i] * b[i]``."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"vectors of different lengths: {a.shape} and {b.shape}")
    return float(np.sum(a * b))


def norm(a: np.ndarray) -> float:
    """The Euclidean length of ``a``: the square root of ``dot(a, a)``."""
    return float(np.sqrt(dot(a, a)))


def normalize(a: np.ndarray) -> np.ndarray:
    """The unit vector in the direction of ``a``: ``a / norm(a)``, of the same shape."""
    length = norm(a)
    if length == 0:
        raise ValueError("the zero vector has no direction")
    return np.asarray(a, dtype=float) / length
