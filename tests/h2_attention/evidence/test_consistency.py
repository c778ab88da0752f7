"""Layer 2: valid-but-inconsistent files, each caught by the right check with the right pointer."""

from __future__ import annotations

import numpy as np
import pytest

from autograder.bundles.h2_attention.evidence import (
    EVIDENCE_CHECK_POINTS,
    EVIDENCE_POINTS,
    LIMITATION_POINTS,
    verify_evidence,
)
from solutions.attention import attention_scores, scaled_dot_product_attention
from solutions.evidence import evidence_inputs

from .helpers import COHORT, OTHER_STUDENT, STUDENT, dump


def _arrays(section, *names, dtype=float):
    return [np.asarray(section[name], dtype=dtype) for name in names]


def _restate_masked(evidence, weights):
    """Write weights (as a buggy implementation would) with matching row sums and context."""
    case = evidence["masked_case"]
    (v,) = _arrays(case, "values")
    case["weights"] = weights.tolist()
    case["row_sums"] = weights.sum(axis=-1).tolist()
    case["context"] = (weights @ v).tolist()


def _worst(stated, expected):
    gap = np.abs(np.asarray(stated) - np.asarray(expected))
    return "/".join(str(int(i)) for i in np.unravel_index(int(np.argmax(gap)), gap.shape))


# --- mutations: each returns the pointer it expects (it depends on the student's data) ---------
def unscaled_hand_weights(e):
    hand = e["hand_example"]
    q, k, v = _arrays(hand, "queries", "keys", "values")
    context, weights = scaled_dot_product_attention(q, k, v, scale=1.0)
    correct = np.asarray(hand["weights"])
    hand["weights"], hand["context"] = weights.tolist(), context.tolist()
    return f"/hand_example/weights/{_worst(weights, correct)}"


def scale_by_d_k(e):
    e["hand_example"]["scale"] = 1.0 / len(e["hand_example"]["keys"][0])
    return "/hand_example/scale"


def scaled_raw_scores(e):
    hand = e["hand_example"]
    q, k = _arrays(hand, "queries", "keys")
    scores = attention_scores(q, k)
    hand["raw_scores"] = scores.tolist()
    return f"/hand_example/raw_scores/{_worst(scores, attention_scores(q, k, scale=1.0))}"


def hand_context_off(e):
    e["hand_example"]["context"][0][1] += 0.25
    return "/hand_example/context/0/1"


def mask_after_softmax(e):
    case = e["masked_case"]
    q, k = _arrays(case, "queries", "keys")
    (mask,) = _arrays(case, "mask", dtype=bool)
    scores = attention_scores(q, k)
    exps = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = np.where(mask, exps / exps.sum(axis=-1, keepdims=True), 0.0)
    _restate_masked(e, weights)
    first_bad_row = int(np.argmax(~np.isclose(weights.sum(axis=-1), 1.0)))
    return f"/masked_case/weights/{first_bad_row}"


def finite_fill(e):
    """Blocked scores lowered by 10 instead of set to -inf: small non-zero weights leak."""
    case = e["masked_case"]
    q, k = _arrays(case, "queries", "keys")
    (mask,) = _arrays(case, "mask", dtype=bool)
    scores = np.where(mask, attention_scores(q, k), attention_scores(q, k) - 10.0)
    exps = np.exp(scores - scores.max(axis=-1, keepdims=True))
    _restate_masked(e, exps / exps.sum(axis=-1, keepdims=True))
    i, j = np.argwhere(~mask)[0]
    return f"/masked_case/weights/{i}/{j}"


def stated_row_sum_wrong(e):
    e["masked_case"]["row_sums"][2] = 0.9
    return "/masked_case/row_sums/2"


def masked_context_off(e):
    e["masked_case"]["context"][1][0] += 0.5
    return "/masked_case/context/1/0"


def weights_change_in_intervention(e):
    e["intervention"]["weights_after"][0][0] = 0.5
    return "/intervention/weights_after/0/0"


def context_moves_wrongly(e):
    index = e["intervention"]["index"]
    e["intervention"]["context_after"][index][0] += 1.0
    return f"/intervention/context_after/{index}/0"


def context_does_not_move(e):
    e["intervention"]["context_after"] = e["intervention"]["context_before"]
    return "/intervention/context_after"


def same_value_row(e):
    iv = e["intervention"]
    iv["new_value"] = iv["old_value"]
    iv["context_after"] = iv["context_before"]
    return "/intervention/new_value"


def old_value_wrong(e):
    e["intervention"]["old_value"] = [x + 1 for x in e["intervention"]["old_value"]]
    return "/intervention/old_value"


