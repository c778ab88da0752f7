"""The schema itself, the schema layer's findings, and the student-side validator."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from autograder.bundles.h2_attention.evidence import (
    EVIDENCE_POINTS,
    SCHEMA_PATH,
    load_schema,
    verify_evidence,
)
from autograder.bundles.h2_attention.sections import IDENTITY, SECTIONS
from solutions.evidence import EVIDENCE_SCHEMA_VERSION
from solutions.evidence_check import validate_evidence_file
from tests.support.h2 import SPEC

from .helpers import COHORT, STUDENT, dump


def _objects(node, path=""):
    """Every subschema (with its location) in the schema."""
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            if key not in ("examples", "const", "enum"):
                yield from _objects(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _objects(value, f"{path}/{index}")


def test_schema_is_draft_2020_12_with_identity():
    schema = load_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].startswith("https://") and EVIDENCE_SCHEMA_VERSION in schema["$id"]
    assert schema["title"] and schema["description"]
    assert schema["properties"]["schema_version"]["const"] == EVIDENCE_SCHEMA_VERSION


def test_the_schema_has_the_sections_the_spec_names():
    """The spec names the evidence checks; every one but the identity check is a required
    section of the file, whose fields the sections table describes (``sections.py``)."""
    schema = load_schema()
    assert [name for name in SPEC.evidence_sections if name != IDENTITY] == list(SECTIONS)
    assert set(SECTIONS) <= set(schema["required"])
    for name, section in SECTIONS.items():
        body = schema["properties"][name]["else"]
        if body["type"] == "array":  # parity: one entry per dtype
            body = schema["$defs"][body["items"]["$ref"].removeprefix("#/$defs/")]
        named = {*section.computed_by, *section.shapes, *section.inputs}
        assert named <= set(body["required"]), name


def test_every_property_has_a_description():
    missing = [
        f"{path}/properties/{name}"
        for path, node in _objects(load_schema())
        for name, sub in node.get("properties", {}).items()
        if not (isinstance(sub, dict) and sub.get("description"))
    ]
    assert missing == []


def test_every_object_refuses_unknown_keys():
    loose = [path for path, node in _objects(load_schema())
             if node.get("type") == "object" and node.get("additionalProperties") is not False]
    assert loose == []


def test_matrices_and_strings_are_bounded():
    schema = load_schema()
    defs = schema["$defs"]
    for name in ("matrix", "weight_matrix", "mask", "vector", "weight_row", "mask_row"):
        assert defs[name]["maxItems"] <= 64
    # Every place a string is accepted bounds it: by maxLength, or (a number that may be
    # recorded as "NaN") by an enum of texts. An ``if`` is a condition: it accepts nothing.
    strings = [(path, node) for path, node in _objects(schema) if not path.endswith("/if")
               and "string" in ([node["type"]] if isinstance(node.get("type"), str)
                                else node.get("type", []))]
    unbounded = [path for path, node in strings if "maxLength" not in node
                 and "enum" not in node.get("then", {})]
    assert len(strings) > 10 and unbounded == []


def test_examples_validate_and_verify():
    """The example is a valid file, and right but for its hand example, whose numbers are made
    up on purpose (issue 42: no file a student gets shows Step 1's answers)."""
    schema = load_schema()
    assert schema["examples"]
    for example in schema["examples"]:
        assert list(Draft202012Validator(schema).iter_errors(example)) == []
        report = verify_evidence(dump(example), student_id=example["student_id"], cohort=example["cohort"])
        errors = [(f.code, f.pointer) for f in report.findings if f.severity == "error"]
        assert errors == [("hand_inputs_changed", f"/hand_example/{name}")
                          for name in ("queries", "keys", "values")], report.findings


def test_reference_evidence_matches_schema(reference_evidence):
    assert list(Draft202012Validator(load_schema()).iter_errors(reference_evidence)) == []


def _set(path):
    def mutate(evidence):
        *parents, last = path
        node = evidence
        for step in parents:
            node = node[step]
        return node, last
    return mutate


def _replace(path, value):
    def mutate(evidence):
        node, last = _set(path)(evidence)
        node[last] = value
    return mutate


def _delete(path):
    def mutate(evidence):
        node, last = _set(path)(evidence)
        del node[last]
    return mutate


def _ragged(evidence):
    evidence["masked_case"]["keys"][3] = evidence["masked_case"]["keys"][3][:2]


def _narrow_weights(evidence):
    evidence["masked_case"]["weights"] = [row[:4] for row in evidence["masked_case"]["weights"]]


def _rows(n):
    def mutate(evidence):
        evidence["hand_example"]["queries"] = [[1.0, 0.0]] * n
    return mutate


def _duplicate_dtype(evidence):
    evidence["parity"][1]["dtype"] = "float64"


# name -> (mutation, code, pointer, words the message must contain)
SCHEMA_CASES = {
    "student id is a number": (_replace(["student_id"], 1), "schema", "/student_id", "text"),
    "cohort is a number": (_replace(["cohort"], 3), "schema", "/cohort", "null"),
    "later schema version": (_replace(["schema_version"], "2.0"), "schema", "/schema_version", '"1.0"'),
    "wrong assignment": (_replace(["assignment"], "h1"), "schema", "/assignment", SPEC.name),
    "missing section": (_delete(["hand_example"]), "missing_field", "/hand_example", "missing"),
    "missing nested field": (_delete(["parity", 0, "atol"]), "missing_field", "/parity/0/atol", "missing"),
    "missing torch version": (_delete(["versions", "torch"]), "missing_field", "/versions/torch", "missing"),
    "misspelt field": (_replace(["limitaton"], ""), "unexpected_field", "/limitaton", "did you mean 'limitation'"),
    "misspelt nested field": (_replace(["intervention", "indx"], 1), "unexpected_field", "/intervention/indx", "did you mean 'index'"),
    "mask as 1/0": (_replace(["masked_case", "mask", 0, 0], 1), "schema", "/masked_case/mask/0/0", "true or false"),
    "weight as text": (_replace(["intervention", "weights_after", 0, 2], "0.5"), "schema",
                       "/intervention/weights_after/0/2", "number"),
    "weight above one": (_replace(["intervention", "weights_after", 0, 3], 1.5), "schema",
                         "/intervention/weights_after/0/3", "at most 1"),
    "negative index": (_replace(["intervention", "index"], -1), "schema", "/intervention/index", "at least 0"),
    "fractional index": (_replace(["intervention", "index"], 2.5), "schema", "/intervention/index", "whole number"),
    "empty matrix": (_replace(["masked_case", "queries"], []), "schema", "/masked_case/queries", "at least 1"),
    "65 rows": (_rows(65), "schema", "/hand_example/queries", "at most 64"),
    "number out of range": (_replace(["hand_example", "context", 0, 0], 1e12), "schema",
                            "/hand_example/context/0/0", "at most"),
    "zero scale": (_replace(["hand_example", "scale"], 0), "schema", "/hand_example/scale", "greater than 0"),
    "negative tolerance": (_replace(["parity", 0, "atol"], -1e-10), "schema", "/parity/0/atol", "at least 0"),
    "unknown dtype": (_replace(["parity", 0, "dtype"], "float16"), "schema", "/parity/0/dtype", "float64"),
    "two float64 entries": (_duplicate_dtype, "schema", "/parity", "float32"),
    "wrong mask convention": (_replace(["masked_case", "mask_convention"], "True means blocked"), "schema",
                              "/masked_case/mask_convention", "may attend"),
    "ragged matrix": (_ragged, "ragged_matrix", "/masked_case/keys/3", "row 3"),
    "shapes disagree": (_narrow_weights, "shape_mismatch", "/masked_case/weights", "n_k"),
    "index beyond the keys": (_replace(["intervention", "index"], 9), "index_out_of_range", "/intervention/index", "only 5"),
    "version with spaces": (_replace(["versions", "numpy"], "latest please"), "schema", "/versions/numpy", "form"),
}


@pytest.mark.parametrize("name", list(SCHEMA_CASES))
def test_schema_problem_is_reported_with_pointer(name, evidence):
    mutate, code, pointer, words = SCHEMA_CASES[name]
    mutate(evidence)
    report = verify_evidence(dump(evidence), student_id=STUDENT, cohort=COHORT)
    assert report.status == "invalid"
    matching = [f for f in report.findings if f.code == code and f.pointer == pointer]
    assert matching, report.findings
    assert all(f.layer == "schema" and f.part == "evidence" for f in matching)
    assert any(words in f.message for f in matching), matching
    assert all("is not of type" not in f.message for f in matching)  # rewritten for students
    assert report.points["evidence"] == 0 and set(report.checks.values()) == {0}
    assert report.points["limitation"] > 0  # the limitation is still judged
    assert report.layers["schema"] == "failed"


def test_every_error_is_reported_not_just_the_first(evidence):
    evidence["student_id"] = 7
    evidence["hand_example"]["weights"][0][1] = "x"
    evidence["masked_case"]["mask"][2][2] = "yes"
    evidence["parity"][0]["rtol"] = -1
    report = verify_evidence(dump(evidence))
    pointers = {f.pointer for f in report.findings if f.layer == "schema"}
    assert pointers == {"/student_id", "/hand_example/weights/0/1", "/masked_case/mask/2/2", "/parity/0/rtol"}


def test_valid_sections_are_still_checked_for_consistency(evidence):
    """A schema error in one section must not hide a wrong number in another."""
    evidence["parity"][0]["dtype"] = "float16"
    evidence["hand_example"]["scale"] = 0.5
    report = verify_evidence(dump(evidence), student_id=STUDENT, cohort=COHORT)
    assert {"schema", "scale_wrong"} <= set(report.codes())
    assert report.points["evidence"] == 0


def test_limitation_schema_error_belongs_to_the_limitation_part(evidence):
    evidence["limitation"] = ["not", "text"]
    report = verify_evidence(dump(evidence), student_id=STUDENT, cohort=COHORT)
    schema = [f for f in report.findings if f.layer == "schema"]
    assert [(f.pointer, f.part) for f in schema] == [("/limitation", "limitation")]
    assert report.points == {"evidence": EVIDENCE_POINTS, "limitation": 0}
    assert report.status == "invalid"


def test_schema_findings_are_capped(evidence):
    evidence["intervention"]["weights_after"] = [["x"] * 64] * 64
    report = verify_evidence(dump(evidence))
    assert 10 < len(report.findings) <= 60
    assert "more schema problems" in report.findings[-1].message or any(
        "more schema problems" in f.message for f in report.findings)


# --- the student-side validator (pasted into a locked notebook cell) -------------------
def test_student_validator_accepts_the_reference(reference_evidence, write):
    assert validate_evidence_file(write("e.json", reference_evidence), SCHEMA_PATH) == []


@pytest.mark.parametrize("name", [n for n, case in SCHEMA_CASES.items() if case[1] in ("schema", "missing_field", "unexpected_field")])
def test_student_validator_agrees_with_the_grader(name, evidence, write, capsys):
    mutate, code, pointer, _ = SCHEMA_CASES[name]
    mutate(evidence)
    problems = validate_evidence_file(write("e.json", evidence), SCHEMA_PATH)
    assert problems and all(": " in p for p in problems)
    parent = pointer.rsplit("/", 1)[0] if code == "missing_field" or code == "unexpected_field" else pointer
    assert any(p.startswith(parent + ":") for p in problems), problems
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("content", [b"{\"a\": NaN}", b"{\"a\": 1, \"a\": 2}", b"\xff{}", b"[1] x",
                                     b"{\"a\": 1e400}"])
def test_student_validator_refuses_unreadable_files(content, write):
    problems = validate_evidence_file(write("e.json", content), SCHEMA_PATH)
    assert len(problems) == 1 and problems[0].startswith(": cannot read")


def test_student_validator_reports_a_missing_file(tmp_path):
    assert validate_evidence_file(tmp_path / "none.json", SCHEMA_PATH)[0].startswith(": cannot read")


def test_student_validator_refuses_large_files(write):
    assert "1 MiB" in validate_evidence_file(write("e.json", b" " * (2**20 + 1)), SCHEMA_PATH)[0]


def test_schema_file_is_strict_json():
    json.loads(SCHEMA_PATH.read_text(encoding="utf-8"), parse_constant=lambda c: pytest.fail(c))
