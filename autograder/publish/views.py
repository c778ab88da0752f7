"""``publish``: rewrite every copy of a course root's grades that exists (see the package).

A copy is only rewritten where it already exists: a root nobody exported has no LMS files
to refresh, and ``publish`` makes none. A copy that exists but cannot be rewritten (LMS
files written before their settings were kept in course.json) is named, with the one
command that refreshes it: never silently left stale.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.base.course import Course
from autograder.results import journal, root_settings
from autograder.results.result import write_atomically
from autograder.views.nbgrader_package import light_import

if TYPE_CHECKING:
    from autograder.assignments import Assignment

NBGRADER_EXPORT = "nbgrader-export.csv"


@dataclass
class Published:
    """What ``publish`` rewrote, and what exists but could not be (each with how to fix)."""

    views: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    # What is not the root's to rewrite and is now behind (feedback released to the exchange).
    behind: list[str] = field(default_factory=list)

    def line(self) -> str:
        """One line for the command's output ("" when there was nothing to rewrite)."""
        said = f"also rewritten: {', '.join(self.views)}" if self.views else ""
        if self.stale:
            said += ("; " if said else "") + "NOT rewritten: " + "; ".join(self.stale)
        return "; ".join(part for part in (said, *self.behind) if part)


def publish(course: Course, assignment: Assignment, students: Iterable[str] = ()) -> Published:
    """Rewrite the copies of ``students``' feedback pages and every course-wide copy (LMS
    files, summary.md, nbgrader's export, the report) that exists in the root."""
    done = Published()
    students = list(students)
    views = (("feedback copies", lambda: _feedback_copies(course, assignment, students, done)),
             ("LMS files and summary.md", lambda: _lms_files(course, assignment, done)),
             (NBGRADER_EXPORT, lambda: _nbgrader_export(course, done)),
             ("the report", lambda: _report(course, assignment, done)))
    for name, rewrite in views:
        try:
            rewrite()
        except OSError:  # a full disk, a file that cannot be written: the change is rolled back
            raise
        except Exception as error:  # the grade is saved; a copy that failed is named, not hidden
            done.stale.append(f"{name} ({type(error).__name__}: {error}; fix it, then run "
                              "`python -m autograder status` to see what is current)")
    return done


def _feedback_copies(course: Course, assignment: Assignment, students: list[str],
                     done: Published) -> None:
    # views.nbgrader_feedback (hashlib, 4 ms): not at a command's start
    from autograder.views.nbgrader_feedback import refresh_pages
    from autograder.views.released_feedback import released, stale_line

    refreshed = refresh_pages(course, assignment, students)
    if refreshed:
        done.views.append(f"{len(refreshed)} feedback cop{'y' if len(refreshed) == 1 else 'ies'}"
                          " for release_feedback")
    behind = stale_line(course, assignment, released(course, assignment))  # the exchange's
    if behind:
        done.behind.append(behind)


def _lms_files(course: Course, assignment: Assignment, done: Published) -> None:
    # the LMS files (NumPy, 65 ms), report.summary (400 ms): not at a command's start
    from autograder.integrations.lms.files import FILE_NAMES, settings_from, write_files
    from autograder.report.summary import SUMMARY_MD, write_summary
    from autograder.results.result import saved_results

    summary = (course.root / SUMMARY_MD).is_file()
    existing = [name for name in FILE_NAMES if (course.root / name).is_file()]
    # Read once for both (1.6 ms a result: 1.6 s a view for 1,000 students).
    results = saved_results(course) if summary or existing else []
    if summary:
        write_summary(course, assignment, results)
        done.views.append(SUMMARY_MD)
    if not existing:
        return
    data = root_settings.remembered_lms(course.root, course.assignment)
    try:
        canvas, moodle = settings_from(data or {})
    except (KeyError, TypeError, ValueError):
        done.stale.append(f"{' and '.join(existing)} (written by an earlier version: run "
                          "`cohort export` once to refresh them)")
        return
    write_files(course, canvas, moodle, assignment.total_points, results)
    done.views += list(FILE_NAMES)


def _nbgrader_export(course: Course, done: Published) -> None:
    """nbgrader's own export, where one was written at the root (the demo, `cohort export`)."""
    target = course.root / NBGRADER_EXPORT
    if not target.is_file() or not course.gradebook_db().is_file():
        return
    if _written_after(target, course.gradebook_db()):
        os.utime(target)  # what nbgrader would write now: current (`status` compares times)
        done.views.append(NBGRADER_EXPORT)
        return
    try:
        nbgrader_export(course, target)
    except Exception as error:  # nbgrader's own, whatever it is: named, never a traceback
        done.stale.append(f"{NBGRADER_EXPORT} (nbgrader's export failed: "
                          f"{type(error).__name__}: {error})")
        return
    done.views.append(NBGRADER_EXPORT)


def _written_after(export: Path, database: Path) -> bool:
    """Whether nbgrader's export was written after the gradebook last changed (its database
    file, and SQLite's journal or write-ahead log beside it): it then holds what nbgrader's
    export would write now, and the export (about 4 s for 1,000 students) is skipped.
    Strictly after: file times are as coarse as the kernel's clock tick."""
    try:
        written = export.stat().st_mtime_ns
        changed = [database.stat().st_mtime_ns]
    except OSError:
        return False
    for suffix in ("-journal", "-wal"):
        try:
            changed.append(database.with_name(database.name + suffix).stat().st_mtime_ns)
        except OSError:
            pass
    return written > max(changed)


def nbgrader_export(course: Course, target: Path) -> None:
    """What ``nbgrader export --to TARGET`` writes (its own CSV export plugin, run here on the
    root's gradebook: the same file without starting nbgrader's command, about 2.5 s),
    replaced atomically."""
    light_import()
    # nbgrader (500+ ms): after light_import(), not at a command's start
    from nbgrader.api import Gradebook
    from nbgrader.plugins.export import CsvExportPlugin

    partial = target.with_name(f".{target.name}.partial")
    journal.before_write(partial)
    journal.before_write(target)
    with Gradebook(course.db_url) as book:
        CsvExportPlugin(to=str(partial)).export(book)
    os.replace(partial, target)


def _report(course: Course, assignment: Assignment, done: Published) -> None:
    """The instructor's report, where one was written in its default place: rebuilt when
    what it is built from changed (``report.inputs``), else kept and marked current."""
    # the report (matplotlib, 270-370 ms): not at a command's start
    from autograder.report.build import REPORT_DIR, build_report, release_notebook, save_report
    from autograder.report.inputs import INPUTS_FILE, digest, unchanged
    from autograder.report.loading import load_course

    folder = course.root / REPORT_DIR
    page = folder / "report.html"
    if not page.is_file():
        return
    cohort = root_settings.load(course.root, course.assignment).cohort
    inputs = digest(course, assignment, cohort, release_notebook(course.root, assignment))
    if unchanged(folder, inputs):
        os.utime(page)  # built from what the record holds now: current (`status` compares times)
    else:
        graded = load_course(course.root, course.assignment)
        save_report(build_report(graded, assignment, cohort), folder)
        write_atomically(folder / INPUTS_FILE, inputs)
    done.views.append(f"{REPORT_DIR}/report.html")
