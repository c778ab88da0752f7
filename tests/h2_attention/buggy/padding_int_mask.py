"""Right pattern, but a 0/1 integer array (``.astype(int)``) instead of a Boolean mask."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "padding_mask"
EXPECTED_DIAGNOSIS = "mask_not_boolean"
ALSO_AFFECTS = set()


def padding_mask(lengths, n_k):
    lengths = np.asarray(lengths)
    if np.any(lengths < 0) or np.any(lengths > n_k):
        raise ValueError("length out of range")
    return (np.arange(n_k)[None, :] < lengths[:, None]).astype(int)  # BUG: int, not bool
