"""Write scores into nbgrader's gradebook so ``nbgrader export`` and formgrader show them.

Each part is the ``check_<part>`` grade cell of the notebook; its ``auto_score``
is the part's points. A part a person must read (the limitation, when the
verifier cannot judge it) is left ``needs_manual_grade`` so formgrader lists it.
Writing is idempotent: re-running after an interruption rewrites the same values.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable

from autograder.autograde.course import Course
from autograder.autograde.result import SubmissionResult
from autograder.parts import GRADE_CELL_PREFIX, part_points


def _quiet_sqlalchemy() -> None:
    """SQLAlchemy 2.x warns about nbgrader's models on every run; that is not news to a TA."""
    from sqlalchemy.exc import SAWarning

    warnings.filterwarnings("ignore", category=SAWarning)


def ensure_assignment(gradebook: object, assignment: str, notebook: str) -> None:
    """The assignment, its notebook and grade cells, as ``generate_assignment`` records them."""
    gradebook.update_or_create_assignment(assignment)
    gradebook.update_or_create_notebook(notebook, assignment)
    for part, points in part_points().items():
        gradebook.update_or_create_grade_cell(
            f"{GRADE_CELL_PREFIX}{part}", notebook, assignment, max_score=points, cell_type="code"
        )


def record(course: Course, results: Iterable[SubmissionResult], notebook: str | None = None) -> int:
    """Store every result's part scores; returns how many submissions were written."""
    _quiet_sqlalchemy()
    from nbgrader.api import Gradebook, MissingEntry

    from autograder.release import nbgrader_env

    os.environ["PATH"] = nbgrader_env()["PATH"]  # nbgrader runs `alembic` for a new gradebook

    notebook = notebook or course.assignment
    written = 0
    with Gradebook(course.db_url) as gradebook:
        ensure_assignment(gradebook, course.assignment, notebook)
        for result in results:
            gradebook.update_or_create_student(result.student)
            try:
                gradebook.find_submission(course.assignment, result.student)
            except MissingEntry:
                gradebook.add_submission(course.assignment, result.student)
            for part in result.parts:
                grade = gradebook.find_grade(
                    f"{GRADE_CELL_PREFIX}{part.part}", notebook, course.assignment, result.student
                )
                grade.auto_score = part.points
                grade.needs_manual_grade = part.needs_review
            gradebook.db.commit()
            written += 1
    return written
