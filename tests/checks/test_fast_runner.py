"""The per-process fast path of run_checks gives exactly what a pytest session gives."""

from __future__ import annotations

import pytest

from autograder.grading.runner import collect_checks, run_checks
from tests.support.in_process import InProcessStudent

from .corpus_support import BUGGY_DIR, override_source, reference_source, stub_source

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
    fast = run_checks(student)
    assert fast == run_checks(student, via_pytest=True)
    assert len(fast) == len(collect_checks())


def test_checks_are_collected_once_per_process():
    assert collect_checks() is collect_checks()
    assert len(collect_checks()) >= 60
