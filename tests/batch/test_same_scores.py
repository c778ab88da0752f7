"""Grading faster changes no grade (issue 17): the sample cohort, graded by today's grader,
gets every score it got before that work (``tests/batch/sample_cohort_scores.json``, written by
``tests/support/cohort_scores.py`` on commit 791e02d): status, review flags, each part's points
and diagnoses, and each hidden check's score, for every student.

Re-recorded for issue 25, where grades changed on purpose: two checks were renamed (the
softmax's masked maximum and non-finite temperatures), and the monkeypatching student, whose
softmax returns zeros whatever its scores, no longer carries anything forward into the four
functions built on it (75 -> 54): a constant block's callers give constants too.
Re-recorded again for issue 26's property checks (a read-only or float32 check tests only
its property, values are charged in the checks about values): three students with one value
bug each keep the property points they had lost to it (81 -> 83, 95 -> 96, 96 -> 97).
Re-recorded for the rest of issue 26, where three grades changed on purpose: the looping
student's stable_softmax is charged once (51 -> 87: the four functions built on it and the
evidence are graded with the grader standing in for it); the wrong-axis softmax's NaN
travels in the evidence file and is carried forward (83 -> 92); the monkeypatching
student's softmax of zeros everywhere is no longer diagnosed `all_masked_zeros` (54, same
points).
Re-recorded for issue 30, where only a check's name changed: the intervention's "The context
changes by weight[:, index] times ..." (the notation that did not broadcast) is now "The context
moves by each query's weight on key index times the change of that value row"; no score
changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import cohort_scores

pytestmark = pytest.mark.slow

RECORDED = Path(__file__).with_name("sample_cohort_scores.json")


def test_every_score_of_the_sample_cohort_is_what_it_was(graded_sample_cohort):
    """The cohort as ``tests/support/cohort_scores.py`` grades it (the session's
    ``graded_sample_cohort``, which other tests read too)."""
    before = json.loads(RECORDED.read_text(encoding="utf-8"))
    now = cohort_scores.scores(graded_sample_cohort)
    assert sorted(now) == sorted(before)
    for student, scores in before.items():
        assert now[student] == scores, student
