"""`scaled_dot_product_attention` ends the process running it (os._exit).
Only its own part pays: the functions built on it are graded as if it were right
(the grader answers their calls to it)."""
# ruff: noqa: F403, F405
import os

from solutions.attention import *

EXPECTED_PART = "scaled_dot_product_attention"
EXPECTED_DIAGNOSIS = None
ALSO_AFFECTS = set()


def scaled_dot_product_attention(Q, K, V, mask=None):
    os._exit(3)  # BUG: ends the process running it
