"""Every figure of the report as a CSV file (the csv module), for a spreadsheet or a script.

Cells go through ``safe_text`` and ``csv_cell`` as grades.csv's do: a reason can
quote a student's message, and a cell that starts like a formula must stay text.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from pathlib import Path

from autograder.base.safe_text import csv_cell, safe_text
from autograder.report.evidence_copies import CopiedEvidence
from autograder.report.similarity import Pair
from autograder.report.statistics import Item, Misconception, ReviewLists, Timing
from autograder.results.result import SubmissionResult, write_atomically


def _number(value: float | None, digits: int = 4) -> float | str:
    return "" if value is None else round(value, digits)


def _cell(value: object) -> str:
    """A number as itself (a negative one is not a formula); any text made safe."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value) if isinstance(value, int) else f"{value:g}"
    return csv_cell(safe_text(value))


def write_csv(path: Path, header: Sequence[str], rows: Iterable[Sequence[object]]) -> Path:
    """One CSV file, written atomically; every text cell made safe text."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow([_cell(cell) for cell in row])
    write_atomically(path, buffer.getvalue())
    return path


def scores_rows(results: Sequence[SubmissionResult], timing: Sequence[Timing],
                parts: Sequence[str]) -> tuple[list[str], list[list[object]]]:
    """scores.csv: the histogram's and the part distribution's data, one row a student
    (``parts``: the assignment's, in its order)."""
    hours = {t.student: t.hours_from_due for t in timing}
    parts = list(parts)
    header = ["student", "status", "total", "max_score", *parts, "late", "late_penalty",
              "submitted_at", "hours_from_due", "needs_review"]
    rows = []
    for r in results:
        points = {p.part: f"{p.points:g}" for p in r.parts}
        rows.append([r.student, r.status, r.total_text(), f"{r.max_score:g}",
                     *(points.get(p, "") for p in parts), r.late_label, f"{r.late_penalty:g}",
                     r.submitted_at, _number(hours.get(r.student), 2),
                     "yes" if r.needs_review else "no"])
    return header, rows


def write_all(out_dir: Path, *, results: Sequence[SubmissionResult], parts: Sequence[str],
              items: Sequence[Item], misconceptions: Sequence[Misconception],
              review: ReviewLists, timing: Sequence[Timing], pairs: Sequence[Pair],
              copies: Sequence[CopiedEvidence] | None) -> list[Path]:
    """Write every CSV beside the report; returns their paths (``copies``: None for an
    assignment without an evidence file, which has no evidence_copies.csv)."""
    header, rows = scores_rows(results, timing, parts)
    written = [write_csv(out_dir / "scores.csv", header, rows)]
    written.append(write_csv(
        out_dir / "items.csv",
        ["part", "check", "points", "students", "passed", "pass_share", "discrimination",
         "flags"],
        ([i.part, i.check, f"{i.points:g}", i.students, i.passed, _number(i.pass_share),
          _number(i.discrimination), "; ".join(i.flags)] for i in items)))
    written.append(write_csv(
        out_dir / "misconceptions.csv",
        ["code", "students_count", "students", "parts", "wording", "held_back"],
        ([m.code, len(m.students), " ".join(m.students), " ".join(m.parts), m.text,
          " ".join(m.held_back)] for m in misconceptions)))
    review_rows = [
        *(["needs_review", e.student, e.status, e.reason, " | ".join(e.details)]
          for e in review.needs_review),
        *(["ungradable", e.student, e.status, e.reason, " | ".join(e.details)]
          for e in review.ungradable),
        *(["grader_error", e.student, e.status, e.reason, " | ".join(e.details)]
          for e in review.grader_errors),
        *(["no_result", student, "", "no readable results.json", ""]
          for student in review.without_results),
    ]
    written.append(write_csv(out_dir / "review.csv",
                             ["list", "student", "status", "reason", "details"], review_rows))
    written.append(write_csv(
        out_dir / "submission_times.csv",
        ["student", "submitted_at", "due", "late", "hours_from_due", "late_penalty", "note"],
        ([t.student, t.submitted_at, t.due, t.late, _number(t.hours_from_due, 2),
          f"{t.penalty:g}", t.note] for t in timing)))
    written.append(write_csv(
        out_dir / "similarity.csv",
        ["student_a", "student_b", "coverage_a", "coverage_b", "score", "shared_tokens",
         "flagged"],
        ([p.left, p.right, _number(p.left_coverage), _number(p.right_coverage),
          _number(p.score), p.shared_tokens, "yes" if p.flagged else "no"] for p in pairs)))
    if copies is not None:
        written.append(write_csv(
            out_dir / "evidence_copies.csv",
            ["student", "inputs_of", "student_id_in_file"],
            ([c.student, c.owner or "(no student of this course)", c.file_student_id]
             for c in copies)))
    return written
