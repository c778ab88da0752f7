"""NaN and infinities travel (issue 26): the notebook's helper records a NaN or infinity the
student's function returned as the text "NaN", "Infinity" or "-Infinity", so the file is
still strict JSON; the schema accepts that text only where a function's result stands; the
verifier fails such a section with one finding in the student's terms ("your function
returned NaN here", naming section and function), never a serialiser's message, and still
checks its inputs. A bare NaN literal is still not JSON (``test_loading``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import solutions
from autograder.bundles.h2_attention.evidence import verify_evidence
from autograder.bundles.h2_attention.evidence.non_finite import decode_numbers, locate
from solutions.evidence import build_evidence, save_evidence
from solutions.evidence_check import validate_evidence_file
from tests.support.h2 import SPEC

from .helpers import COHORT, GOOD_LIMITATION, OTHER_STUDENT, STUDENT, dump


def softmax_over_columns(scores, mask=None, temperature=1.0):
    """The wrong-axis bug: a key no query may attend to gives a column 0/0 = NaN."""
    scores = np.asarray(scores, dtype=float)
    allowed = np.ones(scores.shape, dtype=bool) if mask is None else np.asarray(mask)
    exps = np.where(allowed, np.exp(scores / temperature), 0.0)
    with np.errstate(all="ignore"):
        return exps / exps.sum(axis=-2, keepdims=True)


def nan_weights(Q, K, V, index, new_value, mask=None):
    result = solutions.value_intervention(Q, K, V, index, new_value, mask=mask)
    return {**result, "weights_after": result["weights_after"] * float("nan")}


def infinite_context(Q, K, V, index, new_value, mask=None):
    result = solutions.value_intervention(Q, K, V, index, new_value, mask=mask)
    context = np.array(result["context_after"])
    context[1, 0], context[2, 1] = np.inf, -np.inf
    return {**result, "context_after": context}


def wrong_axis_api() -> dict:
    """The reference with the wrong-axis softmax: every function built on it gives NaN."""
    namespace = dict(vars(solutions.attention))
    namespace["stable_softmax"] = softmax_over_columns
    for name in ("scaled_dot_product_attention", "value_intervention"):
        function = getattr(solutions.attention, name)
        namespace[name] = type(function)(function.__code__, namespace, name,
                                         function.__defaults__, function.__closure__)
    return namespace


def evidence_with(api: dict) -> dict:
    with np.errstate(all="ignore"):
        return build_evidence(api, STUDENT, GOOD_LIMITATION, cohort=COHORT)


# --- the helper -----------------------------------------------------------------------------
def test_the_helper_records_nan_and_infinities_as_text_and_saves_strict_json(tmp_path):
    data = evidence_with({**vars(solutions), "value_intervention": infinite_context})
    after = data["intervention"]["context_after"]
    assert (after[1][0], after[2][1]) == ("Infinity", "-Infinity")
    data = evidence_with({**vars(solutions), "value_intervention": nan_weights})
    assert "error" not in data["intervention"]
    assert {value for row in data["intervention"]["weights_after"] for value in row} == {"NaN"}
    assert data["intervention"]["weights_before"] == data["masked_case"]["weights"]  # numbers
    path = save_evidence(data, str(tmp_path / SPEC.evidence_file))  # allow_nan=False holds
    text = open(path, encoding="utf-8").read()
    assert '"NaN"' in text and "NaN," not in text.replace('"NaN",', "")
    assert json.loads(text, parse_constant=lambda literal: pytest.fail(literal)) == data


def test_a_wrong_axis_softmax_records_its_nan_instead_of_an_error():
    data = evidence_with(wrong_axis_api())
    assert not [name for name in SPEC.evidence_sections
                if isinstance(data.get(name), dict) and "error" in data[name]]
    assert "NaN" in data["masked_case"]["weights"][0]
    assert [entry["max_abs_diff"] for entry in data["parity"]] == ["NaN", "NaN"]
    assert "JSON compliant" not in json.dumps(data)


def test_decoding_turns_only_the_helpers_texts_back_into_numbers():
    decoded = decode_numbers({"a": ["NaN", "Infinity", "-Infinity", 1.5, "nan", "NaN "]})
    assert np.isnan(decoded["a"][0]) and decoded["a"][1:4] == [np.inf, -np.inf, 1.5]
    assert decoded["a"][4:] == ["nan", "NaN "]  # other texts stay text (the schema refuses them)


# --- the schema -----------------------------------------------------------------------------
SCHEMA_REFUSES = {  # pointer -> a text the helper never writes there
    ("masked_case", "queries", 0, 0): "NaN",  # inputs are the student's inputs, always finite
    ("intervention", "new_value", 0): "Infinity",
    ("hand_example", "weights", 0, 1): "Infinity",  # a weight is in [0, 1] or NaN
    ("hand_example", "scale"): "-Infinity",  # the scale is > 0
    ("parity", 0, "max_abs_diff"): "-Infinity",  # a difference's size
    ("parity", 0, "atol"): "NaN",  # the helper's constant, not a result
    ("hand_example", "context", 0, 0): "nan",  # only the helper's spelling
}


@pytest.mark.parametrize("path", list(SCHEMA_REFUSES), ids=lambda p: "/".join(map(str, p)))
def test_the_schema_accepts_the_text_only_where_a_result_stands(evidence, path):
    node = evidence
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = SCHEMA_REFUSES[path]
    report = verify_evidence(dump(evidence), student_id=STUDENT, cohort=COHORT)
    pointer = "".join(f"/{step}" for step in path)
    (finding,) = [f for f in report.findings if f.pointer == pointer]
    assert finding.layer == "schema" and "non_finite_value" not in report.codes()
    assert "is not one of" not in finding.message and "not of type" not in finding.message


def test_the_schema_accepts_the_text_in_every_result(evidence):
    for section, name in (("hand_example", "raw_scores"), ("hand_example", "context"),
                          ("masked_case", "row_sums"), ("intervention", "context_after")):
        value = evidence[section][name]
        if isinstance(value[0], list):
            value[0][0] = "-Infinity"
        else:
            value[0] = "Infinity"
    evidence["hand_example"]["scale"] = "NaN"
    evidence["masked_case"]["weights"][0][0] = "NaN"
    evidence["parity"][1]["max_abs_diff"] = "Infinity"
    report = verify_evidence(dump(evidence), student_id=STUDENT, cohort=COHORT)
    assert report.layers["schema"] == "passed", report.findings
    assert {f.check for f in report.findings if f.code == "non_finite_value"} == {
        "hand_example", "masked_case", "parity", "intervention"}


# --- the verifier ---------------------------------------------------------------------------
def test_the_verifier_says_which_function_returned_nan_where():
    data = evidence_with(wrong_axis_api())
    report = verify_evidence(dump(data), student_id=STUDENT, cohort=COHORT)
    assert report.layers["schema"] == "passed" and report.checks["identity"] == 2
    findings = {f.check: f for f in report.findings if f.code == "non_finite_value"}
    assert set(findings) == {"masked_case", "parity", "intervention"}
    assert {check for check, points in report.checks.items() if points == 0} >= set(findings)
    masked = findings["masked_case"]
    assert masked.pointer == locate(data, "masked_case").pointer
    assert masked.pointer.startswith("/masked_case/weights/0/")
    assert masked.message.startswith("your function returned NaN here "
                                     "(`scaled_dot_product_attention`, in the masked case's weights)")
    assert "`value_intervention`" in findings["intervention"].message
    assert "`torch_sdpa`" in findings["parity"].message
    for finding in report.findings:  # one finding per section, no recomputation of its NaN
        assert "JSON" not in finding.message and "says nan" not in finding.message
    assert [f.code for f in report.findings if f.check == "masked_case"] == ["non_finite_value"]


def test_a_section_with_nan_still_has_its_inputs_checked():
    """A copied file must not slip through because its sections hold NaN."""
    with np.errstate(all="ignore"):
        data = build_evidence(wrong_axis_api(), OTHER_STUDENT, GOOD_LIMITATION, cohort=COHORT)
    report = verify_evidence(dump(data), student_id=STUDENT, cohort=COHORT)
    assert "inputs_other_student" in report.codes()


def test_one_nan_costs_only_its_own_section():
    data = evidence_with({**vars(solutions), "value_intervention": nan_weights})
    report = verify_evidence(dump(data), student_id=STUDENT, cohort=COHORT)
    assert {name for name, points in report.checks.items() if points == 0} == {"intervention"}
    (finding,) = [f for f in report.findings if f.severity == "error"]
    assert finding.code == "non_finite_value" and finding.pointer == "/intervention/weights_after/0/0"
    assert finding.message.startswith("your function returned NaN here (`value_intervention`")
    assert report.points["limitation"] == SPEC.part("limitation").points


def test_an_infinity_is_named_as_one():
    data = evidence_with({**vars(solutions), "value_intervention": infinite_context})
    report = verify_evidence(dump(data), student_id=STUDENT, cohort=COHORT)
    (finding,) = [f for f in report.findings if f.code == "non_finite_value"]
    assert finding.pointer == "/intervention/context_after/1/0"
    assert finding.message.startswith("your function returned infinity here")
    assert "2 of the" in finding.message


# --- the student-side check -------------------------------------------------------------------
def test_the_notebook_check_names_the_function_and_never_a_serialiser(write):
    data = evidence_with(wrong_axis_api())
    problems = validate_evidence_file(write("e.json", data), SPEC.schema_path)
    assert [p.split(":")[0] for p in problems] == sorted(
        locate(data, section).pointer for section in ("intervention", "masked_case", "parity"))
    masked = next(p for p in problems if p.startswith("/masked_case"))
    assert "your function returned NaN here (`scaled_dot_product_attention`" in masked
    assert not any("JSON compliant" in p or "error" in p for p in problems)
    assert validate_evidence_file(write("ok.json", evidence_with(vars(solutions))),
                                  SPEC.schema_path) == []
