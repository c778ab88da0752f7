"""`attention_context` never returns (an endless loop).
Only its own part pays: the functions built on it are graded as if it were right
(the grader answers their calls to it)."""
# ruff: noqa: F403, F405
from solutions.attention import *

EXPECTED_PART = "attention_context"
EXPECTED_DIAGNOSIS = None
ALSO_AFFECTS = set()


def attention_context(weights, V):
    while True:  # BUG: never returns
        pass
