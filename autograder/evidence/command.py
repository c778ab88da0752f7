"""Check attention_evidence.json files: schema, recomputed consistency, and the limitation.

Prints a readable report per file (or JSON with --json). Exit status: 0 when
every file is ok, 1 when one is invalid, 2 when one is missing or unreadable.
"""

from __future__ import annotations

import argparse
import json

from autograder.evidence.report import EvidenceReport
from autograder.evidence.verify import verify_evidence

EXIT_CODES = {"ok": 0, "invalid": 1, "unreadable": 2, "missing": 2}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``python -m autograder verify-evidence``."""
    parser.add_argument("files", nargs="+", metavar="FILE", help="evidence file(s) to check")
    parser.add_argument("--student-id", help="the student the file must belong to")
    parser.add_argument("--cohort", help="the student's cohort (part of the input seed)")
    parser.add_argument("--json", action="store_true",
                        help="print the report as JSON (an object, or a list for several files)")


def format_report(report: EvidenceReport) -> str:
    """The report as text a student or TA can read."""
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


def run(args: argparse.Namespace) -> int:
    """Verify every file (one bad file never stops the others) and return the worst exit code."""
    reports = [verify_evidence(path, student_id=args.student_id, cohort=args.cohort)
               for path in args.files]
    if args.json:
        payload = [r.to_dict() for r in reports]
        print(json.dumps(payload[0] if len(payload) == 1 else payload, indent=2, allow_nan=False))
    else:
        print("\n\n".join(format_report(r) for r in reports))
    return max(EXIT_CODES[r.status] for r in reports)
