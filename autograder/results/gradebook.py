"""Write scores into nbgrader's gradebook so ``nbgrader export`` and formgrader show them.

Each part is the ``check_<part>`` grade cell of the notebook; its ``auto_score``
is the part's points. A part a person must read (the limitation, when the
verifier cannot judge it) is left ``needs_manual_grade`` so formgrader lists it.
Writing is idempotent: re-running after an interruption rewrites the same values.
"""

from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Iterable

from autograder.batch.course import Course
from autograder.results.result import SubmissionResult
from autograder.spec import SPEC


def _quiet_sqlalchemy() -> None:
    """SQLAlchemy 2.x warns about nbgrader's models on every run; that is not news to a TA."""
    from sqlalchemy.exc import SAWarning

    warnings.filterwarnings("ignore", category=SAWarning)


def ensure_assignment(gradebook: object, assignment: str, notebook: str) -> None:
    """The assignment, its notebook and grade cells, as ``generate_assignment`` records them."""
    gradebook.update_or_create_assignment(assignment)
    gradebook.update_or_create_notebook(notebook, assignment)
    for part in SPEC.parts:
        gradebook.update_or_create_grade_cell(
            part.grade_cell, notebook, assignment, max_score=part.points, cell_type="code"
        )


def _alembic_head_in_process() -> str:
    """What ``nbgrader.api.get_alembic_version`` computes by running ``alembic heads`` in a
    subprocess (about 3 s of CPU per new gradebook), asked of alembic in this process."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory
    from nbgrader.dbutil import _temp_alembic_ini

    with _temp_alembic_ini("sqlite:////tmp/gradebook.db") as alembic_ini:  # nbgrader's own call
        return ScriptDirectory.from_config(Config(alembic_ini)).get_current_head()


def _open(course: Course, notebook: str) -> object:
    """The course's gradebook with this assignment in it (created on first use)."""
    _quiet_sqlalchemy()
    import nbgrader.api
    from nbgrader.api import Gradebook
    from sqlalchemy import text

    nbgrader.api.get_alembic_version = _alembic_head_in_process

    from autograder.authoring.release import nbgrader_env

    os.environ["PATH"] = nbgrader_env()["PATH"]  # nbgrader runs `alembic` for a new gradebook
    gradebook = Gradebook(course.db_url)
    # nbgrader commits after every row; without an fsync per commit a cohort takes well
    # under a second. results.json files are the durable record: re-running repairs a crash.
    gradebook.db.execute(text("PRAGMA synchronous = OFF"))
    ensure_assignment(gradebook, course.assignment, notebook)
    return gradebook


def prepare(course: Course, notebook: str | None = None) -> threading.Thread:
    """Import nbgrader and create the gradebook in the background while grading runs
    (about 3 s for a new course); ``record`` then only writes scores."""

    def work() -> None:
        try:
            _open(course, notebook or course.assignment).close()
        except Exception:  # noqa: BLE001 - record() opens it again and reports the error
            pass

    thread = threading.Thread(target=work, name="gradebook-prepare", daemon=True)
    thread.start()
    return thread


def record(course: Course, results: Iterable[SubmissionResult], notebook: str | None = None) -> int:
    """Store every result's part scores; returns how many submissions were written."""
    from nbgrader.api import MissingEntry

    notebook = notebook or course.assignment
    written = 0
    gradebook = _open(course, notebook)
    try:
        for result in results:
            gradebook.update_or_create_student(result.student)
            try:
                submission = gradebook.find_submission(course.assignment, result.student)
            except MissingEntry:
                submission = gradebook.add_submission(course.assignment, result.student)
            grades = {grade.name: grade for nb in submission.notebooks for grade in nb.grades}
            for part in result.parts:
                grade = grades[SPEC.part(part.part).grade_cell]
                grade.auto_score = part.points
                grade.needs_manual_grade = part.needs_review
            written += 1
        gradebook.db.commit()
    finally:
        gradebook.close()
    return written
