"""NaN travels, charged once (issue 26): a section whose recorded NaN is what the student's
own, charged, functions compute is carried forward like any other wrong number; a NaN they
do not compute (a forged or stale file) still costs the section and goes to a TA; one they
compute with nothing charged is not carried (a transfer, never a gift) and goes to a TA.

Students run in-process here (``InProcessStudent``); ``tests/h2_attention/evidence/test_provenance_sandbox.py``
grades the wrong-axis notebook in the real sandbox.
"""

from __future__ import annotations

import json

import pytest

import solutions
from autograder.bundles.h2_attention.evidence import EvidenceReport, verify_evidence
from autograder.bundles.h2_attention.evidence.non_finite import locate
from autograder.bundles.h2_attention.evidence_parts import evidence_part_scores
from autograder.bundles.h2_attention.provenance import Provenance, check_provenance
from solutions.evidence import build_evidence
from tests.support.corpus import buggy_cases, grade_source, reference_source
from tests.support.evidence_files import honest_evidence
from tests.support.h2 import SPEC
from tests.support.in_process import InProcessStudent
from tests.support.said import said

STUDENT = "s-nan"
COHORT = "c1"
LIMITATION = (
    "Attention weights are not a causal explanation of the output: a key can receive a large "
    "weight while its value vector barely differs from the others, so removing it changes "
    "little, and residual paths and later layers also shape what the model does."
)
WRONG_AXIS = next(case for case in buggy_cases() if case.name == "softmax_wrong_axis").source
NAN_SECTIONS = {"masked_case", "parity", "intervention"}


def charged(source: str) -> set[str]:
    """The function parts grade_submission passes as charged: lost points, or carried a bug."""
    return {part for part, score in grade_source(source).items()
            if score.points < score.max_points or any(c.carried_from for c in score.checks)}


def grade(source: str, data: dict, charged_functions: set[str] | None
          ) -> tuple[EvidenceReport, Provenance]:
    report = verify_evidence(json.dumps(data, allow_nan=False).encode(), student_id=STUDENT,
                             cohort=COHORT)
    provenance = check_provenance(report, InProcessStudent(source), student_id=STUDENT,
                                  cohort=COHORT, charged_functions=charged_functions)
    return report, provenance


@pytest.fixture(scope="module")
def wrong_axis_file() -> dict:
    return honest_evidence(WRONG_AXIS, STUDENT, LIMITATION, COHORT)


@pytest.fixture
def wrong_axis(wrong_axis_file: dict) -> dict:
    return json.loads(json.dumps(wrong_axis_file))


def test_the_wrong_axis_softmax_is_charged_in_its_own_part_only():
    scores = grade_source(WRONG_AXIS)
    assert scores["stable_softmax"].points < scores["stable_softmax"].max_points
    lost = {part for part, score in scores.items() if score.points < score.max_points}
    assert lost == {"stable_softmax"}
    assert {"scaled_dot_product_attention", "value_intervention"} <= charged(WRONG_AXIS)


def test_its_honest_file_with_nan_loses_nothing_in_the_evidence_part(wrong_axis):
    assert {section for section in NAN_SECTIONS if locate(wrong_axis, section)} == NAN_SECTIONS
    report, provenance = grade(WRONG_AXIS, wrong_axis, charged(WRONG_AXIS))
    assert report.points["evidence"] == 2  # the verifier alone would charge the bug again
    assert provenance.findings == () and provenance.disproved == ()
    assert set(provenance.carried) == NAN_SECTIONS | {"hand_example"}
    part = evidence_part_scores(report, provenance)["evidence"]
    assert (part.points, part.needs_review) == (SPEC.part("evidence").points, False)
    notes = [m for m in said(part.messages) if "NaN" in m]
    assert len(notes) == 3 and all(m.carried for m in part.messages)
    masked = next(m for m in notes if m.startswith("/masked_case/"))
    assert masked.startswith(f"{locate(wrong_axis, 'masked_case').pointer}: carried forward: "
                             "your function returned NaN here (`scaled_dot_product_attention`, "
                             "in the masked case's weights)")
    assert not any("JSON" in m or "Out of range" in m for m in said(part.messages))


