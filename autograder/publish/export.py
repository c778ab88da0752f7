"""Send a graded course root's grades to the LMS and its feedback to students (TAs).

Any graded course root, a cohort's or a plain one graded with `autograde --root`: writes
nbgrader's export (`nbgrader-export.csv`), `summary.md` (what to re-teach), the Canvas and
Moodle grade files (`canvas-grades.csv`, `moodle-grades.csv`, from the same numbers as
grades.csv; a student with no grade to import is left out and listed) and each graded
student's feedback page in `feedback/<student>/<assignment>/`, ready for `nbgrader
release_feedback`. Scores entered in formgrader since the last run are read in first. The
LMS columns are remembered in the root's course.json: every later command that changes a
grade rewrites these files with them. `cohort export` and `cohort feedback` are this, with
cohorts.toml's settings.

examples:
  python -m autograder export --root ~/courses/hw3-2026
  python -m autograder export --root ~/courses/hw3-2026 --canvas-assignment-name "HW 3" --canvas-assignment-id 123456
  python -m autograder export --moodle-grade-item "HW 3" --moodle-identifier email
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.assignments.arguments import add_graded_root_arguments, graded_course
from autograder.base.course import FEEDBACK, Course
from autograder.base.safe_text import shown_id
from autograder.batch.root_lock import RootBusy, hold
from autograder.publish.views import NBGRADER_EXPORT, publish
from autograder.publish.views import nbgrader_export as write
from autograder.results import root_settings
from autograder.results.result import load, saved_results
from autograder.views.gradebook import GradebookError

if TYPE_CHECKING:
    from autograder.assignments import Assignment
    from autograder.integrations.lms.canvas import CanvasSettings
    from autograder.integrations.lms.grades import LeftOut
    from autograder.integrations.lms.moodle import MoodleSettings


class ExportError(RuntimeError):
    """The root cannot be exported: one line saying why and what to do."""


@dataclass
class ExportFiles:
    grades: Path
    nbgrader: Path
    summary: Path
    canvas: Path
    moodle: Path
    left_out: list[LeftOut]  # students with no grade to import into an LMS
    to_review: list[str]  # in the LMS files, with a number a TA may still change
    feedback: list[Path] = dataclasses.field(default_factory=list)
    # Before the TA imports: grades the LMS would cut or keep above the maximum, ids it
    # would not match (autograder.integrations.lms.checks), a line each.
    warnings: list[str] | None = None


def lms_settings(course: Course, assignment: Assignment, *, canvas_name: str | None = None,
                 canvas_id: str | None = None, canvas_column: str | None = None,
                 moodle_item: str | None = None, moodle_identifier: str | None = None,
                 ) -> tuple[CanvasSettings, MoodleSettings]:
    """The LMS columns to write: those given, else the ones the root remembers, else named
    after the assignment; ``ValueError`` (one line) for a column an LMS would not take."""
    # the LMS files (NumPy, 55 ms): not at a command's start
    from autograder.integrations.lms.canvas import CanvasSettings
    from autograder.integrations.lms.files import settings_from
    from autograder.integrations.lms.moodle import MoodleSettings

    try:
        canvas, moodle = settings_from(
            root_settings.remembered_lms(course.root, course.assignment) or {})
    except (KeyError, TypeError, ValueError):
        canvas, moodle = CanvasSettings(assignment.name), MoodleSettings(assignment.name)
    given_canvas = {key: value for key, value in (
        ("assignment_name", canvas_name), ("assignment_id", canvas_id),
        ("student_column", canvas_column)) if value is not None}
    given_moodle = {key: value for key, value in (
        ("grade_item", moodle_item), ("identifier", moodle_identifier)) if value is not None}
    return (dataclasses.replace(canvas, **given_canvas),
            dataclasses.replace(moodle, **given_moodle))


def export_root(course: Course, assignment: Assignment, canvas: CanvasSettings,
                moodle: MoodleSettings, roster: object = None) -> ExportFiles:
    """Every file the LMS and the students need, from the root's grades of record (see the
    module); ``roster``: Moodle's grading worksheet, for the import warnings."""
    # the LMS files (NumPy, 70 ms), report.summary (440 ms): not at a command's start
    from autograder.integrations.lms import checks
    from autograder.integrations.lms.files import settings_data, write_files
    from autograder.report.summary import write_summary
    from autograder.views.nbgrader_feedback import write_feedback

    restored = restore_gradebook(course, assignment)
    if read_in_formgrader(course, assignment):  # a score entered there since: in every file
        publish(course, assignment)  # below, and in the copies export does not write (report)
    target = course.root / NBGRADER_EXPORT
    nbgrader_export(course, target)
    root_settings.remember_lms(course.root, course.assignment, settings_data(canvas, moodle))
    lms = write_files(course, canvas, moodle, assignment.total_points)
    exported = {grade.student for grade in lms.grades}
    return ExportFiles(
        grades=course.grades_csv(), nbgrader=target,
        summary=write_summary(course, assignment), canvas=lms.canvas, moodle=lms.moodle,
        left_out=lms.left_out,
        to_review=sorted(r.student for r in saved_results(course)
                         if r.needs_review and r.student in exported),
        feedback=write_feedback(course, assignment),
        warnings=[*([restored] if restored else []),
                  *checks.warnings(lms.grades, canvas, moodle, assignment.total_points, roster)])


