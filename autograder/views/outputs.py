"""Write one student's grade of record into every output, without grading anything again.

After a person's decision (``review set``) the student's ``results.json`` and
``feedback.html``, the course's ``grades.csv`` (every saved result, this one updated) and the
gradebook (``nbgrader export``, formgrader) all show the new number; ``cohort export`` and
``report`` read ``results.json``, so they follow.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import closing
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.base.course import RESULTS_JSON, Course
from autograder.results import decisions as decided
from autograder.results.compose import compose
from autograder.results.late_policy import LatePolicy
from autograder.results.result import SubmissionResult, load, saved_results
from autograder.views import gradebook as book
from autograder.views.gradebook import manual_scores
from autograder.views.student_files import write_gradebook, write_grades_csv, write_student

if TYPE_CHECKING:
    from autograder.assignments import Assignment


def rewrite_student(course: Course, result: SubmissionResult, decisions: decided.Decisions,
                    *, assignment: Assignment, gradebook: bool = True) -> SubmissionResult:
    """Apply ``decisions`` to ``result`` (graded for ``assignment``) and write it everywhere;
    returns the grade of record."""
    final = compose(result, decisions)
    write_student(course, assignment, final, graded_notebook=False)
    write_grades_csv(course, assignment, saved_results(course))
    if gradebook:
        write_gradebook(course, assignment, [final], decisions)
    return final


def result_path(course: Course, student: str) -> Path:
    return course.autograded(student) / RESULTS_JSON


def import_formgrader(course: Course, decisions: decided.Decisions, *,
                      assignment: Assignment) -> list[decided.PartDecision]:
    """Record as decisions the manual scores a TA entered in formgrader (``Grade.manual_score``)
    for the parts of ``assignment`` that no decision speaks for yet; the basis is the saved
    result the TA was looking at. Saves ``decisions.json`` when anything was added; returns
    what was."""
    if not _may_hold_manual_scores(course):  # the common case, without importing nbgrader
        return []
    added = []
    for (student, part), score in sorted(manual_scores(course, assignment=assignment).items()):
        entry = decisions.get(student, part)
        if entry is not None and entry.points == score:
            continue
        saved = load(result_path(course, student))
        if saved is None or not any(p.part == part for p in saved.parts):
            continue
        added.append(decisions.set(saved, part, score, by="formgrader",
                                   note="scored in formgrader"))
    if added:
        decisions.save()
    return added


def unread_formgrader(course: Course, decisions: decided.Decisions, *,
                      assignment: Assignment) -> list[tuple[str, str, float]]:
    """The manual scores in formgrader no decision says yet (student, part, score), read
    without changing anything: what the next command that changes the root reads in."""
    if not _may_hold_manual_scores(course):
        return []
    scores = book.manual_scores_read_only(course, assignment=assignment)
    return [(student, part, score) for (student, part), score in sorted(scores.items())
            if (entry := decisions.get(student, part)) is None or entry.points != score]


def _may_hold_manual_scores(course: Course) -> bool:
    """Whether the gradebook may hold a manual score: False only when it surely holds none
    (no gradebook, or SQLite says no grade has one). Asked with the standard library in
    milliseconds, where opening it through nbgrader costs about a second before grading; any
    doubt (another database, an unreadable file) answers True, and nbgrader's own reading
    decides, and says what is wrong."""
    # sqlite3 (1.3 ms): not at a command's start
    import sqlite3

    path = course.gradebook_db()
    if not path.exists():
        return False
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)) as db:
            row = db.execute("SELECT 1 FROM grade WHERE manual_score IS NOT NULL LIMIT 1")
            return row.fetchone() is not None
    except sqlite3.Error:
        return True


def with_decisions(course: Course, results: list[SubmissionResult],
                   decisions: decided.Decisions, policy: LatePolicy | None = None,
                   due_for: Callable[[str], datetime | None] = lambda student: None,
                   *, assignment: Assignment) -> list[SubmissionResult]:
    """The batch's results (graded for ``assignment``) as grades of record: each with its
    student's decisions and the late policy (against that student's due date) applied; where
    that changes what was saved (a decision, one no longer applying, a penalty), the
    student's results.json and feedback.html are written again."""
    policy = policy or LatePolicy()
    final = []
    for result in results:
        record = compose(result, decisions, policy, due_for(result.student))
        if record is not result and record.to_gradescope() != result.to_gradescope():
            write_student(course, assignment, record, graded_notebook=False)
        final.append(record)
    return final
