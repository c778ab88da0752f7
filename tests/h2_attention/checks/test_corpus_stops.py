"""Error carried forward for hangs and crashes (issue 26): a building block that never returns
or ends the process running it costs points in its own part only. The functions built on it
are graded as if it were right: the sandbox asks the grader for the block's answers (plain
data), so no reference code enters it.

Graded in the real sandbox only (in this process a loop would never end), with a short call
limit; one grading session for the corpus, one worker per module as in a batch."""

from __future__ import annotations

import pytest

from autograder.grading import run_checks, score_parts
from tests.support.corpus import STOPS_DIR, buggy_cases, detection
from tests.support.h2 import H2
from tests.support.said import said

pytestmark = pytest.mark.slow

CASES = buggy_cases(STOPS_DIR)
BUILDING_BLOCKS = H2.building_blocks


@pytest.fixture(scope="module")
def session():
    from autograder.grading.grade_one import GradingSession
    from autograder.sandbox.limits import Limits

    session = GradingSession.start(H2, Limits(call_timeout=2.0))
    try:
        yield session
    finally:
        session.close()


def _grade(session, source):
    from autograder.grading.grade_one import reference_stand_in
    from autograder.sandbox.client import SandboxStudent

    with SandboxStudent([source], session.zygote, limits=session.limits, uid=session.lease.uid,
                        stand_in=reference_stand_in(H2), stand_in_names=BUILDING_BLOCKS) as student:
        return score_parts(run_checks(student, H2), H2)


def test_every_building_block_has_a_loop_and_an_exit():
    blocks = {case.expected_part for case in CASES}
    assert blocks == set(BUILDING_BLOCKS)
    assert len(CASES) == 2 * len(BUILDING_BLOCKS)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_block_that_stops_costs_points_in_its_own_part_only(session, case):
    scores = _grade(session, case.source)
    ok, problems = detection(case, scores)
    assert ok, problems
    assert scores[case.expected_part].points == 0
    carried = [part for part, score in scores.items()
               if any(case.expected_part in check.carried_from for check in score.checks)]
    assert carried, "no function built on the block was graded with a stand-in"
    for part in carried:
        assert any(f"carried forward from `{case.expected_part}`" in message
                   for message in said(scores[part].messages)), said(scores[part].messages)


def test_without_stand_ins_the_same_loop_costs_more(session):
    """What the stand-in changes: the same looping softmax, with no grader standing in,
    costs the functions built on it too (the old behaviour, issue 26's "charged five times")."""
    from autograder.sandbox.client import SandboxStudent

    case = next(case for case in CASES if case.name == "softmax_loops")
    with SandboxStudent([case.source], session.zygote, limits=session.limits,
                        uid=session.lease.uid) as student:
        scores = score_parts(run_checks(student, H2), H2)
    sdpa = scores["scaled_dot_product_attention"]
    assert sdpa.points < sdpa.max_points
