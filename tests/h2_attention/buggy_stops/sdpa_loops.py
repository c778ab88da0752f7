"""`scaled_dot_product_attention` never returns (an endless loop).
Only its own part pays: the functions built on it are graded as if it were right
(the grader answers their calls to it)."""
# ruff: noqa: F403, F405
from solutions.attention import *

EXPECTED_PART = "scaled_dot_product_attention"
EXPECTED_DIAGNOSIS = None
ALSO_AFFECTS = set()


def scaled_dot_product_attention(Q, K, V, mask=None):
    while True:  # BUG: never returns
        pass
