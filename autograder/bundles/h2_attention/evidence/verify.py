"""Runs the layers in order and turns their findings into a status and points.

Order: safe loading (file), schema and shapes (schema), recomputation
(consistency: a section recording a NaN or infinity is said so, not recomputed), the
limitation text (limitation). A later layer runs on what
the earlier ones left intact, so one file gets every problem reported at once.
"""

from __future__ import annotations

import os

from ..sections import SECTIONS
from .consistency import consistency_findings
from .limitation import LimitationResult, judge_limitation
from .loading import load_evidence
from .non_finite import non_finite_findings
from .report import (
    EVIDENCE_CHECK_POINTS,
    EvidenceReport,
    Finding,
    unreadable_report,
)
from .schema_check import (
    schema_findings,
    sections_with,
    structure_findings,
)

# An input mismatch means the sections computed from the student's own inputs (the masked
# case, parity and intervention) are not this student's work.
_VOIDED_BY_OTHER_INPUTS = tuple(name for name, section in SECTIONS.items() if section.own_inputs)


def _source_name(source: str | os.PathLike[str] | bytes) -> str:
    return "<bytes>" if isinstance(source, bytes | bytearray) else os.fspath(source)


def _layer_state(findings: list[Finding], layer: str, ran: bool = True) -> str:
    if not ran:
        return "skipped"
    return "failed" if any(f.layer == layer and f.severity == "error" for f in findings) else "passed"


def _limitation_state(result: LimitationResult, refused: bool) -> str:
    if refused:
        return "skipped"  # the schema refused it (and said why)
    if result.needs_review and not any(f.severity == "error" for f in result.findings):
        return "review"
    return _layer_state(result.findings, "limitation")


def section_errors(data: dict, skip: set[str]) -> list[Finding]:
    """A section the notebook could not compute (``{"error": ...}``): it scores 0, and only
    it; the rest of the file and the limitation are graded as usual."""
    findings = []
    for name in SECTIONS:
        value = data.get(name)
        if name in skip or not (isinstance(value, dict) and "error" in value):
            continue
        findings.append(Finding(
            code="section_not_computed", part="evidence", layer="consistency",
            pointer=f"/{name}", check=name,
            message=(f"the notebook could not compute this section ({value['error']}); it scores "
                     "0 until the functions it needs work: fix them and re-run the notebook"),
        ))
    return findings


def _verify(source: str | os.PathLike[str] | bytes, student_id: str | None,
            cohort: str | None) -> EvidenceReport:
    name = _source_name(source)
    loaded = load_evidence(source)
    if loaded.data is None:
        return unreadable_report(name, loaded.status, loaded.findings)
    data = loaded.data

    schema = schema_findings(data)
    skip = sections_with(schema)
    not_computed = section_errors(data, skip)
    skip |= {finding.check for finding in not_computed}
    schema += structure_findings(data, skip)
    skip = sections_with(schema) | {finding.check for finding in not_computed}
    evidence_schema_ok = not any(f.part == "evidence" for f in schema)

    # A section that records a NaN or infinity of the student's functions: one finding says
    # so, its numbers are not compared (its inputs still are: they must be this student's).
    non_finite = non_finite_findings(data, skip)
    # An untouched release's file (every section a stub's error) is not judged here: whether
    # the student did any work is known from their functions (``no_work``, in provenance).
    consistency = not_computed + non_finite + consistency_findings(
        data, skip, student_id=student_id, cohort=cohort,
        unchecked={finding.check for finding in non_finite})
    # A limitation the schema refused (not text, empty, the placeholder, too few words...)
    # scores 0 and has been explained there: the judge would only say it again.
    limitation_refused = any(f.part == "limitation" for f in schema)
    limitation = (LimitationResult(0, False) if limitation_refused
                  else judge_limitation(data.get("limitation")))
    findings = schema + consistency + limitation.findings

    if evidence_schema_ok:
        failed = {f.check for f in consistency if f.severity == "error"}
        if "inputs_other_student" in {f.code for f in consistency}:
            failed.update(_VOIDED_BY_OTHER_INPUTS)
        checks = {name: (0 if name in failed else pts) for name, pts in EVIDENCE_CHECK_POINTS.items()}
    else:
        checks = dict.fromkeys(EVIDENCE_CHECK_POINTS, 0)
    limitation_points = limitation.points
    if any(f.part == "limitation" and f.layer == "schema" for f in schema):
        limitation_points = 0  # e.g. not a string, or beyond the size bound

    errors = [f for f in findings if f.severity == "error"]
    needs_review = limitation.needs_review or any(
        f.severity == "review" or f.code == "inputs_other_student" for f in findings
    )
    return EvidenceReport(
        source=name,
        status="invalid" if errors else "ok",
        needs_review=needs_review,
        points={"evidence": sum(checks.values()), "limitation": limitation_points},
        checks=checks,
        layers={
            "file": "ok",
            "schema": _layer_state(schema, "schema"),
            "consistency": _layer_state(consistency, "consistency", ran=not set(SECTIONS) <= skip),
            "limitation": _limitation_state(limitation, refused=limitation_refused),
        },
        findings=findings,
        data=data,
    )


def verify_evidence(path_or_bytes: str | os.PathLike[str] | bytes, *, student_id: str | None = None,
                    cohort: str | None = None) -> EvidenceReport:
    """Check one evidence file (path or raw bytes) through every layer; never raises.

    ``student_id``/``cohort``, when given, are who the file must belong to: the
    per-student inputs are regenerated from them and compared.
    """
    try:
        return _verify(path_or_bytes, student_id, cohort)
    except Exception as error:  # last line of defence: one file must not stop a batch
        return unreadable_report(_source_name(path_or_bytes), "unreadable", [Finding(
            code="internal_error", part="evidence", layer="file", pointer="",
            message=(
                f"the checker could not process this file ({type(error).__name__}); this is a "
                "problem in the grader, not necessarily in your file: a person will check it"
            ),
            severity="review",
        )])
