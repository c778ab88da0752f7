"""The one writer of a course root's grade files: a student's record and its views, and the
course-wide grades.csv and gradebook.

A student's ``results.json`` (the record), ``feedback.html`` and formgrader's graded notebook
are written together here and nowhere else, as are grades.csv and the gradebook (every
student's row); the copies made for other tools (the LMS files, summary.md, feedback copies
for ``release_feedback``, nbgrader's export, the report) are ``autograder.publish.views``'s.
Every call runs inside the command's change of the root (``autograder.results.journal``), so
a write that fails or is stopped leaves all of them as they were.
``tests/project/test_grade_writers.py`` keeps it the only writer.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.base.course import FEEDBACK_HTML, RESULTS_JSON, Course
from autograder.base.stages import stage
from autograder.results.result import STATUS_ERROR, SubmissionResult, save

if TYPE_CHECKING:
    from autograder.assignments import Assignment
    from autograder.results.decisions import Decisions


def write_student(course: Course, assignment: Assignment, result: SubmissionResult, *,
                  notebook: Path | None = None, folder: Path | None = None,
                  graded_notebook: bool = True) -> None:
    """``result`` as the student's results.json, feedback.html and (``graded_notebook``)
    formgrader's notebook: ``notebook``, the notebook graded (found in ``folder``, the
    submission's, when not given; ``folder`` None: its folder in submitted/)."""
    # views.feedback_page, views.graded_notebook (3+ ms): not at a command's start
    from autograder.views import feedback_page
    from autograder.views import graded_notebook as formgraders

    out = course.autograded(result.student)
    with stage("write: results.json"):
        save(result, out / RESULTS_JSON)
    with stage("write: feedback.html"):
        feedback_page.save(result, out / FEEDBACK_HTML, assignment)
    if graded_notebook:
        with stage("write: graded notebook (formgrader's)"):
            formgraders.write(course, result, notebook, assignment=assignment, folder=folder)


def write_version(result: SubmissionResult, results_json: Path) -> None:
    """A kept version's own result (what that version scored, before any decision), beside
    its files under versions/."""
    save(result, results_json)


def write_grades_csv(course: Course, assignment: Assignment,
                     results: Iterable[SubmissionResult]) -> None:
    """grades.csv, a row for each of ``results`` (every student of the root)."""
    # views.grades_csv: not at a command's start
    from autograder.views import grades_csv

    grades_csv.write(list(results), course.grades_csv(), assignment)


def write_gradebook(course: Course, assignment: Assignment, results: Iterable[SubmissionResult],
                    decisions: Decisions | None = None) -> None:
    """The gradebook's rows of ``results`` (the students whose grade this command wrote; a
    grader error is in no gradebook)."""
    # views.gradebook (nbgrader, deferred in it): not at a command's start
    from autograder.views import gradebook as book

    book.record(course, [result for result in results if result.status != STATUS_ERROR],
                decisions=decisions, assignment=assignment)
