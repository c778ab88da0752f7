"""A stub costs only the evidence sections that need it (issue 11): the notebook's evidence
helper records a failing section as ``{"error": ...}`` and still saves the file with the
limitation; the grader gives that section 0 and grades the rest; the student-side check
names it. (A NaN is not an error: the helper records it, see ``test_non_finite``.)"""

from __future__ import annotations

import json

import pytest

import solutions
from autograder.bundles.h2_attention.evidence import verify_evidence
from solutions.evidence import build_evidence
from solutions.evidence_check import validate_evidence_file
from tests.support.h2 import SPEC

STUDENT = "s-stub"
LIMITATION = (
    "Attention weights are not a causal explanation of the output: a key can receive a large "
    "weight while its value vector barely differs from the others, so removing it changes "
    "little, and residual paths and later layers also shape what the model does."
)


def stub(*args, **kwargs):
    raise NotImplementedError()


@pytest.mark.parametrize(
    ("function", "replacement", "sections"),
    [
        ("torch_sdpa", stub, {"parity"}),
        ("value_intervention", stub, {"intervention"}),
    ],
)
def test_only_the_sections_that_need_a_broken_function_are_lost(
    tmp_path, function, replacement, sections
):
    api = {**vars(solutions), function: replacement}
    data = build_evidence(api, STUDENT, LIMITATION)
    errored = {name for name in SPEC.evidence_sections if isinstance(data.get(name), dict)
               and "error" in data[name]}
    assert errored == sections
    path = tmp_path / SPEC.evidence_file
    path.write_text(json.dumps(data, allow_nan=False))  # the file can be saved
    report = verify_evidence(path, student_id=STUDENT)
    lost = {name for name, points in report.checks.items() if points == 0}
    assert lost == sections
    assert report.points["limitation"] == SPEC.part("limitation").points
    assert {f.code for f in report.findings if f.check in sections} == {"section_not_computed"}
    problems = validate_evidence_file(str(path), str(SPEC.schema_path))
    assert [p.split(":")[0] for p in problems] == sorted(f"/{name}" for name in sections)


def test_an_error_record_must_be_only_an_error(tmp_path):
    data = build_evidence({**vars(solutions), "torch_sdpa": stub}, STUDENT, LIMITATION)
    data["parity"]["extra"] = 1
    path = tmp_path / SPEC.evidence_file
    path.write_text(json.dumps(data))
    report = verify_evidence(path, student_id=STUDENT)
    assert report.checks["parity"] == 0
    assert any(f.pointer.startswith("/parity") and f.layer == "schema" for f in report.findings)
