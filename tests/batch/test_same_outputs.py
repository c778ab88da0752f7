"""Grading cheaper changes no output (issue 40): the sample cohort graded by today's grader
writes, byte for byte, the results.json (but for ``seconds`` and the grading key),
feedback.html, graded notebook and grades.csv recorded in
``tests/batch/sample_cohort_outputs.json`` (``tests/support/cohort_outputs.py``).

Recorded at the start of issue 40's cuts, after its stage timings (commit recorded in the
first commit that added this file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import cohort_outputs

pytestmark = pytest.mark.slow

RECORDED = Path(__file__).with_name("sample_cohort_outputs.json")


def test_every_output_of_the_sample_cohort_is_what_it_was(graded_sample_cohort):
    before = json.loads(RECORDED.read_text(encoding="utf-8"))
    now = cohort_outputs.outputs(graded_sample_cohort)
    assert sorted(now) == sorted(before)
    changed = [name for name in before if now[name] != before[name]]
    assert not changed, f"outputs that changed: {changed}"