def test_a_correct_student_keeps_every_point():
    data = build_evidence(vars(solutions), STUDENT, LIMITATION, COHORT)
    report, provenance = grade(reference_source(), data, charged(reference_source()))
    part = evidence_part_scores(report, provenance)["evidence"]
    assert (part.points, part.needs_review, said(part.messages)) == (14, False, ())


def test_a_nan_the_correct_functions_do_not_compute_costs_the_section(evidence_of_reference):
    data = evidence_of_reference
    data["masked_case"]["weights"][0][1] = "NaN"  # blocked there: the reference gives 0
    report, provenance = grade(reference_source(), data, charged(reference_source()))
    assert report.checks["masked_case"] == 0 and provenance.carried == ()
    assert provenance.disproved == ("masked_case",)
    (finding,) = provenance.findings
    assert finding.code == "provenance_mismatch" and finding.pointer == "/masked_case/weights/0/1"
    assert "the file's NaN" in finding.message
    part = evidence_part_scores(report, provenance)["evidence"]
    assert part.points == 14 - SPEC.evidence_sections["masked_case"] and part.needs_review
    assert not any("your function returned NaN" in m for m in said(part.messages))  # it did not


def test_a_forged_nan_is_not_carried_even_when_the_functions_are_charged(wrong_axis):
    """The wrong-axis functions give [1, 1, 1] on the hand example, not NaN."""
    wrong_axis["hand_example"]["weights"][0][0] = "NaN"
    report, provenance = grade(WRONG_AXIS, wrong_axis, charged(WRONG_AXIS))
    assert "hand_example" not in provenance.carried
    assert set(provenance.carried) == NAN_SECTIONS and provenance.disproved == ("hand_example",)
    part = evidence_part_scores(report, provenance)["evidence"]
    assert part.points == 14 - SPEC.evidence_sections["hand_example"] and part.needs_review


def test_a_recorded_parity_is_reproduced_exactly(wrong_axis, evidence_of_reference):
    """An infinity where the functions give NaN, a NaN where they give a number: neither is
    what they compute (the one-sided bound of a finite difference does not apply)."""
    wrong_axis["parity"][0]["max_abs_diff"] = "Infinity"
    report, provenance = grade(WRONG_AXIS, wrong_axis, charged(WRONG_AXIS))
    assert "parity" not in provenance.carried and provenance.disproved == ("parity",)
    (finding,) = provenance.findings
    assert finding.pointer == "/parity/0/max_abs_diff" and "infinity" in finding.message
    evidence_of_reference["parity"][1]["max_abs_diff"] = "NaN"
    report, provenance = grade(reference_source(), evidence_of_reference, None)
    assert provenance.carried == () and provenance.disproved == ("parity",)
    assert [f.pointer for f in provenance.findings] == ["/parity/1/max_abs_diff"]


def test_nan_is_carried_only_from_a_function_that_was_charged(wrong_axis):
    """Carrying forward moves a charge: with nothing charged, the same NaN is not carried,
    and a TA looks at a NaN the hidden checks did not catch."""
    report, provenance = grade(WRONG_AXIS, wrong_axis, set())
    assert provenance.carried == ()
    assert {f.check for f in provenance.findings} == NAN_SECTIONS
    assert {f.code for f in provenance.findings} == {"provenance_non_finite_uncharged"}
    assert all(f.severity == "review" for f in provenance.findings)
    part = evidence_part_scores(report, provenance)["evidence"]
    assert part.points == 2 and part.needs_review
    masked = next(m for m in said(part.messages) if m.startswith("/masked_case/")
                  and "lost points for it" in m)
    assert "your function returned NaN here (`scaled_dot_product_attention`" in masked


@pytest.fixture
def evidence_of_reference() -> dict:
    return json.loads(json.dumps(build_evidence(vars(solutions), STUDENT, LIMITATION, COHORT)))
