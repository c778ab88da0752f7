"""Grading cheaper changes no output (issue 40): the sample cohort graded by today's grader
writes, byte for byte, the results.json (but for ``seconds`` and the grading key),
feedback.html, graded notebook and grades.csv recorded in
``tests/batch/sample_cohort_outputs.json`` (``tests/support/cohort_outputs.py``).

Recorded at the start of issue 40's cuts, after its stage timings (commit recorded in the
first commit that added this file)."""

from __future__ import annotations

import json
import shutil
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


def test_the_grading_day_is_left_out_and_a_changed_grade_is_not(graded_sample_cohort, tmp_path):
    """Graded on another day, the digests hold (the guard works on any day after the one
    they were recorded on); a score changed on the page still shows."""
    copy = tmp_path / "root"
    shutil.copytree(graded_sample_cohort / "autograded", copy / "autograded")
    shutil.copy2(graded_sample_cohort / "grades.csv", copy / "grades.csv")
    before = cohort_outputs.outputs(copy)
    regraded = 0
    for results_json in (copy / "autograded").glob("*/*/results.json"):
        record = json.loads(results_json.read_text(encoding="utf-8"))
        day = record["extra_data"]["graded_on"]  # the record's field (not results.json's own)
        page = results_json.with_name("feedback.html")
        old = cohort_outputs.GRADED_ON.format(day)
        assert day and old in page.read_text(encoding="utf-8")
        page.write_text(page.read_text(encoding="utf-8").replace(
            old, cohort_outputs.GRADED_ON.format("1999-01-01")), encoding="utf-8")
        record["extra_data"]["graded_on"] = "1999-01-01"
        results_json.write_text(json.dumps(record), encoding="utf-8")
        regraded += 1
    assert regraded == 16  # every student's page was changed: the check is not vacuous
    assert cohort_outputs.outputs(copy) == before
    page = copy / "autograded" / "s001-correct" / "h2_attention" / "feedback.html"
    assert "<strong>100</strong> / 100" in page.read_text(encoding="utf-8")
    page.write_text(page.read_text(encoding="utf-8").replace("<strong>100</strong> / 100", "<strong>99</strong> / 100"),
                    encoding="utf-8")
    assert cohort_outputs.outputs(copy)[str(page.relative_to(copy))] != before[
        str(page.relative_to(copy))]
