"""Evidence provenance (``autograder.bundles.h2_attention.provenance``): the submitted functions must
reproduce the submitted evidence file, section by section.

Students here run in-process (``InProcessStudent``: plain data crosses as in the
sandbox); ``tests/h2_attention/evidence/test_provenance_sandbox.py`` grades whole notebooks in the real one.
An *honest* file is what the notebook's evidence cell writes: ``build_evidence`` on
the namespace the student's code defines (no copies between calls, as in Jupyter).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import solutions
from autograder.bundles.h2_attention.evidence import EvidenceReport, verify_evidence
from autograder.bundles.h2_attention.evidence_parts import evidence_part_scores
from autograder.bundles.h2_attention.provenance import (
    PARITY_ULPS,
    SECTIONS,
    Provenance,
    carry_candidates,
    check_provenance,
    error_candidates,
    parity_tolerance,
    without_code,
)
from autograder.bundles.h2_attention.samples import GOOD_LIMITATION
from solutions.evidence import build_evidence
from tests.support.corpus import buggy_cases, grade_source, reference_source, stub_source
from tests.support.evidence_files import TORCH_API, honest_evidence
from tests.support.h2 import SPEC
from tests.support.in_process import InProcessStudent
from tests.support.said import said

STUDENT = "s-prov"
COHORT = "c1"
LIMITATION = GOOD_LIMITATION
RECOMPUTED = set(SECTIONS)
MAX_CALLS = 9  # hand example 3, masked case 1, parity 4, intervention 1



def honest_file(source: str, student: str = STUDENT, cohort: str | None = COHORT) -> dict:
    """The file the evidence cell writes when ``source`` is the student's code."""
    return honest_evidence(source, student, LIMITATION, cohort)


REFERENCE_FILE = build_evidence(vars(solutions), STUDENT, LIMITATION, COHORT)


def grade(source: str, data: dict, student: str = STUDENT, cohort: str | None = COHORT,
          failed_functions: frozenset[str] = frozenset()) -> tuple[EvidenceReport, Provenance]:
    report = verify_evidence(json.dumps(data).encode(), student_id=student, cohort=cohort)
    provenance = check_provenance(report, InProcessStudent(source), student_id=student,
                                  cohort=cohort, failed_functions=failed_functions)
    return report, provenance


def zero_parts(source: str) -> frozenset[str]:
    """The function parts the hidden checks give 0 (as grade_submission passes them)."""
    return frozenset(part for part, score in grade_source(source).items() if score.points == 0)


def evidence_part(report: EvidenceReport, provenance: Provenance):
    return evidence_part_scores(report, provenance)["evidence"]


def failed_by_verifier(report: EvidenceReport) -> set[str]:
    return {section for section, points in report.checks.items() if points == 0}


# ------------------------------------------------------------ correct and attacked


def test_a_correct_submission_keeps_every_point_with_no_review():
    report, provenance = grade(reference_source(), REFERENCE_FILE)
    assert provenance.findings == () and provenance.checked == tuple(SECTIONS)
    assert provenance.calls == MAX_CALLS
    part = evidence_part(report, provenance)
    assert (part.points, part.max_points, part.needs_review, said(part.messages)) == (14, 14, False, ())


@pytest.mark.parametrize("made_by", ["reference", "torch"])
def test_stubs_with_a_borrowed_file_lose_every_recomputed_section(made_by):
    data = REFERENCE_FILE if made_by == "reference" else honest_file(TORCH_API)
    report, provenance = grade(stub_source(), data)
    assert report.points["evidence"] == 14  # the verifier alone is fooled
    assert provenance.lost == RECOMPUTED and provenance.needs_review
    assert {f.code for f in provenance.findings} == {"provenance_function_failed"}
    assert provenance.calls <= 4  # each section stops at its first failing call
    part = evidence_part(report, provenance)
    assert part.points == 2 and part.needs_review  # identity is about the id, not the code
    for title in ("the hand example", "the masked case", "the parity check", "the intervention"):
        assert any(f"do not reproduce {title}:" in message for message in said(part.messages)), title
    assert all("NotImplementedError" in f.message for f in provenance.findings)
    limitation = evidence_part_scores(report, provenance)["limitation"]
    assert limitation.points == 8 and not limitation.needs_review  # not charged, not flagged


def test_torch_functions_reproduce_their_own_file():
    """A student who *submits* the torch version (honest, float64) keeps the evidence."""
    report, provenance = grade(TORCH_API, honest_file(TORCH_API))
    assert report.points["evidence"] == 14 and provenance.findings == ()


# ------------------------------------------------------------ buggy code: honest and not

CASES = {case.name: case for case in buggy_cases()}


def _honest_or_none(source: str) -> dict | None:
    try:
        return honest_file(source)
    except Exception:  # noqa: BLE001 - the notebook's evidence cell would raise too
        return None


