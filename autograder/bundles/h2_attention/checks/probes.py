"""Deterministic probe inputs shared by the hidden checks.

Sizes are pairwise distinct so every plausible scaling and axis mix-up gives a
different answer: n_q=5, n_k=7, d_k=9 (1/sqrt(d_k)=1/3, 1/d_k=1/9), d_v=4
(1/sqrt(d_v)=1/2), batch=2, heads=3. Every array comes from a fixed seed.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, wraps
from typing import Any, TypeVar

import numpy as np

Probe = TypeVar("Probe", np.ndarray, tuple[np.ndarray, ...])

B, H, NQ, NK, DK, DV = 2, 3, 5, 7, 9, 4

# The lecture's hand example: q = [1, 0]; keys A, B, C; values A, B, C.
HAND_Q = np.array([[1.0, 0.0]])
HAND_K = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
HAND_V = np.array([[10.0, 0.0], [0.0, 10.0], [10.0, 10.0]])


def _fresh(make: Callable[..., Probe]) -> Callable[..., Probe]:
    """Make each probe once per grading process (a generator costs ~20 us to seed, and every
    submission asks for the same probes) and hand out copies: a check may edit its probe."""
    made = cache(make)

    @wraps(make)
    def probe(*args: Any, **kwargs: Any) -> Probe:
        value = made(*args, **kwargs)
        return tuple(a.copy() for a in value) if isinstance(value, tuple) else value.copy()

    return probe


@_fresh
def normal(seed: int, *shape: int, scale: float = 1.0) -> np.ndarray:
    """Standard normal samples (times ``scale``) from a fixed seed."""
    return np.random.default_rng(seed).standard_normal(shape) * scale


@_fresh
def qkv(
    seed: int,
    lead: tuple[int, ...] = (),
    n_q: int = NQ,
    n_k: int = NK,
    d_k: int = DK,
    d_v: int = DV,
    dtype: type = np.float64,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Q ``(*lead, n_q, d_k)``, K ``(*lead, n_k, d_k)``, V ``(*lead, n_k, d_v)``."""
    rng = np.random.default_rng(seed)
    Q = rng.standard_normal((*lead, n_q, d_k))
    K = rng.standard_normal((*lead, n_k, d_k))
    V = rng.standard_normal((*lead, n_k, d_v))
    return Q.astype(dtype), K.astype(dtype), V.astype(dtype)


@_fresh
def mixed_mask(seed: int, *shape: int) -> np.ndarray:
    """Boolean mask whose every row has both allowed and blocked keys.

    So the inverted convention also has no empty row and yields a wrong
    answer instead of an error.
    """
    mask = np.random.default_rng(seed).random(shape) < 0.5
    rows = mask.reshape(-1, shape[-1])
    for index, row in enumerate(rows):
        row[index % shape[-1]] = True
        row[(index + 1) % shape[-1]] = False
    return rows.reshape(shape)


def causal(n_q: int, n_k: int) -> np.ndarray:
    """Top-left aligned causal mask (trusted copy, independent of the student)."""
    return np.tril(np.ones((n_q, n_k), dtype=bool))


def padding(lengths: list[int], n_k: int) -> np.ndarray:
    """Key-padding mask ``(B, n_k)`` (trusted copy)."""
    return np.arange(n_k)[None, :] < np.asarray(lengths)[:, None]
