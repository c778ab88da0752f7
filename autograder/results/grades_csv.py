"""``grades.csv``: one row per student, a column per part (written with the csv module).

Every cell is safe text (``safe_text``) and a cell that a spreadsheet would read as
a formula is neutralised (``csv_cell``): a student's message can reach ``reason``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.results.result import LATE_UNKNOWN, SubmissionResult, write_atomically
from autograder.results.safe_text import csv_cell, safe_text
from autograder.untrusted.isolation import FULL_ISOLATION

if TYPE_CHECKING:
    from autograder.assignments import Assignment

FIXED_COLUMNS = ("student", "assignment", "status", "total", "max_score")
TRAILING_COLUMNS = ("late", "late_penalty", "submitted_at", "time_source", "needs_review", "isolation",
                    "reason")


def isolation_summary(applied: list[str]) -> str:
    """``full``, ``weaker: no <steps>``, or empty when no student code ran."""
    if not applied:
        return ""
    missing = [step for step in FULL_ISOLATION if step not in applied]
    return "full" if not missing else "weaker: no " + ", ".join(missing)


def header(assignment: Assignment) -> list[str]:
    """The columns: a column per part of ``assignment``, in its order, between ours."""
    return [*FIXED_COLUMNS, *assignment.part_points, *TRAILING_COLUMNS]


def row(result: SubmissionResult) -> dict[str, object]:
    """One student's cells by column (a part's cell from the part the result carries)."""
    values: dict[str, object] = {
        "student": result.student,
        "assignment": result.assignment,
        "status": result.status,
        "total": f"{result.score:g}",
        "max_score": f"{result.max_score:g}",
        # No due date: nothing was judged, so never "no" (a late student is not on time).
        "late": result.late_label if result.due else LATE_UNKNOWN,
        # Already subtracted from total (autograder.results.late_policy); 0 when none.
        "late_penalty": f"{result.late_penalty:g}",
        "submitted_at": result.submitted_at,
        "time_source": result.time_source,  # what confirms submitted_at (lateness)
        "needs_review": "yes" if result.needs_review else "no",
        "isolation": isolation_summary(result.isolation),
        # The TA's notes too (e.g. whose inputs a copied evidence file holds): grades.csv is
        # the TA's, the student's page never shows them.
        "reason": "; ".join(text for text in (result.reason, *result.ta_notes) if text),
    }
    for part in result.parts:
        values[part.part] = f"{part.points:g}"
    return values


def write(results: Iterable[SubmissionResult], path: Path, assignment: Assignment) -> None:
    """Write every result of ``assignment``, sorted by student, atomically."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=header(assignment), restval="",
                            lineterminator="\n")
    writer.writeheader()
    for result in sorted(results, key=lambda r: r.student):
        writer.writerow({key: csv_cell(safe_text(value)) for key, value in row(result).items()})
    write_atomically(path, buffer.getvalue())
