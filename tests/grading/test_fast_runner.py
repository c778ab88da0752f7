"""The per-process fast path of run_checks gives exactly what a pytest session gives."""

from __future__ import annotations

import pytest

from autograder.grading.runner import collect_checks, run_checks
from tests.support.corpus import BUGGY_DIR, override_source, reference_source, stub_source
from tests.support.h2 import H2
from tests.support.in_process import InProcessStudent
from tests.support.pytest_session import run_in_pytest_session

SOURCES = {
    "reference": reference_source,
    "stubs": stub_source,
    **{
        name: (lambda name=name: override_source((BUGGY_DIR / f"{name}.py").read_text()))
        for name in ("softmax_wrong_axis", "scores_kt_batch", "intervention_mutates_v")
    },
}


@pytest.mark.parametrize("variant", SOURCES)
def test_fast_path_equals_a_pytest_session(variant):
    student = InProcessStudent(SOURCES[variant]())
    fast = run_checks(student, H2)
    assert fast == run_in_pytest_session(student, H2)
    assert len(fast) == len(collect_checks(H2))


def test_checks_are_collected_once_per_process():
    assert collect_checks(H2) is collect_checks(H2)
    assert len(collect_checks(H2)) >= 60
