"""``write_report``: one graded course root in, ``report/report.html`` and its CSVs out.

The instructor's five minutes after a deadline: what to re-teach (misconceptions
per student), which checks are broken or too easy (item analysis), who needs a
person (review, late) and whether anyone copied (similarity). Everything is
computed from what the trusted side wrote (results.json, grades.csv) and, for
similarity, the submitted notebooks and evidence files read as data: no student
code runs, and nothing here changes a grade.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.base.course import Course
from autograder.report import evidence_copies, figures_csv, similarity, statistics
from autograder.report.evidence_copies import CopiedEvidence
from autograder.report.inputs import INPUTS_FILE
from autograder.report.loading import GradedCourse, load_course
from autograder.report.render import render_html
from autograder.results import journal
from autograder.results.result import SubmissionResult, write_atomically

if TYPE_CHECKING:
    from autograder.assignments import Assignment

REPORT_DIR = "report"
REPORT_HTML = "report.html"


@dataclass
class ReportFiles:
    """What ``write_report`` wrote: the page and the figures' CSV files."""

    html: Path
    csv: list[Path]


@dataclass(frozen=True)
class SideBySide:
    """One passage two submissions share, each side as it was written."""

    tokens: int
    left_where: str
    left_text: str
    right_where: str
    right_text: str


@dataclass
class FlaggedPair:
    pair: similarity.Pair
    passages: list[SideBySide]


@dataclass
class Similarity:
    """The similarity section: pairs compared, those flagged, copied evidence files."""

    compared: int  # submissions whose notebook could be read
    unreadable: list[str]
    pairs: list[similarity.Pair]
    flagged: list[FlaggedPair]
    copies: list[CopiedEvidence]
    starter: str  # which release's starter code was subtracted
    plot: str = ""


@dataclass
class Report:
    """Everything the page shows (the template's only input)."""

    title: str
    root: Path
    assignment: str
    cohort: str | None
    generated: str
    counts: dict[str, int]
    max_score: float
    mean: float | None
    plots: dict[str, str]
    items: list[statistics.Item]
    flag_counts: dict[str, int]
    misconceptions: list[statistics.Misconception]
    held_back: list[statistics.HeldBack]
    review: statistics.ReviewLists
    timing: list[statistics.Timing]
    late: list[statistics.Timing]
    late_unknown: list[statistics.Timing]
    similarity: Similarity
    results: list[SubmissionResult] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)  # the assignment's, in its order
    has_evidence: bool = False  # the assignment has an evidence file
    compares_inputs: bool = False  # ... with per-student inputs: copied files are looked for
    thresholds: dict[str, float] = field(default_factory=dict)


def release_notebook(root: Path, assignment: Assignment) -> Path | None:
    """The release students started from: the course root's, else the repository's (else
    the copy the assignment's bundle carries, when no checkout is there)."""
    for candidate in (Course(root, assignment.name).release_dir / assignment.notebook,
                      assignment.release_notebook, assignment.grader_release_notebook):
        if candidate.is_file():
            return candidate
    return None


def compare_submissions(graded: GradedCourse, assignment: Assignment,
                        cohort: str | None) -> Similarity:
    """Similar pairs of own code, with their shared passages, and (for an assignment with an
    evidence file) the evidence files that hold another student's inputs."""
    course = graded.course
    release = release_notebook(course.root, assignment)
    starter = similarity.Starter.from_notebook(release)
    codes, unreadable = [], []
    folders = graded_folders(graded)
    for student in course.students():
        code = similarity.own_code(student, folders[student] / assignment.notebook, starter)
        if code is None:
            unreadable.append(student)
        else:
            codes.append(code)
    pairs, flagged = similarity.similar_pairs(codes)
    by_name = {code.student: code for code in codes}
    shown = []
    for pair in flagged:
        left, right = by_name[pair.left], by_name[pair.right]
        shown.append(FlaggedPair(pair, [
            SideBySide(block.tokens,
                       similarity.where(left, block.left), similarity.excerpt(left, block.left),
                       similarity.where(right, block.right),
                       similarity.excerpt(right, block.right))
            for block in pair.blocks
        ]))
    copies: list[CopiedEvidence] = []
    if evidence_copies.compares_inputs(assignment):
        copies = evidence_copies.find_copies(folders, assignment, cohort)
    if release is None:
        where = "none found: nothing was subtracted"
    elif release.is_relative_to(course.root):
        where = f"the course root's release/{course.assignment}/{assignment.notebook}"
    else:
        where = f"the repository's release/{course.assignment}/{assignment.notebook}"
    result = Similarity(len(codes), unreadable, pairs, shown, copies, where)
    if pairs:
        from autograder.report import plots  # matplotlib (0.3 s): only when a report is drawn

        result.plot = plots.similarity_histogram([p.score for p in pairs],
                                                 similarity.THRESHOLD)
    return result


def common_cohort(results: list[SubmissionResult]) -> str | None:
    """The one cohort every result was graded for (results.json records it), if any."""
    cohorts = {getattr(result, "cohort", "") or "" for result in results}
    if len(cohorts) != 1:
        return None
    return cohorts.pop() or None