@pytest.mark.parametrize("name", sorted(CASES))
def test_an_honest_file_from_buggy_code_is_never_charged_twice(name):
    """Every bug of the corpus: the file its own code writes is never charged for the bug
    (error carried forward): a section the verifier failed for its numbers alone, or that
    the file records as the error the code raises, keeps its points, and nothing is flagged."""
    data = _honest_or_none(CASES[name].source)
    if data is None:
        pytest.skip("the evidence cell raises with this bug: there is no honest file")
    report, provenance = grade(CASES[name].source, data,
                               failed_functions=zero_parts(CASES[name].source))
    part = evidence_part(report, provenance)
    recovered = sum(SPEC.evidence_sections[section] for section in provenance.carried)
    if name in NOT_REPRODUCIBLE:  # never a silent loss: what is not reproduced goes to a TA
        assert part.points == report.points["evidence"] + recovered or part.needs_review
        return
    assert provenance.findings == (), [f.message for f in provenance.findings]
    assert set(provenance.checked) == RECOMPUTED - failed_by_verifier(report)
    # A section recorded as an error (a function that raises) is carried forward too.
    assert set(provenance.carried) == set(carry_candidates(report)) | set(error_candidates(report))
    assert part.points == report.points["evidence"] + recovered and not part.needs_review


