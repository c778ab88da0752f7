"""The buggy corpus through the production path: the real sandbox grades every module
exactly as the in-process runner does (per check: name, status, points, diagnoses).

One grading session (one zygote, one leased uid) for the whole corpus; each module
gets its own sandboxed worker, as each submission does in a batch.
"""

from __future__ import annotations

import pytest

from autograder.grading import run_checks
from tests.support.corpus import buggy_cases, check_results, verdicts
from tests.support.h2 import H2
from tests.support.wire import cell_errors

pytestmark = pytest.mark.slow

CASES = buggy_cases()


@pytest.fixture(scope="module")
def session():
    from autograder.grading.grade_one import GradingSession

    session = GradingSession.start(H2)
    try:
        yield session
    finally:
        session.close()


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_sandbox_grades_like_in_process(session, case):
    from autograder.sandbox.client import SandboxStudent

    with SandboxStudent(
        [case.source], session.zygote, limits=session.limits, uid=session.lease.uid
    ) as student:
        sandboxed = verdicts(run_checks(student, H2))
        errors = [error.describe() for error in cell_errors(student)]
    assert errors == []
    in_process = verdicts(check_results(case.source))
    assert [v[0] for v in sandboxed] == [v[0] for v in in_process]
    differences = [(mine, theirs) for mine, theirs in zip(sandboxed, in_process, strict=True)
                   if mine != theirs]
    assert differences == [], "sandbox verdict vs in-process verdict"
