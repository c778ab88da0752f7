"""Issue 25, "Done when": unwritten functions fishing for carried-forward credit score
what the honest stubs score, through the real batch grader (the hostile batch)."""

from __future__ import annotations

import pytest

from tests.sandbox.hostile.hostile_cases import HOSTILE, HostileBatch, student_of
from tests.sandbox.hostile.hostile_credit_cases import CREDIT_CASES, HONEST

pytestmark = pytest.mark.slow


def _total(hostile_batch: HostileBatch, name: str) -> float:
    case = next(c for c in HOSTILE if c.name == name)
    return hostile_batch.result(student_of(case)).score


@pytest.mark.parametrize("name", [c.name for c in CREDIT_CASES if c.name != HONEST])
def test_an_attack_scores_within_one_point_of_the_honest_stubs(hostile_batch, name):
    honest = _total(hostile_batch, HONEST)
    assert abs(_total(hostile_batch, name) - honest) <= 1, (name, _total(hostile_batch, name), honest)
