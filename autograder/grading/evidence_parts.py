"""The evidence verifier's report as graded parts (``evidence`` and ``limitation``)."""

from __future__ import annotations

from autograder.evidence import EvidenceReport, Finding
from autograder.grading.provenance import Provenance
from autograder.grading.scoring import PartScore
from autograder.results.result import CARRIED_FORWARD
from autograder.spec import SPEC

CARRIED_NOTE = (
    f"{CARRIED_FORWARD}: these are the numbers your own functions compute, so the section keeps "
    "its points; the bugs behind them cost points once, in the functions' own parts"
)


def evidence_part_scores(
    report: EvidenceReport, provenance: Provenance | None = None
) -> dict[str, PartScore]:
    """One ``PartScore`` per evidence part: the verifier's points, every finding of
    that part as a message, and its human-review flag on the limitation. With
    ``provenance``, the sections the submitted functions did not reproduce lose
    their points, say why, and flag the evidence part for review."""
    points = SPEC.part_points
    provenance = provenance or Provenance()
    carried = set(provenance.carried)
    notes = [Finding(code="carried_forward", part="evidence", layer="provenance",
                     pointer=f"/{section}", check=section, severity="warning",
                     message=CARRIED_NOTE) for section in provenance.carried]
    findings = [*(f for f in report.findings if f.check not in carried), *provenance.findings,
                *notes]
    unreproduced = sum(float(report.checks.get(section, 0)) for section in provenance.lost)
    recovered = sum(float(SPEC.evidence_sections[section]) for section in carried)
    scores = {}
    for part in SPEC.evidence_parts:
        messages = tuple(
            f"{finding.pointer}: {finding.message}"
            if finding.pointer not in ("", "/")
            else finding.message
            for finding in findings
            if finding.part == part or (finding.part not in SPEC.evidence_parts and part == "evidence")
        )
        earned = min(float(report.points.get(part, 0.0)), float(points[part]))
        if part == "evidence":
            earned = min(float(points[part]), max(0.0, earned - unreproduced) + recovered)
        if part == "limitation" and earned < points[part] and not messages:
            messages = ("the evidence file could not be read (see the evidence part), "
                        "so there was no limitation to grade",)
        scores[part] = PartScore(
            part=part,
            points=earned,
            max_points=points[part],
            messages=messages,
            needs_review=(bool(report.needs_review) and part == "limitation")
            or (provenance.needs_review and part == "evidence"),
        )
    return scores
