"""No range check: a length above n_k (or below 0) silently gives an all-True (all-False) row."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "padding_mask"
EXPECTED_DIAGNOSIS = None
ALSO_AFFECTS = set()


def padding_mask(lengths, n_k):
    lengths = np.asarray(lengths)  # BUG: lengths outside [0, n_k] are not refused
    return np.arange(n_k)[None, :] < lengths[:, None]