def restore_gradebook(course: Course, assignment: Assignment) -> str:
    """When graded scores exist but gradebook.db does not (deleted, or a copy of the root
    without it), write it again from the record, as autograde would (else nbgrader's export
    lists no student, and formgrader none); the line that says so ("" when nothing was
    missing)."""
    # results.decisions (hashlib, 5 ms), views.gradebook (nbgrader): not at a command's start
    from autograder.results.decisions import Decisions
    from autograder.results.result import STATUS_ERROR
    from autograder.views.student_files import write_gradebook

    results = [r for r in saved_results(course) if r.status != STATUS_ERROR]
    if course.gradebook_db().exists() or not any(r.has_total for r in results):
        return ""
    write_gradebook(course, assignment, results, Decisions.load(course.root))
    return (f"{course.gradebook_db()} was missing: written again from results.json "
            f"({sum(r.has_total for r in results)} graded scores) before nbgrader's export")


def nbgrader_export(course: Course, target: Path) -> None:
    """``nbgrader export`` of the root's gradebook into ``target`` (one line when it fails)."""
    try:
        write(course, target)
    except Exception as error:  # nbgrader's own, whatever it is: one line
        raise ExportError(f"nbgrader export failed in {course.root}: "
                          f"{type(error).__name__}: {error}") from None


def read_in_formgrader(course: Course, assignment: Assignment) -> list[str]:
    """Scores a TA entered in formgrader since the last run become decisions, written into
    results.json, feedback.html, grades.csv and the gradebook (and the feedback copies)
    before anything is exported, so one export never shows two numbers for one student;
    returns the students whose grade changed."""
    # results.decisions (hashlib, 5 ms), views (4-80 ms): not at a command's start
    from autograder.results.decisions import DecisionError, Decisions
    from autograder.views.nbgrader_feedback import refresh_pages
    from autograder.views.outputs import import_formgrader, result_path, rewrite_student

    changed = []
    try:
        decisions = Decisions.load(course.root)
        for entry in import_formgrader(course, decisions, assignment=assignment):
            saved = load(result_path(course, entry.student))
            if saved is not None:
                rewrite_student(course, saved, decisions, assignment=assignment)
                refresh_pages(course, assignment, [entry.student])
                changed.append(entry.student)
    except DecisionError as error:
        raise ExportError(str(error)) from None
    return changed


def lms_lines(canvas: CanvasSettings, moodle: MoodleSettings, files: ExportFiles) -> list[str]:
    """Where the LMS files are, how to import them, and who is not in them (and why)."""
    lines = [
        f"canvas: {files.canvas} (Grades > Import; column {canvas.column!r}, students "
        f"by {canvas.student_column})",
        f"moodle: {files.moodle} (Grades > Import > CSV file, UTF-8, comma; identify users "
        f"by mapping {moodle.identifier!r} to {moodle.identifier}, and "
        f"{moodle.grade_item!r} to the assignment's grade item)",
    ]
    lines += [f"warning: {line}" for line in files.warnings or []]
    if files.to_review:
        lines.append(f"in them but to review first ({len(files.to_review)}, needs_review in "
                     f"grades.csv; their points may change): {', '.join(map(shown_id, files.to_review))}")
    if files.left_out:
        lines.append(f"not in the LMS files ({len(files.left_out)}: no grade to import; "
                     "review and grade them by hand):")
        lines += [f"  {shown_id(s.student)}: {s.status}" + (f" ({s.reason})" if s.reason else "")
                  for s in files.left_out]
    return lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_graded_root_arguments(parser)
    canvas = parser.add_argument_group("Canvas (default: remembered, else the assignment's name)")
    canvas.add_argument("--canvas-assignment-name", metavar="NAME")
    canvas.add_argument("--canvas-assignment-id", metavar="N",
                        help="Canvas's number for the assignment (from its address)")
    canvas.add_argument("--canvas-student-id", metavar="COLUMN",
                        help="where the student id goes: SIS Login ID, SIS User ID or ID")
    moodle = parser.add_argument_group("Moodle (default: remembered, else the assignment's name)")
    moodle.add_argument("--moodle-grade-item", metavar="NAME")
    moodle.add_argument("--moodle-identifier", metavar="FIELD",
                        help="the user field the ids are: username, idnumber, email or id")


def run(args: argparse.Namespace) -> int:
    root = args.root.resolve()
    try:
        course, assignment = graded_course(args)
        try:
            canvas, moodle = lms_settings(
                course, assignment, canvas_name=args.canvas_assignment_name,
                canvas_id=args.canvas_assignment_id, canvas_column=args.canvas_student_id,
                moodle_item=args.moodle_grade_item, moodle_identifier=args.moodle_identifier)
        except ValueError as error:
            raise ExportError(str(error)) from None
        with hold(root):
            files = export_root(course, assignment, canvas, moodle)
    except (ExportError, RootBusy, root_settings.RootSettingsError, GradebookError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print("\n".join([f"grades: {files.grades}", f"nbgrader export: {files.nbgrader}",
                     *lms_lines(canvas, moodle, files), f"summary: {files.summary}",
                     feedback_line(root, assignment, len(files.feedback))]))
    return 0


def feedback_line(root: Path, assignment: Assignment, count: int) -> str:
    """Where the feedback pages are and how they reach the students: ``nbgrader
    release_feedback`` where the root names an nbgrader course and exchange (a cohort's, by
    `cohort release`); else it cannot send them (no course id, no exchange), so the line
    says what does."""
    where = f"{count} feedback pages in {root / FEEDBACK}"
    try:
        config = (root / "nbgrader_config.py").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        config = ""
    if "CourseDirectory.course_id" in config and "Exchange.root" in config:
        return (f"{where}: release them with `nbgrader release_feedback {assignment.name}` "
                f"in {root}")
    return (f"{where} (<student>/{assignment.name}/{Path(assignment.notebook).stem}.html): give each "
            "student theirs (an upload to the LMS, or a copy into their folder); `nbgrader "
            "release_feedback` cannot send them from here, as this root names no nbgrader "
            "course or exchange (a cohort of cohorts.toml does, after `cohort release`)")