def intervention_starts_elsewhere(e):
    iv = e["intervention"]
    last = len(iv["values"]) - 1
    assert last != iv["index"]
    iv["values"][last] = [x + 1 for x in iv["values"][last]]
    return "/intervention/values"


def float64_parity_too_far(e):
    e["parity"][0]["max_abs_diff"] = 1e-6
    return "/parity/0/max_abs_diff"


def float32_parity_too_far(e):
    e["parity"][1]["max_abs_diff"] = 0.5
    return "/parity/1/max_abs_diff"


def loose_tolerance(e):
    e["parity"][0]["atol"] = 1e-3
    return "/parity/0"


def hand_inputs_edited(e):
    e["hand_example"]["values"][0] = [10.0, 1.0]
    return "/hand_example/values"


def empty_mask_row(e):
    for name in ("masked_case", "intervention"):
        e[name]["mask"][0] = [False] * len(e[name]["mask"][0])
    return "/masked_case/mask/0"


# name -> (mutation, code, check, isolated: no other check loses points)
INCONSISTENT = {
    "unscaled hand weights": (unscaled_hand_weights, "weights_mismatch", "hand_example", True),
    "scale 1/d_k": (scale_by_d_k, "scale_wrong", "hand_example", True),
    "raw scores scaled": (scaled_raw_scores, "raw_scores_mismatch", "hand_example", True),
    "hand context off": (hand_context_off, "context_mismatch", "hand_example", True),
    "hand inputs edited": (hand_inputs_edited, "hand_inputs_changed", "hand_example", True),
    "mask after softmax": (mask_after_softmax, "row_sums", "masked_case", True),
    "finite fill leaks weight": (finite_fill, "blocked_nonzero", "masked_case", True),
    "stated row sum wrong": (stated_row_sum_wrong, "row_sums", "masked_case", True),
    "masked context off": (masked_context_off, "context_mismatch", "masked_case", True),
    "weights change in intervention": (weights_change_in_intervention, "intervention_weights_changed", "intervention", True),
    "context moves wrongly": (context_moves_wrongly, "intervention_delta", "intervention", True),
    "context does not move": (context_does_not_move, "intervention_no_change", "intervention", True),
    "same value row": (same_value_row, "intervention_no_change", "intervention", False),
    "old value wrong": (old_value_wrong, "intervention_old_value", "intervention", True),
    "intervention starts elsewhere": (intervention_starts_elsewhere, "intervention_inputs_differ", "intervention", False),
    "float64 parity too far": (float64_parity_too_far, "parity_exceeds_tolerance", "parity", True),
    "float32 parity too far": (float32_parity_too_far, "parity_exceeds_tolerance", "parity", True),
    "loose tolerance": (loose_tolerance, "parity_tolerance_unreasonable", "parity", True),
    "empty mask row": (empty_mask_row, "mask_empty_row", "masked_case", False),
}


def test_corpus_is_big_enough():
    assert len(INCONSISTENT) >= 10


def test_reference_evidence_passes_every_layer(reference_evidence):
    report = verify_evidence(dump(reference_evidence), student_id=STUDENT, cohort=COHORT)
    assert report.status == "ok", report.findings
    assert report.findings == [] and not report.needs_review
    assert report.points == {"evidence": EVIDENCE_POINTS, "limitation": LIMITATION_POINTS}
    assert report.checks == EVIDENCE_CHECK_POINTS
    assert set(report.layers.values()) <= {"ok", "passed"}


@pytest.mark.parametrize("name", list(INCONSISTENT))
def test_inconsistency_is_caught_by_the_right_check(name, evidence):
    mutate, code, check, isolated = INCONSISTENT[name]
    pointer = mutate(evidence)
    report = verify_evidence(dump(evidence), student_id=STUDENT, cohort=COHORT)
    assert report.status == "invalid"
    assert report.layers["schema"] == "passed", report.findings  # valid, only inconsistent
    found = [f for f in report.findings if f.code == code]
    assert found, report.findings
    assert pointer in [f.pointer for f in found], (pointer, found)
    assert all(f.part == "evidence" and f.layer == "consistency" for f in found)
    assert next(f for f in found if f.pointer == pointer).check == check
    assert report.checks[check] == 0
    if isolated:
        assert {f.check for f in report.findings} == {check}, report.findings
        assert report.points["evidence"] == EVIDENCE_POINTS - EVIDENCE_CHECK_POINTS[check]
    assert report.points["limitation"] == LIMITATION_POINTS


