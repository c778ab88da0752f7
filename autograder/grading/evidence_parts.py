"""The evidence verifier's report as graded parts (``evidence`` and ``limitation``)."""

from __future__ import annotations

from autograder.evidence import EvidenceReport
from autograder.grading.scoring import PartScore
from autograder.spec import SPEC


def evidence_part_scores(report: EvidenceReport) -> dict[str, PartScore]:
    """One ``PartScore`` per evidence part: the verifier's points, every finding of
    that part as a message, and its human-review flag on the limitation."""
    points = SPEC.part_points
    scores = {}
    for part in SPEC.evidence_parts:
        messages = tuple(
            f"{finding.pointer}: {finding.message}"
            if finding.pointer not in ("", "/")
            else finding.message
            for finding in report.findings
            if finding.part == part or (finding.part not in SPEC.evidence_parts and part == "evidence")
        )
        earned = min(float(report.points.get(part, 0.0)), float(points[part]))
        if part == "limitation" and earned < points[part] and not messages:
            messages = ("the evidence file could not be read (see the evidence part), "
                        "so there was no limitation to grade",)
        scores[part] = PartScore(
            part=part,
            points=earned,
            max_points=points[part],
            messages=messages,
            needs_review=bool(report.needs_review) and part == "limitation",
        )
    return scores
