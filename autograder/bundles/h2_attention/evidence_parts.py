"""The evidence verifier's report as graded parts (``evidence`` and ``limitation``)."""

from __future__ import annotations

from autograder.grading.scoring import PartScore
from autograder.results.message import Message

from .bundle import H2
from .evidence import EvidenceReport, Finding
from .evidence.non_finite import locate
from .provenance import Provenance
from .raised_sections import RaisedSection

# Said after the label "carried forward" (``Message.carried`` marks the note, not its words).
CARRIED_NOTE = (
    "these are the numbers your own functions compute, so the section keeps "
    "its points; the bugs behind them cost points once, in the functions' own parts"
)
CARRIED = "carried_forward"  # the code of a carried-forward finding


def carried_note(report: EvidenceReport, section: str,
                 raised: RaisedSection | None = None) -> Finding:
    """The note on a carried-forward section; one that records a NaN (or infinity) says
    where and from which function, one recorded as an error which function raised it and
    whose part paid for it, in the student's terms."""
    recorded = locate(report.data, section) if report.data is not None else None
    pointer, message = f"/{section}", CARRIED_NOTE
    if raised is not None:
        message = raised.note()
    elif recorded is not None:
        pointer, message = recorded.pointer, f"{recorded.returned()}; {CARRIED_NOTE}"
    return Finding(code=CARRIED, part="evidence", layer="provenance", pointer=pointer,
                   check=section, severity="warning", message=message)


def evidence_part_scores(
    report: EvidenceReport, provenance: Provenance | None = None
) -> dict[str, PartScore]:
    """One ``PartScore`` per evidence part: the verifier's points, every finding of
    that part as a message, and its human-review flag on the limitation. With
    ``provenance``, the sections the submitted functions did not reproduce lose
    their points, say why, and flag the evidence part for review."""
    points = H2.part_points
    provenance = provenance or Provenance()
    carried = set(provenance.carried)
    raised = {entry.section: entry for entry in provenance.raised}
    notes = [carried_note(report, section, raised.get(section)) for section in provenance.carried]
    # A recorded NaN or error the functions do not compute: provenance says so instead of the
    # verifier (whose words, "your function returned NaN", would not be true).
    disproved = set(provenance.disproved)
    findings = [*(f for f in report.findings if f.check not in carried
                  and not (f.check in disproved
                           and f.code in ("non_finite_value", "section_not_computed"))),
                *provenance.findings, *notes]
    unreproduced = sum(float(report.checks.get(section, 0)) for section in provenance.lost)
    recovered = sum(float(H2.evidence_sections[section]) for section in carried)
    scores = {}
    for part in H2.evidence_parts:
        messages = tuple(
            Message(finding.message, code=finding.code,
                    pointer=finding.pointer if finding.pointer not in ("", "/") else "",
                    carried=finding.code == CARRIED)
            for finding in findings
            if finding.part == part or (finding.part not in H2.evidence_parts and part == "evidence")
        )
        earned = min(float(report.points.get(part, 0.0)), float(points[part]))
        if part == "evidence":
            earned = min(float(points[part]), max(0.0, earned - unreproduced) + recovered)
        if part == "limitation" and earned < points[part] and not messages:
            messages = (Message("the evidence file could not be read (see the evidence part), "
                                "so there was no limitation to grade", code="no_evidence_file"),)
        scores[part] = PartScore(
            part=part,
            points=earned,
            max_points=points[part],
            messages=messages,
            needs_review=(bool(report.needs_review) and part == "limitation")
            or (provenance.needs_review and part == "evidence"),
        )
    return scores
