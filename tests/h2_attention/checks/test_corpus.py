"""The buggy corpus: every misconception loses points on its part, with its diagnosis, and nothing else.

Proof per check, not per part: every hidden check fails on at least one buggy
solution whose bug lives in the function that check grades, and every
misconception code is reported for at least one of them. A check that could
always pass, or a diagnosis no bug reaches, makes these tests fail.
"""

from __future__ import annotations

import pytest

from autograder.grading import diagnoses
from autograder.grading.runner import collect_checks
from tests.support.corpus import buggy_cases, check_results, detection, failed_checks
from tests.support.h2 import H2

CASES = buggy_cases()
KNOWN = diagnoses.known(H2)  # every code H2's checks may report: H2's and the engine's


def _hidden_checks() -> dict[str, str]:
    """Every hidden check's name (``CheckResult.name``) and the part it grades."""
    return {check.common["name"]: check.common["part"] for check in collect_checks(H2)}


def test_corpus_covers_every_listed_misconception():
    declared = {case.expected_diagnosis for case in CASES} - {None}
    assert declared == set(KNOWN), {
        "no bug declares": sorted(set(KNOWN) - declared),
        "not in MISCONCEPTIONS": sorted(declared - set(KNOWN)),
    }
    assert len(CASES) >= 25


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_buggy_solution_is_diagnosed(case):
    ok, problems = detection(case)
    assert ok, problems


def test_detection_rate_is_complete(capsys):
    caught = [case.name for case in CASES if detection(case)[0]]
    with capsys.disabled():
        print(f"\ncorpus size {len(CASES)}, detected {len(caught)}/{len(CASES)}")
    assert len(caught) == len(CASES)


def test_every_hidden_check_fails_on_some_buggy_solution():
    checks = set(_hidden_checks())
    failed = set().union(*(failed_checks(case) for case in CASES))
    assert failed == checks, {
        "no buggy solution fails": sorted(checks - failed),
        "not a hidden check": sorted(failed - checks),
    }


def test_every_hidden_check_fails_on_a_bug_in_its_own_function():
    """Stronger than the above: with error carried forward, a check of a composed function
    (SDPA, the intervention) may pass on a bug in a function it calls, so each check must
    also be failed by a bug that lives in the very function it grades."""
    checks = _hidden_checks()
    failed = {
        result.name
        for case in CASES
        for result in check_results(case.source)
        if result.status != "passed" and result.part == case.expected_part
    }
    assert failed == set(checks), sorted(
        f"{name} ({checks[name]})" for name in set(checks) - failed
    )


def test_every_misconception_code_is_reported_for_some_buggy_solution():
    codes = set(KNOWN)
    reported = {
        code for case in CASES for result in check_results(case.source) for code in result.diagnoses
    }
    assert reported == codes, {
        "never reported": sorted(codes - reported),
        "not in MISCONCEPTIONS": sorted(reported - codes),
    }
