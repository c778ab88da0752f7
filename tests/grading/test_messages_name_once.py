"""Each message names a function once (issue 26): the demo's looping student read
"The cause is in your `stable_softmax`: `stable_softmax` did not finish in time"."""

from __future__ import annotations

import re

import pytest

from autograder.grading import run_checks, score_parts
from tests.support.corpus import check_results, reference_source
from tests.support.h2 import H2
from tests.support.said import said

NAMES = re.compile(r"`(\w+)`")


def _repeated_names(messages: tuple[str, ...]) -> list[str]:
    """Messages that name one function more than once."""
    return [m for m in messages if any(n > 1 for n in
                                       map(NAMES.findall(m).count, set(NAMES.findall(m))))]


def _looping_softmax() -> str:
    source = reference_source()
    start = source.index("def stable_softmax(")
    body = source.index('"""', source.index('"""', start) + 3) + 3
    return source[:body] + "\n    while True:\n        pass\n" + source[body:]


def test_a_missing_block_is_named_once_in_the_part_that_calls_it():
    scores = score_parts(check_results(reference_source() + "\n\ndel stable_softmax\n"), H2)
    sdpa = scores["scaled_dot_product_attention"]
    assert sdpa.points < sdpa.max_points
    assert any("is not defined. The cause is in your `stable_softmax`: it was not found" in message
               for message in said(sdpa.messages)), said(sdpa.messages)
    for part, score in scores.items():
        assert _repeated_names(said(score.messages)) == [], part


@pytest.mark.slow
def test_the_looping_students_messages_name_each_function_once():
    """The demo's looping student, graded in the real sandbox (one worker, 5 s per call)."""
    from autograder.grading.grade_one import GradingSession
    from autograder.sandbox.client import SandboxStudent

    session = GradingSession.start(H2)
    try:
        with SandboxStudent([_looping_softmax()], session.zygote, limits=session.limits,
                            uid=session.lease.uid) as student:
            scores = score_parts(run_checks(student, H2), H2)
    finally:
        session.close()
    assert scores["stable_softmax"].points == 0
    assert any("did not finish in time" in m for m in said(scores["stable_softmax"].messages))
    for part, score in scores.items():
        assert _repeated_names(said(score.messages)) == [], part
