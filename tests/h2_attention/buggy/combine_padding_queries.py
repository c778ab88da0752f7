"""Key-padding mask broadcast along the query axis instead of the key axis."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "combine_masks"
EXPECTED_DIAGNOSIS = "padding_broadcast_queries"
ALSO_AFFECTS = set()


def combine_masks(causal, key_padding):
    causal = np.asarray(causal, dtype=bool)
    key_padding = np.asarray(key_padding, dtype=bool)
    return causal[None, :, :] & key_padding[:, :, None]  # BUG: padding on the query axis