def graded_folders(graded: GradedCourse) -> dict[str, Path]:
    """Each student's graded files: the version that counts (``versions.graded_files``)."""
    # batch.versions (jsonschema, 60 ms): not at a command's start
    from autograder.batch.versions import graded_files

    results = {result.student: result for result in graded.results}
    return {student: graded_files(graded.course, results[student]) if student in results
            else graded.course.submitted(student) for student in graded.course.students()}


def build_report(graded: GradedCourse, assignment: Assignment,
                 cohort: str | None = None) -> Report:
    """Every figure of the report of ``assignment``, computed once (the page and the CSVs
    share them). Without ``cohort``, the cohort the results were graded for, if they name one."""
    results = graded.results
    cohort = cohort or common_cohort(results)
    counted = statistics.counted(results)
    totals = [r.score for r in counted]
    max_score = max((r.max_score for r in results), default=float(assignment.total_points))
    items = statistics.item_analysis(results, assignment)
    found = statistics.misconception_counts(results, assignment)
    timing = statistics.timings(results)
    figures = {}
    # matplotlib (0.3 s): only when a report is drawn, not for `status` or a kept report
    from autograder.report import plots

    if totals:
        figures["scores"] = plots.score_histogram(totals, max_score or assignment.total_points)
        figures["parts"] = plots.part_distribution(statistics.part_shares(results, assignment))
    if found:
        figures["misconceptions"] = plots.misconception_bars(
            {m.code: len(m.students) for m in found})
    offsets = [t.hours_from_due for t in timing if t.hours_from_due is not None]
    if offsets:
        figures["times"] = plots.submission_times(offsets)
    flag_counts = {flag: sum(flag in item.flags for item in items)
                   for flag in (statistics.NOBODY_FAILS, statistics.EVERYBODY_FAILS,
                                statistics.NEGATIVE)}
    title = f"{graded.course.assignment}: instructor report"
    title += f" for cohort {cohort}" if cohort else f" ({graded.root.name})"
    return Report(
        title=title,
        root=graded.root,
        assignment=graded.course.assignment,
        cohort=cohort,
        generated=f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        counts={
            "students": len(graded.students),
            "graded": sum(r.status == "graded" for r in results),
            "ungradable": sum(r.status == "ungradable" for r in results),
            "grader_error": sum(r.status == "grader_error" for r in results),
            "without_results": len(graded.without_results),
            "needs_review": sum(r.needs_review for r in results),
            "late": sum(r.late for r in results),
            "late_unknown": sum(r.late_unknown for r in results),
        },
        max_score=max_score,
        mean=sum(totals) / len(totals) if totals else None,
        plots=figures,
        items=items,
        flag_counts=flag_counts,
        misconceptions=found,
        held_back=statistics.held_back_students(results, assignment),
        review=statistics.review_lists(results, graded.without_results),
        timing=timing,
        late=[t for t in timing if t.late == "yes"],
        late_unknown=[t for t in timing if t.late == "unknown"],
        similarity=compare_submissions(graded, assignment, cohort),
        results=results,
        parts=list(assignment.part_points),
        has_evidence=assignment.evidence is not None,
        compares_inputs=evidence_copies.compares_inputs(assignment),
        thresholds={"coverage": similarity.THRESHOLD, "min_tokens": similarity.MIN_TOKENS,
                    "k": similarity.K, "window": similarity.WINDOW,
                    "negative_below": statistics.NEGATIVE_BELOW},
    )


def save_report(report: Report, out_dir: Path) -> ReportFiles:
    """Write the page and the CSVs of a built report into ``out_dir``. The inputs ``publish``
    noted there are forgotten: this report may be another cohort's (``report.inputs``)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    journal.before_write(out_dir / INPUTS_FILE)
    (out_dir / INPUTS_FILE).unlink(missing_ok=True)
    html = out_dir / REPORT_HTML
    write_atomically(html, render_html(report))
    written = figures_csv.write_all(
        out_dir, results=report.results, parts=report.parts, items=report.items,
        misconceptions=report.misconceptions, review=report.review, timing=report.timing,
        pairs=report.similarity.pairs,
        copies=report.similarity.copies if report.compares_inputs else None)
    return ReportFiles(html, written)


def write_report(root: Path, assignment: Assignment, *, cohort: str | None = None,
                 out_dir: Path | None = None) -> ReportFiles:
    """Write ``report.html`` (self-contained: plots inline, no script, no network) and the
    figures as CSV into ``out_dir`` (default ``root/report``); ``ReportError`` when nothing
    was graded in ``root``. ``cohort`` names the cohort the evidence inputs were drawn for
    (None: the cohort each evidence file names, as the grader does without one)."""
    root = Path(root)
    report = build_report(load_course(root, assignment.name), assignment, cohort)
    return save_report(report, Path(out_dir) if out_dir is not None else root / REPORT_DIR)
