"""Each message names a function once (issue 26): the demo's looping student read
"The cause is in your `stable_softmax`: `stable_softmax` did not finish in time". Shown on
the small `vectors` bundle, whose `normalize` check builds on the student's own `norm`:
how a message names the function behind a failure is the engine's, whatever the assignment."""

from __future__ import annotations

import re

import pytest

from autograder.grading import run_checks, score_parts
from tests.support.in_process import InProcessStudent
from tests.support.said import said
from tests.support.vectors import REFERENCE, VECTORS

NAMES = re.compile(r"`(\w+)`")
SOURCE = "\n\n".join(REFERENCE.values())  # the reference, as a one-cell submission


def _repeated_names(messages: tuple[str, ...]) -> list[str]:
    """Messages that name one function more than once."""
    return [m for m in messages if any(n > 1 for n in
                                       map(NAMES.findall(m).count, set(NAMES.findall(m))))]


def _looping_norm() -> str:
    start = SOURCE.index("def norm(")
    body = SOURCE.index('"""', SOURCE.index('"""', start) + 3) + 3
    return SOURCE[:body] + "\n    while True:\n        pass\n" + SOURCE[body:]


def test_a_missing_block_is_named_once_in_the_part_that_calls_it():
    student = InProcessStudent(SOURCE + "\n\ndel norm\n")
    scores = score_parts(run_checks(student, VECTORS), VECTORS)
    normalize = scores["normalize"]
    assert normalize.points < normalize.max_points
    assert any("is not defined. The cause is in your `norm`: it was not found" in message
               for message in said(normalize.messages)), said(normalize.messages)
    for part, score in scores.items():
        assert _repeated_names(said(score.messages)) == [], part


@pytest.mark.slow
def test_the_looping_students_messages_name_each_function_once():
    """A student whose `norm` loops, graded in the real sandbox (one worker, 1 s per call)."""
    from autograder.grading.grade_one import GradingSession
    from autograder.sandbox.client import SandboxStudent
    from autograder.sandbox.limits import Limits

    session = GradingSession.start(VECTORS, Limits(call_timeout=1.0))
    try:
        with SandboxStudent([_looping_norm()], session.zygote, limits=session.limits,
                            uid=session.lease.uid) as student:
            scores = score_parts(run_checks(student, VECTORS), VECTORS)
    finally:
        session.close()
    assert scores["norm"].points == 0
    assert any("did not finish in time" in m for m in said(scores["norm"].messages))
    assert any("The cause is in your `norm`: it " in m  # the account of the loop, once named
               for m in said(scores["normalize"].messages)), said(scores["normalize"].messages)
    for part, score in scores.items():
        assert _repeated_names(said(score.messages)) == [], part
