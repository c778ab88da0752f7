"""Result types of the evidence verifier, with the points it awards.

The grader reads ``EvidenceReport.points`` (per nbgrader part); students read the
findings. The points themselves are the bundle's spec's (``assignment.toml``): the
names below are views of it, so a change of weights is one line there.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from ..bundle import H2

EVIDENCE_POINTS = H2.evidence_part.points
LIMITATION_POINTS = H2.limitation_part.points
# How the evidence part splits over its checks; each check is all-or-nothing.
EVIDENCE_CHECK_POINTS: dict[str, int] = H2.evidence_sections
# Limitation that passes the mechanical checks but names no recognised topic, or whose
# length is out of range: provisional points, always with needs_review.
LIMITATION_REVIEW_POINTS = H2.limitation_part.review_points

PARTS = H2.evidence_parts
STATUSES = ("ok", "invalid", "unreadable", "missing")
EXIT_CODES = {"ok": 0, "invalid": 1, "unreadable": 2, "missing": 2}
"""``verify-evidence``'s exit status per report status."""


@dataclass(frozen=True)
class Finding:
    """One problem (or note for a human) with a stable machine code and a student message.

    ``pointer`` is an RFC 6901 JSON pointer into the file ("" = the whole file).
    ``severity``: "error" fails the file; "review" asks a human to look (and sets
    ``needs_review``); "warning" is advice that changes neither. ``message`` reaches the
    student; ``ta_note`` (when set) is for the TA only: what the student must not read,
    such as whose inputs a copied file holds (the grader keeps it in ``ta_notes``).
    """

    code: str
    part: str
    layer: str  # file | schema | consistency | limitation
    pointer: str
    message: str
    severity: str = "error"
    check: str | None = None  # evidence check (key of EVIDENCE_CHECK_POINTS) when relevant
    ta_note: str = ""  # for the TA only, never on the student's page

    def to_dict(self) -> dict:
        """Plain-data form, for JSON output."""
        return asdict(self)


@dataclass
class EvidenceReport:
    """Everything the grader and the student need to know about one evidence file."""

    source: str
    status: str
    needs_review: bool
    points: dict[str, float]
    checks: dict[str, float] = field(default_factory=dict)
    layers: dict[str, str] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    max_points: dict[str, float] = field(
        default_factory=lambda: {"evidence": EVIDENCE_POINTS, "limitation": LIMITATION_POINTS}
    )
    # The parsed file (None if unreadable), for the grader's provenance check
    # (``provenance``); not part of ``to_dict``.
    data: dict | None = field(default=None, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        """True when the file passed every layer (it may still need review)."""
        return self.status == "ok"

    def codes(self) -> list[str]:
        """The finding codes, in report order (handy in tests and logs)."""
        return [finding.code for finding in self.findings]

    def findings_in(self, layer: str) -> list[Finding]:
        """The findings of one layer (file, schema, consistency or limitation)."""
        return [finding for finding in self.findings if finding.layer == layer]

    def to_dict(self) -> dict:
        """JSON-serialisable form (the ``--json`` output of the command line)."""
        return {
            "source": self.source,
            "status": self.status,
            "needs_review": self.needs_review,
            "points": dict(self.points),
            "max_points": dict(self.max_points),
            "checks": {
                name: {"points": earned, "max_points": EVIDENCE_CHECK_POINTS[name]}
                for name, earned in self.checks.items()
            },
            "layers": dict(self.layers),
            "findings": [finding.to_dict() for finding in self.findings],
        }


def unreadable_report(source: str, status: str, findings: list[Finding]) -> EvidenceReport:
    """A report for a file that could not be read or parsed: no points, nothing else checked."""
    return EvidenceReport(
        source=source,
        status=status,
        needs_review=any(finding.severity == "review" for finding in findings),
        points={"evidence": 0, "limitation": 0},
        checks={name: 0 for name in EVIDENCE_CHECK_POINTS},
        layers={"file": status, "schema": "skipped", "consistency": "skipped", "limitation": "skipped"},
        findings=list(findings),
    )


def format_report(report: EvidenceReport) -> str:
    """The report as text a student or TA can read (``verify-evidence``)."""
    status = report.status.upper() + (" (needs human review)" if report.needs_review else "")
    lines = [f"{report.source}: {status}"]
    if report.status in ("ok", "invalid"):
        points = ", ".join(f"{part} {report.points[part]:g}/{report.max_points[part]:g}"
                           for part in report.points)
        lines.append(f"  points: {points}")
        checks = report.to_dict()["checks"]
        lines.append("  evidence checks: " + ", ".join(
            f"{name} {c['points']:g}/{c['max_points']:g}" for name, c in checks.items()))
        lines.append("  layers: " + ", ".join(f"{k} {v}" for k, v in report.layers.items()))
    for finding in report.findings:
        where = finding.pointer or "(whole file)"
        tag = "REVIEW" if finding.severity == "review" else finding.severity.upper()
        lines.append(f"  - {tag} [{finding.layer}/{finding.code}] {where}: {finding.message}")
        if finding.ta_note:
            lines.append(f"    for the TA: {finding.ta_note}")
    return "\n".join(lines)