# value_intervention writes into V: in the notebook that changes the file's old_value (the
# verifier fails it), in the sandbox every call gets copies. Its *numbers* are right.
# scaled_dot_product_attention scaling Q in place: wrong only when a caller reuses Q.
MUTATES_ITS_INPUTS = {"intervention_mutates_v", "sdpa_scales_q_in_place"}
# Numbers the sandbox cannot reproduce by design: a notebook run that mutated its inputs
# between calls, or random dropout. Such a file goes to a TA (never a silent loss).
NOT_REPRODUCIBLE = MUTATES_ITS_INPUTS | {"torch_dropout"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_reference_file_with_buggy_code_loses_what_the_code_does_not_reproduce(name):
    source = CASES[name].source
    report, provenance = grade(source, REFERENCE_FILE)
    assert report.points["evidence"] == 14
    honest = _honest_or_none(source)
    if honest is None:
        assert provenance.lost, "the code cannot even write a file"
        return
    expected = RECOMPUTED & failed_by_verifier(verify_evidence(
        json.dumps(honest).encode(), student_id=STUDENT, cohort=COHORT))
    if name in MUTATES_ITS_INPUTS:
        assert provenance.lost <= expected
        return
    assert provenance.lost == expected
    part = evidence_part(report, provenance)
    assert part.points == 14 - sum(report.checks[s] for s in expected)
    assert part.needs_review == bool(expected)


def test_wrong_scale_honest_versus_borrowed():
    """The brief's example: attention_scores without its 1/sqrt(d_k) default."""
    source = CASES["scores_unscaled"].source
    report, provenance = grade(source, honest_file(source))
    assert report.points["evidence"] == 2  # the verifier alone charges the bug again...
    assert provenance.checked == () and set(provenance.carried) == RECOMPUTED
    assert evidence_part(report, provenance).points == 14  # ...carried forward: charged once
    report, provenance = grade(source, REFERENCE_FILE)
    assert provenance.lost == RECOMPUTED
    assert {f.code for f in provenance.findings} == {"provenance_mismatch"}
    hand = next(f for f in provenance.findings if f.check == "hand_example")
    assert hand.pointer == "/hand_example/scale" and "`attention_scores`" in hand.message


def test_a_torch_bug_costs_parity_only():
    source = CASES["torch_inverted_mask"].source
    report, provenance = grade(source, honest_file(source))
    assert report.checks["parity"] == 0 and provenance.carried == ("parity",)
    assert evidence_part(report, provenance).points == 14 and provenance.findings == ()
    report, provenance = grade(source, REFERENCE_FILE)
    (finding,) = provenance.findings
    assert finding.check == "parity" and finding.pointer.startswith("/parity/")
    assert finding.pointer.endswith("/max_abs_diff") and "`torch_sdpa`" in finding.message
    part = evidence_part(report, provenance)
    assert part.points == 12 and part.needs_review


# ------------------------------------------------------------ tolerance


def _nudged(data: dict, relative: float) -> dict:
    """Every computed float64 number moved by ``relative`` (rounding of another machine)."""
    data = json.loads(json.dumps(data))
    sections = {"hand_example": ("raw_scores", "weights", "context", "scale"),
                "masked_case": ("weights", "row_sums", "context"),
                "intervention": ("weights_before", "weights_after", "context_before",
                                 "context_after")}
    for section, names in sections.items():
        for name in names:
            data[section][name] = (np.asarray(data[section][name]) * (1 + relative)).tolist()
    return data


def test_rounding_noise_of_another_machine_is_reproduced():
    report, provenance = grade(reference_source(), _nudged(REFERENCE_FILE, -1e-12))
    assert report.points["evidence"] == 14 and provenance.findings == ()


def test_a_difference_of_1e_8_is_not_reproduced():
    """Tight enough: code that is off by a relative 1e-8 does not reproduce the reference's
    file, although the verifier (1e-9 absolute and relative) cannot tell the file apart."""
    source = reference_source() + (
        "\n\n_sdpa = scaled_dot_product_attention\n"
        "def scaled_dot_product_attention(Q, K, V, mask=None, scale=None, temperature=1.0):\n"
        "    context, weights = _sdpa(Q, K, V, mask=mask, scale=scale, temperature=temperature)\n"
        "    return context * (1 + 1e-8), weights\n"
    )
    report, provenance = grade(source, REFERENCE_FILE)
    assert provenance.lost == RECOMPUTED
    assert {f.pointer.split("/")[2] for f in provenance.findings} == {
        "context", "context_before", "0"}  # the hand and masked contexts, the intervention, parity


def test_parity_is_one_sided_with_a_tolerance_in_ulps_of_its_dtype():
    values = REFERENCE_FILE["masked_case"]["values"]
    size = max(1.0, float(np.max(np.abs(values))))
    assert parity_tolerance("float32", values) == PARITY_ULPS * np.finfo(np.float32).eps * size
    assert parity_tolerance("float64", values) < 1e-12 < parity_tolerance("float32", values) < 1e-3
    data = json.loads(json.dumps(REFERENCE_FILE))
    for entry in data["parity"]:
        entry["max_abs_diff"] = 0.0  # understated by rounding only: still reproduced
    data["parity"][0]["max_abs_diff"] = 5e-11  # overstated (still within 1e-10): no gain
    report, provenance = grade(reference_source(), data)
    assert report.checks["parity"] == 2 and provenance.findings == ()


def test_float32_noise_of_another_torch_build_is_within_the_tolerance():
    """float32 SDPA against the reference in float64: far more than two runs ever differ."""
    Q, K, V = (np.array(REFERENCE_FILE["masked_case"][k]) for k in ("queries", "keys", "values"))
    mask = np.array(REFERENCE_FILE["masked_case"]["mask"])
    exact, _ = solutions.scaled_dot_product_attention(Q, K, V, mask=mask)
    rough = solutions.torch_sdpa(*(x.astype("float32") for x in (Q, K, V)), mask=mask)
    error = float(np.max(np.abs(rough - exact)))
    assert error < parity_tolerance("float32", V) / 20


# ------------------------------------------------------------ what is (not) recomputed


def test_sections_the_verifier_failed_are_not_recomputed():
    data = json.loads(json.dumps(REFERENCE_FILE))
    data["hand_example"]["weights"][0][0] += 0.1  # the verifier fails the hand example
    report, provenance = grade(stub_source(), data)
    assert report.checks["hand_example"] == 0
    assert provenance.lost == RECOMPUTED - {"hand_example"}
    assert evidence_part(report, provenance).points == 2  # never below zero, never twice


def test_a_file_of_another_student_costs_nothing_more():
    data = build_evidence(vars(solutions), "someone-else", LIMITATION, COHORT)
    report, provenance = grade(stub_source(), data)
    assert {"masked_case", "parity", "intervention"} <= failed_by_verifier(report)
    assert provenance.lost == {"hand_example"}  # the only section still at stake


def test_no_cohort_and_an_empty_cohort_are_the_same_inputs():
    data = build_evidence(vars(solutions), STUDENT, LIMITATION, None)
    for cohort in (None, ""):
        report, provenance = grade(reference_source(), data, cohort=cohort)
        assert report.points["evidence"] == 14 and provenance.findings == ()


def test_output_the_evidence_cell_cannot_use_is_not_reproduced():
    source = reference_source() + (
        "\n\ndef value_intervention(Q, K, V, index, new_value, mask=None):\n"
        "    return {'weights_before': 1.0}\n"
    )
    report, provenance = grade(source, REFERENCE_FILE)
    (finding,) = provenance.findings
    assert finding.code == "provenance_unusable_output" and finding.check == "intervention"
    assert "KeyError" in finding.message


def test_a_wrong_shape_is_not_reproduced():
    source = reference_source() + (
        "\n\n_sdpa = scaled_dot_product_attention\n"
        "def scaled_dot_product_attention(Q, K, V, mask=None, scale=None, temperature=1.0):\n"
        "    context, weights = _sdpa(Q, K, V, mask=mask, scale=scale, temperature=temperature)\n"
        "    return context[..., :1], weights\n"
    )
    report, provenance = grade(source, REFERENCE_FILE)
    hand = next(f for f in provenance.findings if f.check == "hand_example")
    assert hand.pointer == "/hand_example/context" and "another shape" in hand.message
    assert "(1, 2)" in hand.message and "(1, 1)" not in hand.message  # the file's shape only


def test_nothing_the_function_returned_or_raised_is_quoted():
    """A function could hand back what it saw in the hidden checks: only the grader's words
    and the file's own numbers reach the student."""
    source = reference_source() + (
        "\n\nclass Leak_0_123456(Exception):\n    pass\n"
        "def value_intervention(Q, K, V, index, new_value, mask=None):\n"
        "    raise Leak_0_123456('array([0.654321, 0.987654])')\n"
        "def torch_sdpa(Q, K, V, mask=None, scale=None):\n"
        "    raise ValueError('array([0.654321, 0.987654])')\n"
        "_sdpa = scaled_dot_product_attention\n"
        "def scaled_dot_product_attention(Q, K, V, mask=None, scale=None, temperature=1.0):\n"
        "    context, weights = _sdpa(Q, K, V, mask=mask, scale=scale, temperature=temperature)\n"
        "    return context + 0.424242, weights\n"
    )
    report, provenance = grade(source, REFERENCE_FILE)
    assert provenance.lost == RECOMPUTED
    text = " ".join(f.message for f in provenance.findings)
    for secret in ("0.654321", "0.987654", "123456", "Leak", "0.424242", "array(["):
        assert secret not in text, secret
    assert "`value_intervention` raised an exception" in text
    assert "`torch_sdpa` raised ValueError" in text


def test_without_code_every_section_at_stake_is_lost():
    report = verify_evidence(json.dumps(REFERENCE_FILE).encode(), student_id=STUDENT,
                             cohort=COHORT)
    provenance = without_code(report)
    assert provenance.lost == RECOMPUTED and provenance.calls == 0
    assert all(f.code == "provenance_no_code" for f in provenance.findings)
    assert evidence_part(report, provenance).points == 2


def test_an_unreadable_file_is_not_recomputed():
    report = verify_evidence(b"{not json", student_id=STUDENT, cohort=COHORT)
    provenance = check_provenance(report, InProcessStudent(reference_source()),
                                  student_id=STUDENT, cohort=COHORT)
    assert provenance == Provenance() and without_code(report).findings == ()


def test_a_lookup_table_for_the_evidence_inputs_is_flagged_but_keeps_its_points():
    """value_intervention returns stored numbers for this student's evidence inputs and
    nothing else: it reproduces the file, fails every hidden check, and goes to review."""
    stored = {name: REFERENCE_FILE["intervention"][name]
              for name in ("weights_before", "weights_after", "context_before", "context_after")}
    source = reference_source() + (
        "\n\ndef value_intervention(Q, K, V, index, new_value, mask=None):\n"
        f"    if np.array_equal(Q, {REFERENCE_FILE['masked_case']['queries']!r}):\n"
        f"        return {{k: np.array(v) for k, v in {stored!r}.items()}}\n"
        "    raise NotImplementedError()\n"
    )
    failed = zero_parts(source)
    assert "value_intervention" in failed
    report, provenance = grade(source, REFERENCE_FILE, failed_functions=failed)
    (finding,) = provenance.findings
    assert finding.code == "provenance_functions_fail_checks" and finding.severity == "review"
    assert finding.check == "intervention" and provenance.lost == frozenset()
    part = evidence_part(report, provenance)
    assert part.points == 14 and part.needs_review
    assert "`value_intervention` scored 0 on the hidden checks" in " ".join(said(part.messages))


def test_a_correct_submission_is_not_flagged_by_its_scores():
    assert zero_parts(reference_source()) == frozenset()
    report, provenance = grade(reference_source(), REFERENCE_FILE,
                               failed_functions=zero_parts(reference_source()))
    assert provenance.findings == ()


def test_a_section_is_carried_forward_only_from_a_function_that_was_charged():
    """Issue 25: carried forward moves a charge. The honest file of a scaling bug keeps its
    sections only while the functions behind them lost points (or carry that bug forward);
    with nothing charged, the same numbers are not carried."""
    source = CASES["scores_unscaled"].source
    data = honest_file(source)
    report = verify_evidence(json.dumps(data).encode(), student_id=STUDENT, cohort=COHORT)
    student = InProcessStudent(source)
    charged = check_provenance(report, student, student_id=STUDENT, cohort=COHORT,
                               charged_functions={"attention_scores", "scaled_dot_product_attention"})
    assert "hand_example" in charged.carried
    uncharged = check_provenance(report, student, student_id=STUDENT, cohort=COHORT,
                                 charged_functions=set())
    assert uncharged.carried == ()
    assert evidence_part(report, uncharged).points < evidence_part(report, charged).points
