"""What an instructor should re-teach: per-part averages and the commonest misconceptions."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from autograder.base.course import Course
from autograder.base.safe_text import shown_id
from autograder.base.wording import plural
from autograder.batch.lateness import NOT_JUDGED, SOURCE_CLAIM_ONLY
from autograder.report.statistics import held_back_students, misconception_counts
from autograder.results import note_codes
from autograder.results.result import (
    STATUS_GRADED,
    SubmissionResult,
    saved_results,
    write_atomically,
)

if TYPE_CHECKING:
    from autograder.assignments import Assignment

SUMMARY_MD = "summary.md"


def render_summary(course: Course, results: list[SubmissionResult], assignment: Assignment,
                   top: int = 5) -> str:
    """Markdown: counts, per-part averages (graded notebooks only) and top diagnoses, for the
    parts of ``assignment`` and as its checks word them."""
    graded = [r for r in results if r.status == STATUS_GRADED]
    lines = [
        f"# {course.assignment}: cohort summary ({course.root.name})",
        "",
        counts_line(results),
        "",
        "| part | average | of | share |",
        "|---|---:|---:|---:|",
    ]
    for part, points in assignment.part_points.items():
        earned = [r.part(part).points for r in graded]
        mean = sum(earned) / len(earned) if earned else 0.0
        lines.append(f"| {part} | {mean:.2f} | {points:g} | {mean / points:.0%} |")
    # Counted as the report counts them (once per student; a submission whose grade waits on
    # a question of integrity is held back, not counted).
    found = misconception_counts(results, assignment)
    lines += ["", "## Most frequent misconceptions", ""]
    if not found:
        lines.append("None diagnosed.")
    for item in found[:top]:
        lines.append(f"- **{item.code}** ({plural(len(item.students), 'student')}): "
                     f"{item.text}")
    held = held_back_students(results, assignment)
    if held:
        lines.append(f"- held back until a person has looked: {plural(len(held), 'student')} "
                     f"({', '.join(shown_id(h.student) for h in held)})")
    return "\n".join(lines + submission_times(results)) + "\n"


def counts_line(results: list[SubmissionResult]) -> str:
    """The summary's first line: how many submissions, graded, late and to review."""
    graded = sum(r.status == STATUS_GRADED for r in results)
    return (f"{len(results)} submissions: {graded} graded, {len(results) - graded} not gradable "
            f"or failed, {sum(r.late for r in results)} late, "
            f"{sum(r.needs_review for r in results)} to review.")


def submission_times(results: list[SubmissionResult]) -> list[str]:
    """The lateness lines: whose time could not be confirmed (and why, both times when the
    record and timestamp.txt disagree), and how many times nothing could confirm."""
    unknown = [r for r in results if r.late_unknown and r.due]
    not_judged = sum(not r.due for r in results)
    claim_only = sum(r.time_source == SOURCE_CLAIM_ONLY for r in results)
    if not unknown and not claim_only and not not_judged:
        return []
    lines = ["", "## Submission times", ""]
    if not_judged:
        lines.append(f"{not_judged} graded without a due date ({NOT_JUDGED}: `late` is "
                     "unknown; give one with `autograde --due` or in cohorts.toml).")
    if claim_only:
        lines.append(f"{claim_only} submission time{'s' if claim_only != 1 else ''} from "
                     "timestamp.txt only (the student's own file; nothing recorded when it "
                     "arrived: collect with `cohort collect` to have it confirmed).")
    if unknown:
        lines.append(f"{len(unknown)} with `late` unknown, to review:")
        lines += [f"- **{shown_id(r.student)}**: " + "; ".join(
            n.text for n in r.notes if n.code == note_codes.TIME_UNCONFIRMED) for r in unknown]
    return lines


def write_summary(course: Course, assignment: Assignment,
                  results: list[SubmissionResult] | None = None) -> Path:
    """Write ``summary.md`` of ``assignment`` at the course root and return its path;
    ``results``: the course's saved results, when the caller has read them already."""
    path = course.root / SUMMARY_MD
    if results is None:
        results = saved_results(course)
    write_atomically(path, render_summary(course, results, assignment))
    return path
