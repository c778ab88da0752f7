"""Feedback in nbgrader's layout, so ``nbgrader release_feedback`` and ``fetch_feedback`` work.

nbgrader 0.9.6's ``release_feedback`` takes every ``feedback/<student>/<assignment>/
<notebook>.html``, reads ``timestamp.txt`` and ``submission_secret.txt`` beside it (a
missing one stops the whole release with ``FileNotFoundError``) and publishes the page in
the exchange as ``md5(secret + notebook name)``.html. A student's ``fetch_feedback`` finds
it from the secret that their own ``submit`` kept, and saves it as
``<assignment>/feedback/<timestamp>/<notebook>.html``. So per graded student we write
the report under the notebook's name, with both files copied from ``submitted/``, where
``nbgrader collect`` put them.

A submission from an LMS download (``zip_collect``) has neither: nobody ever ran
``submit``. Its report is still written (for uploading to the LMS) with an empty
``timestamp.txt`` (no submission time is known; nbgrader reads an empty one as none) and
a fresh random secret that no student holds, so ``release_feedback`` releases the whole
cohort without stopping, and that page, published under a name nobody can derive, reaches
its student only through the LMS.

Once a root has copies, every command that changes grades lays out the copy of a student
graded later too (``refresh_pages``): ``release_feedback`` would skip a student without one
without a word.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.base.course import FEEDBACK_HTML, RESULTS_JSON, TIMESTAMP_TXT, Course
from autograder.results.result import STATUS_ERROR, load, write_atomically

if TYPE_CHECKING:
    from autograder.assignments import Assignment

SECRET_TXT = "submission_secret.txt"  # written by nbgrader submit, copied by collect


def feedback_page(course: Course, student: str, assignment: Assignment) -> Path:
    """Where ``release_feedback`` looks for the student's page: named after the notebook."""
    return course.feedback(student) / f"{Path(assignment.notebook).stem}.html"


def _copy_or_keep(source: Path, target: Path, fallback: str) -> None:
    """``source``'s text into ``target``; without a source, ``target`` as it is, else
    ``fallback`` (a re-run keeps an LMS student's secret: one released page, not one per run)."""
    if source.is_file():
        write_atomically(target, source.read_text(encoding="utf-8"))
    elif not target.is_file():
        write_atomically(target, fallback)


def _releasable(course: Course, student: str) -> bool:
    """Whether ``student`` has a page to release: a grade (a grader error is ours and is
    retried, not released) and its feedback.html."""
    if not (course.autograded(student) / FEEDBACK_HTML).is_file():
        return False
    result = load(course.autograded(student) / RESULTS_JSON)
    return result is not None and result.status != STATUS_ERROR


def _lay_out(course: Course, student: str, assignment: Assignment) -> Path:
    """The student's page, timestamp and secret in feedback/; returns the page."""
    folder = course.feedback(student)
    page = feedback_page(course, student, assignment)
    write_atomically(page, (course.autograded(student) / FEEDBACK_HTML).read_text(encoding="utf-8"))
    submitted = course.submitted(student)
    _copy_or_keep(submitted / TIMESTAMP_TXT, folder / TIMESTAMP_TXT, "")
    _copy_or_keep(submitted / SECRET_TXT, folder / SECRET_TXT, secrets.token_hex(64))
    return page


def write_feedback(course: Course, assignment: Assignment) -> list[Path]:
    """Write the page, timestamp and secret of every student with a grade of ``assignment``;
    return the pages."""
    return [_lay_out(course, student, assignment) for student in course.students()
            if _releasable(course, student)]


def without_copy(course: Course, assignment: Assignment) -> list[str]:
    """The graded students without a copy, in a root that has feedback copies (none laid out
    yet: [], the root does not use them): ``release_feedback`` would skip them silently."""
    students = course.students()
    missing = [s for s in students if not feedback_page(course, s, assignment).is_file()]
    if len(missing) == len(students):
        return []
    return [student for student in missing if _releasable(course, student)]


def refresh_pages(course: Course, assignment: Assignment, students: list[str]) -> list[Path]:
    """Rewrite the pages of ``students`` that ``write_feedback`` laid out before, from their
    current ``feedback.html`` (their timestamp and secret stay as they are), and lay out the
    copy of every graded student who has none yet in a root that has copies (a student
    collected and graded later); return them."""
    refreshed = []
    for student in students:
        page = feedback_page(course, student, assignment)
        report = course.autograded(student) / FEEDBACK_HTML
        if page.is_file() and report.is_file():
            text = report.read_text(encoding="utf-8")
            if page.read_text(encoding="utf-8") != text:
                write_atomically(page, text)
            refreshed.append(page)
    refreshed += [_lay_out(course, student, assignment)
                  for student in without_copy(course, assignment)]
    return refreshed
