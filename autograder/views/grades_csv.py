"""``grades.csv``: one row per student and assignment, a column per part (the csv module).

A course root may hold several assignments, as nbgrader's does: writing one assignment's
rows keeps the others' (their columns after its own, by assignment name), so a root with
one assignment has exactly its columns. ``read_rows`` reads one assignment's rows back.

Every cell is safe text (``safe_text``) and a cell that a spreadsheet would read as
a formula is neutralised (``csv_cell``): a student's message can reach ``reason``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.base.safe_text import csv_cell, safe_text
from autograder.results.result import LATE_UNKNOWN, SubmissionResult, write_atomically
from autograder.results.version_rules import NEWEST
from autograder.untrusted.isolation import FULL_ISOLATION

if TYPE_CHECKING:
    from autograder.assignments import Assignment

FIXED_COLUMNS = ("student", "assignment", "status", "total", "max_score")
# ``reason`` is what the student is told too; ``ta_notes`` what only the teaching team reads
# (an integrity finding that may name another student): never in ``reason``.
TRAILING_COLUMNS = ("late", "late_penalty", "submitted_at", "time_source", "needs_review", "isolation",
                    "reason", "counted_version", "ta_notes")


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
        "total": result.total_text(),  # none for an ungradable notebook (has_total)
        "max_score": f"{result.max_score:g}",
        # No due date: nothing was judged, so never "no" (a late student is not on time).
        "late": result.late_label if result.due else LATE_UNKNOWN,
        # Already subtracted from total (autograder.results.late_policy); 0 when none.
        "late_penalty": f"{result.late_penalty:g}",
        "submitted_at": result.submitted_at,
        "time_source": result.time_source,  # what confirms submitted_at (lateness)
        "needs_review": "yes" if result.needs_review else "no",
        "isolation": isolation_summary(result.isolation),
        "reason": result.reason,
        # When the course's version rule chose among kept versions: the counted one's time.
        "counted_version": counted_version(result),
        # For the TA only (e.g. whose inputs a copied evidence file holds): a column of its own,
        # so a row's reason can be shown to the student as it is.
        "ta_notes": "; ".join(note.text for note in result.ta_notes),
    }
    for part in result.parts:
        values[part.part] = f"{part.points:g}"
    return values


def counted_version(result: SubmissionResult) -> str:
    """The submission time of the version a rule chose ("" when none did: no choice recorded,
    or the rule is ``newest``, under which the submission counts as nbgrader's does, however
    many versions were kept or whichever rule chose before)."""
    version = result.version or {}
    if version.get("rule", NEWEST) == NEWEST:
        return ""
    counted = next((v for v in version.get("versions") or []
                    if v.get("hash") == version.get("counted")), None)
    return str(counted.get("submitted_at", "")) if counted else ""


def write(results: Iterable[SubmissionResult], path: Path, assignment: Assignment) -> None:
    """Write every result of ``assignment``, sorted by student, atomically; the rows of other
    assignments already in the file are kept as they are."""
    others, other_parts = _other_assignments(path, assignment.name)
    own = [row(result) for result in sorted(results, key=lambda r: r.student)]
    rows = [{key: csv_cell(safe_text(value)) for key, value in cells.items()} for cells in own]
    parts = list(dict.fromkeys([*assignment.part_points, *other_parts]))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=[*FIXED_COLUMNS, *parts, *TRAILING_COLUMNS],
                            restval="", extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(sorted([*rows, *others], key=lambda cells: (
        str(cells.get("assignment") != assignment.name), str(cells.get("assignment")),
        str(cells.get("student")))))
    write_atomically(path, buffer.getvalue())


def read_rows(path: Path, assignment: str) -> dict[str, dict[str, str]]:
    """``assignment``'s rows by student ({} when the file is missing or unreadable)."""
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            return {cells["student"]: cells for cells in csv.DictReader(handle)
                    if cells.get("student") and cells.get("assignment", assignment) == assignment}
    except (OSError, KeyError, ValueError, csv.Error, UnicodeDecodeError):
        return {}


def _other_assignments(path: Path, name: str) -> tuple[list[dict[str, str]], list[str]]:
    """The rows of assignments other than ``name`` in the file at ``path``, and their part
    columns (those a row of theirs fills), by assignment name then the file's order."""
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            rows = [cells for cells in reader if cells.get("assignment") not in (None, "", name)]
            columns = list(reader.fieldnames or ())
    except (OSError, ValueError, csv.Error, UnicodeDecodeError):
        return [], []
    ours = {*FIXED_COLUMNS, *TRAILING_COLUMNS}
    parts: list[str] = []
    for other in sorted({cells["assignment"] for cells in rows}):
        filled = [c for c in columns if c not in ours
                  and any(cells.get(c) for cells in rows if cells["assignment"] == other)]
        parts += filled
    return [{k: v for k, v in cells.items() if k is not None} for cells in rows], parts
