"""``grades.csv``: one row per student, a column per part (written with the csv module)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from pathlib import Path

from autograder.results.result import SubmissionResult, write_atomically
from autograder.spec import SPEC

FIXED_COLUMNS = ("student", "assignment", "status", "total", "max_score")
TRAILING_COLUMNS = ("late", "submitted_at", "needs_review", "reason")


def header() -> list[str]:
    return [*FIXED_COLUMNS, *SPEC.part_points, *TRAILING_COLUMNS]


def row(result: SubmissionResult) -> dict[str, object]:
    values: dict[str, object] = {
        "student": result.student,
        "assignment": result.assignment,
        "status": result.status,
        "total": f"{result.score:g}",
        "max_score": f"{result.max_score:g}",
        "late": "yes" if result.late else "no",
        "submitted_at": result.submitted_at,
        "needs_review": "yes" if result.needs_review else "no",
        "reason": result.reason,
    }
    for part in result.parts:
        values[part.part] = f"{part.points:g}"
    return values


def write(results: Iterable[SubmissionResult], path: Path) -> None:
    """Write every result, sorted by student, atomically."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=header(), restval="", lineterminator="\n")
    writer.writeheader()
    for result in sorted(results, key=lambda r: r.student):
        writer.writerow(row(result))
    write_atomically(path, buffer.getvalue())
