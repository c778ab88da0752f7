"""`attention_scores` never returns (an endless loop).
Only its own part pays: the functions built on it are graded as if it were right
(the grader answers their calls to it)."""
# ruff: noqa: F403, F405
from solutions.attention import *

EXPECTED_PART = "attention_scores"
EXPECTED_DIAGNOSIS = None
ALSO_AFFECTS = set()


def attention_scores(Q, K, scale=None):
    while True:  # BUG: never returns
        pass