def test_bug_hints_name_the_bug(evidence):
    unscaled_hand_weights(evidence)
    mask_after_softmax(evidence)
    scale_by_d_k(evidence)
    messages = {f.code + f.pointer.split("/")[1]: f.message
                for f in verify_evidence(dump(evidence)).findings}
    assert "unscaled" in messages["weights_mismatchhand_example"]
    assert "masked after the softmax" in messages["weights_mismatchmasked_case"]
    assert "1/d_k" in messages["scale_wronghand_example"]


def test_copied_file_fails_for_another_student(reference_evidence):
    report = verify_evidence(dump(reference_evidence), student_id=OTHER_STUDENT, cohort=COHORT)
    assert report.status == "invalid" and report.needs_review
    codes = report.codes()
    assert "student_id_mismatch" in codes and "inputs_other_student" in codes
    message = next(f.message for f in report.findings if f.code == "inputs_other_student")
    assert "generated for another student id" in message
    # The student reads who the file is not for, never whom it came from; the TA reads both.
    for finding in report.findings:
        assert STUDENT not in finding.message, finding
    ta_notes = {f.code: f.ta_note for f in report.findings}
    assert repr(STUDENT) in ta_notes["inputs_other_student"]
    assert repr(STUDENT) in ta_notes["student_id_mismatch"]
    # nothing that depends on the per-student inputs earns points
    assert report.checks["identity"] == report.checks["masked_case"] == 0
    assert report.checks["parity"] == report.checks["intervention"] == 0
    assert report.checks["hand_example"] == EVIDENCE_CHECK_POINTS["hand_example"]


def test_copied_file_with_the_id_edited_still_fails(evidence):
    evidence["student_id"] = OTHER_STUDENT
    report = verify_evidence(dump(evidence), student_id=OTHER_STUDENT, cohort=COHORT)
    assert "student_id_mismatch" not in report.codes()
    assert "inputs_other_student" in report.codes()
    assert report.status == "invalid"


def test_copied_file_fails_without_an_expected_id(evidence):
    """Even when the grader does not pass an id, the inputs must be the file's own student's."""
    evidence["student_id"] = OTHER_STUDENT
    assert "inputs_other_student" in verify_evidence(dump(evidence)).codes()


def test_each_student_gets_different_inputs():
    mine, theirs = evidence_inputs(STUDENT, COHORT), evidence_inputs(OTHER_STUDENT, COHORT)
    assert mine["masked_case"] != theirs["masked_case"]
    assert mine["hand_example"] == theirs["hand_example"]


def test_wrong_cohort_is_reported(reference_evidence):
    report = verify_evidence(dump(reference_evidence), student_id=STUDENT, cohort="c2")
    assert {"cohort_mismatch", "inputs_other_student"} <= set(report.codes())


def test_file_verifies_for_its_own_student_without_expectations(reference_evidence):
    assert verify_evidence(dump(reference_evidence)).status == "ok"


def test_every_problem_is_reported(evidence):
    scale_by_d_k(evidence)
    stated_row_sum_wrong(evidence)
    float64_parity_too_far(evidence)
    context_moves_wrongly(evidence)
    report = verify_evidence(dump(evidence), student_id=STUDENT, cohort=COHORT)
    assert {"scale_wrong", "row_sums", "parity_exceeds_tolerance", "intervention_delta"} <= set(report.codes())
    assert report.points["evidence"] == EVIDENCE_CHECK_POINTS["identity"]


def test_messages_explain_expected_and_why(evidence):
    for mutate, *_ in INCONSISTENT.values():
        mutate(evidence)
    for finding in verify_evidence(dump(evidence)).findings:
        assert len(finding.message) > 60, finding
        assert "Traceback" not in finding.message and "ndarray" not in finding.message


def test_points_match_the_notebook():
    """The verifier's part maxima are the spec's points (autograder.spec)."""
    from tests.support.h2 import SPEC

    points = SPEC.part_points
    assert (points["evidence"], points["limitation"]) == (EVIDENCE_POINTS, LIMITATION_POINTS)


def test_empty_cohort_is_no_cohort(evidence):
    import solutions
    from solutions.evidence import build_evidence

    built = build_evidence(vars(solutions), STUDENT, evidence["limitation"], cohort=None)
    assert verify_evidence(dump(built), student_id=STUDENT, cohort="").status == "ok"
    report = verify_evidence(dump(built), student_id=STUDENT, cohort=COHORT)
    assert report.findings_in("consistency") and not report.findings_in("schema")
    assert "cohort_mismatch" in report.codes()
