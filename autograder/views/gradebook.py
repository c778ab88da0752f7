"""Write scores into nbgrader's gradebook so ``nbgrader export`` and formgrader show them.

Each part is the ``check_<part>`` grade cell of the notebook; its ``auto_score``
is the part's points. A part a person must read (the limitation, when the
verifier cannot judge it) is left ``needs_manual_grade`` so formgrader lists it.
Formgrader counts a submission as autograded only when ``SubmittedAssignment.timestamp``
equals its ``timestamp.txt`` (``submitted_timestamp``), and opens it only with a graded
notebook (``autograder.views.graded_notebook``); its Autograde button is turned off in the
root's nbgrader_config.py when scores are first recorded there (``autograder.views.formgrader``).
A batch is one transaction, all of it or nothing; writing is idempotent: re-running after
an interruption rewrites the same values.

Deferred imports (nbgrader, sqlalchemy, alembic): imported where first used (nbgrader after
``light_import``): ``cohort``, ``export`` and ``review`` import this module at their start,
which nbgrader (500+ ms), SQLAlchemy (100-150 ms) and alembic (another 100 ms) would slow.
"""

from __future__ import annotations

import gc
import threading
import warnings
from collections.abc import Iterable, Iterator
from contextlib import closing, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.base.course import TIMESTAMP_TXT, Course, parse_time
from autograder.base.stages import stage
from autograder.results import journal, root_settings
from autograder.results.result import STATUS_GRADED, STATUS_UNGRADABLE, PartResult, SubmissionResult
from autograder.views.nbgrader_package import light_import

if TYPE_CHECKING:  # nbgrader and SQLAlchemy are imported when first used (see ``prepare``)
    from nbgrader.api import Assignment, Grade
    from sqlalchemy.orm import Session

    from autograder.assignments import Assignment as Bundle
    from autograder.results.decisions import Decisions


def _quiet_sqlalchemy() -> None:
    """SQLAlchemy 2.x warns about nbgrader's models on every run; that is not news to a TA."""
    from sqlalchemy.exc import SAWarning

    warnings.filterwarnings("ignore", category=SAWarning)


def ensure_assignment(gradebook: object, assignment: str, notebook: str, bundle: Bundle) -> None:
    """The assignment, its notebook and grade cells (one per part of ``bundle``, the
    assignment graded), as ``generate_assignment`` records them."""
    gradebook.update_or_create_assignment(assignment)
    gradebook.update_or_create_notebook(notebook, assignment)
    for part in bundle.parts:
        gradebook.update_or_create_grade_cell(
            part.grade_cell, notebook, assignment, max_score=part.points, cell_type="code"
        )


class GradebookError(RuntimeError):
    """The course's gradebook cannot be opened or written; the message is one line for the TA."""


def _gradebook_error(course: Course, doing: str, error: Exception) -> GradebookError:
    reason = getattr(error, "orig", None) or error  # sqlite's own words, not SQLAlchemy's
    path = course.gradebook_db()
    return GradebookError(
        f"cannot {doing} the gradebook {path}: {' '.join(str(reason).split())} (the course "
        "root must be a folder you can write to, and gradebook.db nbgrader's SQLite gradebook)"
    )


def _expected(error: Exception) -> bool:
    """A database that cannot be opened, read or written (missing folder, no permission, not
    an SQLite file, locked, disk full): the TA's to fix, said in one line. Anything else is a
    bug and surfaces as it is."""
    from sqlalchemy.exc import DatabaseError, OperationalError

    return isinstance(error, OperationalError | OSError) or type(error) is DatabaseError


def create_if_new(db_url: str) -> bool:
    """Make a new gradebook as nbgrader makes one: its tables, and alembic's version table at
    nbgrader's head revision. Returns whether it was new (an existing database is left as it is).

    ``nbgrader.api.Gradebook`` does the same for a new database, but finds the head by running
    ``alembic heads`` in a subprocess (about 3 s, and only with ``alembic`` on PATH); here
    alembic's Python API reads nbgrader's migration scripts (``nbgrader.dbutil.ALEMBIC_DIR``)
    directly. ``Gradebook(db_url)`` then sees an existing gradebook, and ``nbgrader db upgrade``
    one at its head. For SQLite it happens in one ``BEGIN IMMEDIATE`` transaction: all or
    nothing, one creator at a time.
    """
    from sqlalchemy import create_engine, inspect

    light_import()
    engine = create_engine(db_url)
    try:
        with engine.connect() as connection:
            if inspect(connection).get_table_names():
                return False  # the common case: read only, no lock taken
        # Only now: alembic and the migration scripts cost about 0.1 s to import.
        from alembic.runtime.migration import MigrationContext
        from alembic.script import ScriptDirectory
        from nbgrader.api import Base
        from nbgrader.dbutil import ALEMBIC_DIR

        with engine.connect() as connection:
            if engine.dialect.name == "sqlite":
                # pysqlite runs DDL outside a transaction unless one is begun explicitly
                connection.exec_driver_sql("BEGIN IMMEDIATE")
            if inspect(connection).get_table_names():  # another process was quicker
                connection.rollback()
                return False
            Base.metadata.create_all(connection)
            MigrationContext.configure(connection).stamp(ScriptDirectory(ALEMBIC_DIR), "heads")
            connection.commit()
            return True
    finally:
        engine.dispose()


def _open(course: Course, notebook: str, bundle: Bundle) -> object:
    """The course's gradebook with this assignment in it (created on first use)."""
    light_import()  # nbgrader.api without nbgrader's Jupyter server extensions
    _quiet_sqlalchemy()
    from nbgrader.api import Gradebook
    from sqlalchemy import text

    try:
        journal.before_database(course.gradebook_db())  # a change of the root: kept first
        create_if_new(course.db_url)
        gradebook = Gradebook(course.db_url)
    except Exception as error:
        if _expected(error):
            raise _gradebook_error(course, "open", error) from error
        raise
    try:
        # nbgrader commits after every row (here the assignment and its cells; ``record``
        # writes the scores in one transaction): no fsync per commit. results.json files are
        # the durable record: re-running repairs a crash.
        gradebook.db.execute(text("PRAGMA synchronous = OFF"))
        ensure_assignment(gradebook, course.assignment, notebook, bundle)
    except Exception as error:
        gradebook.close()
        if _expected(error):
            raise _gradebook_error(course, "write", error) from error
        raise
    return gradebook


class _Preparation(threading.Thread):
    """``prepare``'s thread: it keeps what went wrong for ``record`` to raise."""

    def __init__(self, course: Course, notebook: str, bundle: Bundle) -> None:
        super().__init__(name="gradebook-prepare", daemon=True)
        self.course, self.notebook, self.bundle = course, notebook, bundle
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            with stage("gradebook thread: import nbgrader, open the database"):
                _open(self.course, self.notebook, self.bundle).close()
        except BaseException as error:  # noqa: BLE001 - raised by record(), in the batch's thread
            self.error = error


_preparing: dict[str, _Preparation] = {}  # db_url -> the latest preparation not yet recorded
_preparing_lock = threading.Lock()


def prepare(course: Course, notebook: str | None = None, *, assignment: Bundle
            ) -> threading.Thread:
    """Import nbgrader and create the gradebook in the background while grading runs;
    ``record`` then only writes scores. Nothing is raised or printed in the thread: ``record``
    raises what went wrong (a ``GradebookError`` it retries once first: a locked database may
    be free by then). ``assignment``: the assignment graded (its parts are the grade cells)."""
    thread = _Preparation(course, notebook or course.assignment, assignment)
    with _preparing_lock:
        _preparing[course.db_url] = thread
    thread.start()
    return thread


def _prepared(course: Course) -> None:
    """Wait for this course's ``prepare``, if any, and raise what it could not handle."""
    with _preparing_lock:
        thread = _preparing.pop(course.db_url, None)
    if thread is None:
        return
    thread.join()
    if thread.error is not None and not isinstance(thread.error, GradebookError):
        raise thread.error


class _NewRows:
    """The rows of new students and submissions, inserted in bulk (an ``executemany`` per
    table): building nbgrader's ORM objects one by one took about 5 ms a submission, at the
    end of the batch while the TA waits. Each submission gets the rows
    ``Gradebook.add_submission`` makes: a submitted notebook for every notebook of the
    assignment, with a grade for each grade and task cell and a comment for each solution and
    task cell; ids are nbgrader's own (``new_uuid``), the other columns its defaults."""

    def __init__(self, assignment: Assignment) -> None:
        self.assignment = assignment
        self.rows: dict[type, list[dict]] = {}

    def add(self, model: type, **values: object) -> str:
        from nbgrader.api import new_uuid

        values.setdefault("id", new_uuid())
        self.rows.setdefault(model, []).append(values)
        return str(values["id"])

    def submission(self, student: str, scores: dict[str, tuple[float, bool]],
                   manual: dict[str, tuple[float | None, object]],
                   timestamp: datetime | None = None, penalty: float = 0.0,
                   extension: timedelta | None = None) -> None:
        """``scores``: cell id -> (points, needs review) of the parts that have a result;
        ``manual``: cell id -> (auto score when a person decided, manual score) (``_manual``);
        ``timestamp``: ``submitted_timestamp``; ``penalty``: our late penalty (nbgrader's
        export subtracts it, as the score of record does)."""
        from nbgrader.api import Comment, Grade, SubmittedAssignment, SubmittedNotebook

        submission = self.add(SubmittedAssignment, assignment_id=self.assignment.id,
                              student_id=student, timestamp=timestamp, extension=extension)
        for notebook in self.assignment.notebooks:
            submitted = self.add(SubmittedNotebook, assignment_id=submission,
                                 notebook_id=notebook.id,
                                 late_submission_penalty=penalty or None)  # nbgrader's None
            penalty = 0.0  # once per submission (one notebook here)
            for cell in [*notebook.grade_cells, *notebook.task_cells]:
                points, review = scores.get(cell.id, (None, True))  # nbgrader's empty grade
                auto, person = manual.get(cell.id, (None, _KEEP))
                self.add(Grade, notebook_id=submitted, cell_id=cell.id,
                         auto_score=points if auto is None else auto, needs_manual_grade=review,
                         manual_score=None if person is _KEEP else person)
            for cell in [*notebook.solution_cells, *notebook.task_cells]:
                self.add(Comment, notebook_id=submitted, cell_id=cell.id)

    def insert(self, session: Session) -> None:
        """Parents before children (a student before its submission, and so on)."""
        from nbgrader.api import Comment, Grade, Student, SubmittedAssignment, SubmittedNotebook
        from sqlalchemy import insert

        for model in (Student, SubmittedAssignment, SubmittedNotebook, Grade, Comment):
            if self.rows.get(model):
                session.execute(insert(model), self.rows[model])


@contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """No cyclic garbage collection during the write: its thousands of new row objects
    would trigger full collections of everything nbgrader and SQLAlchemy imported (about
    0.06 s for 40 submissions, a third of the write), and they make no cycles worth freeing."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def submitted_timestamp(folder: Path) -> datetime | None:
    """The submission's ``timestamp.txt`` exactly as nbgrader reads it (``parse_utc`` of the
    stripped text; naive UTC), None without a readable one: formgrader shows a submission as
    autograded, with its score, only when the gradebook's ``SubmittedAssignment.timestamp``
    equals this (``NbGraderAPI.get_autograded_students``), as nbgrader's autograde sets it."""
    path = folder / TIMESTAMP_TXT
    if not path.is_file():
        return None
    light_import()
    from nbgrader.utils import parse_utc

    try:
        with path.open(encoding="utf-8") as handle:
            return parse_utc(handle.read(10_000).strip())
    except (OSError, ValueError, OverflowError):  # UnicodeDecodeError, dateutil's ParserError
        return None


def _write(session: Session, assignment_name: str, notebook: str,
           results: Iterable[SubmissionResult], bundle: Bundle,
           decisions: Decisions | None = None,
           timestamps: dict[str, datetime | None] | None = None,
           due: datetime | None = None) -> int:
    """Add ``results`` to the session, uncommitted; returns how many submissions they are.
    ``timestamps``: student -> ``SubmittedAssignment.timestamp`` (None where not given).
    ``due``: the course's due date (``Assignment.duedate``, naive UTC as nbgrader keeps it; an
    extended student's own due date is their ``SubmittedAssignment.extension`` beyond it), so
    formgrader and ``nbgrader export`` show the lateness we graded by.

    What is there is read up front, a query each (the assignment with its notebooks and cells,
    all student ids, this assignment's submissions and their grades), not a query per student;
    new students and submissions get the rows ``Gradebook.update_or_create_student`` and
    ``Gradebook.add_submission`` make (``_NewRows``), with the parts' grades set, and the grades
    of submissions already there are updated."""
    from nbgrader.api import Assignment, Grade, Student, SubmittedAssignment, SubmittedNotebook
    from sqlalchemy import select, update

    timestamps = timestamps or {}
    assignment = session.scalars(select(Assignment).where(Assignment.name == assignment_name)).one()
    if due is not None or assignment.duedate is not None:
        assignment.duedate = _naive_utc(due)
    [cells] = [{cell.name: cell.id for cell in nb.grade_cells}
               for nb in assignment.notebooks if nb.name == notebook]
    students = set(session.scalars(select(Student.id)))
    submitted = {student: (row_id, timestamp) for student, row_id, timestamp in session.execute(
        select(SubmittedAssignment.student_id, SubmittedAssignment.id, SubmittedAssignment.timestamp)
        .where(SubmittedAssignment.assignment_id == assignment.id))}
    extended = dict(session.execute(
        select(SubmittedAssignment.student_id, SubmittedAssignment.extension)
        .where(SubmittedAssignment.assignment_id == assignment.id)).all())
    moved: list[dict] = []  # submissions whose timestamp.txt changed (a resubmission)
    new_extensions: list[dict] = []  # submissions whose extension changed
    penalties: dict[str, float] = {}  # student -> late penalty, for submissions already there
    grades: dict[tuple[str, str], Grade] = {  # (student, cell id) -> grade
        (student, grade.cell_id): grade
        for student, grade in session.execute(
            select(SubmittedAssignment.student_id, Grade)
            .join(SubmittedNotebook, Grade.notebook_id == SubmittedNotebook.id)
            .join(SubmittedAssignment, SubmittedNotebook.assignment_id == SubmittedAssignment.id)
            .where(SubmittedAssignment.assignment_id == assignment.id))
    }
    new = _NewRows(assignment)
    results = list(results)
    latest = {result.student: result for result in results}  # the last wins
    # Only a graded submission has a grade (the LMS files' rule, autograder.integrations.lms):
    # nbgrader scores an empty grade 0, so an ungradable one is not written, and one written
    # before it (a graded submission since replaced) is removed with its grader-made student.
    _forget(session, assignment, [s for s, r in latest.items()
                                  if r.status == STATUS_UNGRADABLE and s in submitted])
    for result in latest.values():
        if result.status != STATUS_GRADED:
            continue
        # Formgrader lists a submission for a person by its grades' needs_manual_grade: a
        # submission sent to review for no part of its own (code that reached out, a copied
        # evidence file, an unknown submission time) has every part flagged, so a TA who
        # lives in formgrader sees the whole review queue, not only the parts in it.
        whole = result.needs_review and not any(part.needs_review for part in result.parts)
        scores = {cells[bundle.part(part.part).grade_cell]: (part.points,
                                                             part.needs_review or whole)
                  for part in result.parts}
        manual = {cells[bundle.part(part.part).grade_cell]: _manual(part, decisions, result.student)
                  for part in result.parts}
        if result.student not in students:
            new.add(Student, id=result.student)
            students.add(result.student)
        timestamp = timestamps.get(result.student)
        extension = _extension(result, due)
        if result.student not in submitted:
            new.submission(result.student, scores, manual, timestamp, result.late_penalty,
                           extension)
            submitted[result.student] = ("", timestamp)
        else:
            row_id, before = submitted[result.student]
            if before != timestamp and row_id:
                moved.append({"id": row_id, "timestamp": timestamp})
            if extended.get(result.student) != extension and row_id:
                new_extensions.append({"id": row_id, "extension": extension})
            penalties[result.student] = result.late_penalty
            for cell_id, (points, review) in scores.items():
                grade = grades[result.student, cell_id]
                auto, person = manual[cell_id]
                grade.auto_score = points if auto is None else auto
                grade.needs_manual_grade = review
                if person is not _KEEP:
                    grade.manual_score = person
    new.insert(session)
    if moved:  # by primary key, one executemany
        session.execute(update(SubmittedAssignment), moved)
    if new_extensions:
        session.execute(update(SubmittedAssignment), new_extensions)
    _set_penalties(session, assignment, penalties)
    return sum(result.status == STATUS_GRADED for result in results)


def _naive_utc(moment: datetime | None) -> datetime | None:
    """As nbgrader stores times: naive, in UTC."""
    if moment is None:
        return None
    return (moment.astimezone(UTC) if moment.tzinfo else moment).replace(tzinfo=None)


def _extension(result: SubmissionResult, due: datetime | None) -> timedelta | None:
    """How far the due date ``result`` was judged against lies beyond the course's (its
    student's extension), or None."""
    if due is None or not result.due:
        return None
    try:
        own = parse_time(result.due)
    except (ValueError, OverflowError):
        return None
    beyond = own - (due if due.tzinfo else due.replace(tzinfo=UTC))
    return beyond if beyond > timedelta(0) else None


def _set_penalties(session: Session, assignment: Assignment, penalties: dict[str, float]) -> None:
    """Our late penalty on each submission's notebook (``late_submission_penalty``, which
    ``nbgrader export`` subtracts), so its score is the score of record."""
    from nbgrader.api import SubmittedAssignment, SubmittedNotebook
    from sqlalchemy import select, update

    if not penalties:
        return
    rows = session.execute(
        select(SubmittedNotebook.id, SubmittedAssignment.student_id,
               SubmittedNotebook.late_submission_penalty)
        .join(SubmittedAssignment, SubmittedNotebook.assignment_id == SubmittedAssignment.id)
        .where(SubmittedAssignment.assignment_id == assignment.id,
               SubmittedAssignment.student_id.in_(list(penalties)))
        .order_by(SubmittedNotebook.id)).all()
    first: dict[str, str] = {}
    changes = []
    for notebook_id, student, now in rows:
        wanted = penalties[student] if first.setdefault(student, notebook_id) == notebook_id else 0
        if (now or 0.0) != wanted:  # only what changed: nbgrader's own rows keep their None
            changes.append({"id": notebook_id, "late_submission_penalty": wanted or None})
    if changes:
        session.execute(update(SubmittedNotebook), changes)


def _forget(session: Session, assignment: Assignment, students: list[str]) -> None:
    """Remove these students' submissions of ``assignment`` as
    ``Gradebook.remove_submission`` does, and each student the grader made (no name, email
    or LMS id) left with none: `nbgrader export` lists every student of the gradebook, one
    without a submission with a 0."""
    from nbgrader.api import Student, SubmittedAssignment
    from sqlalchemy import func, select

    if not students:
        return
    for submission in session.scalars(select(SubmittedAssignment).where(
            SubmittedAssignment.assignment_id == assignment.id,
            SubmittedAssignment.student_id.in_(students))):
        for notebook in submission.notebooks:
            for row in [*notebook.grades, *notebook.comments, notebook]:
                session.delete(row)
        session.delete(submission)
    session.flush()
    for student in session.scalars(select(Student).where(Student.id.in_(students))):
        bare = not (student.first_name or student.last_name or student.email
                    or student.lms_user_id)
        if bare and not session.scalar(select(func.count()).select_from(SubmittedAssignment)
                                       .where(SubmittedAssignment.student_id == student.id)):
            session.delete(student)


_KEEP = object()  # a manual score no decision speaks for: left as it is (read in before writing)


def _manual(part: PartResult, decisions: Decisions | None, student: str) -> tuple[float | None, object]:
    """(auto_score, manual_score) of a part's grade: a person's decision is nbgrader's manual
    score over the machine's auto score (``Grade.score`` is then the grade of record); a
    decision that no longer applies clears it; with no decision, a manual score is kept."""
    if part.auto_points is not None:
        return part.auto_points, part.points
    if decisions is not None and decisions.get(student, part.part) is not None:
        return None, None  # decided about an earlier version: not the grade any more
    return None, _KEEP


def manual_scores(course: Course, notebook: str | None = None, *, assignment: Bundle
                  ) -> dict[tuple[str, str], float]:
    """(student, part) -> the manual score formgrader holds for it, for the parts of
    ``assignment`` (empty when there is no gradebook yet)."""
    if not course.gradebook_db().exists():
        return {}
    light_import()  # nbgrader.api without nbgrader's Jupyter server extensions
    from nbgrader.api import Assignment, Grade, GradeCell, SubmittedAssignment, SubmittedNotebook
    from sqlalchemy import select

    part_of = {part.grade_cell: part.name for part in assignment.parts}
    gradebook = _open(course, notebook or course.assignment, assignment)
    try:
        rows = gradebook.db.execute(
            select(SubmittedAssignment.student_id, GradeCell.name, Grade.manual_score)
            .join(SubmittedNotebook, Grade.notebook_id == SubmittedNotebook.id)
            .join(SubmittedAssignment, SubmittedNotebook.assignment_id == SubmittedAssignment.id)
            .join(Assignment, SubmittedAssignment.assignment_id == Assignment.id)
            .join(GradeCell, Grade.cell_id == GradeCell.id)
            .where(Assignment.name == course.assignment, Grade.manual_score.is_not(None))
        ).all()
    except Exception as error:
        if _expected(error):
            raise _gradebook_error(course, "read manual scores from", error) from error
        raise
    finally:
        gradebook.close()
    return {(student, part_of[cell]): float(score) for student, cell, score in rows
            if cell in part_of}


def manual_scores_read_only(course: Course, *, assignment: Bundle
                            ) -> dict[tuple[str, str], float]:
    """``manual_scores`` without opening the gradebook to change it (nbgrader's ``Gradebook``
    adds the assignment it is asked about): for the commands that only read the root
    (``review list``, ``review history``, ``status``). Empty when there is no gradebook or
    SQLite cannot read it (the next command that changes the root says why)."""
    # sqlite3 (1.3 ms): not at a command's start
    import sqlite3

    database = course.gradebook_db()
    if not database.exists():
        return {}
    part_of = {part.grade_cell: part.name for part in assignment.parts}
    try:
        with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5)) as db:
            rows = db.execute(
                "SELECT sa.student_id, bc.name, g.manual_score FROM grade g"
                " JOIN submitted_notebook sn ON g.notebook_id = sn.id"
                " JOIN submitted_assignment sa ON sn.assignment_id = sa.id"
                " JOIN assignment a ON sa.assignment_id = a.id"
                " JOIN base_cell bc ON g.cell_id = bc.id"
                " WHERE a.name = ? AND g.manual_score IS NOT NULL",
                (course.assignment,)).fetchall()
    except sqlite3.Error:
        return {}
    return {(student, part_of[cell]): float(score) for student, cell, score in rows
            if cell in part_of}


def record(course: Course, results: Iterable[SubmissionResult], notebook: str | None = None,
           decisions: Decisions | None = None, *, assignment: Bundle) -> int:
    """Store every graded result's part scores (an ungradable one has none: ``_write``);
    returns how many submissions were written. ``assignment``: the assignment the results
    were graded for (its parts are the notebook's grade cells).

    All of it is one transaction, committed at the end (rolled back on any error): nbgrader's
    ``Gradebook`` methods commit after every row, about 14 ms a submission. The rows are the
    ones those methods would write (``_write``), with nbgrader's own models. Then, for
    formgrader: the root's nbgrader_config.py turns its Autograde button off
    (``autograder.views.formgrader``) and a result without a current graded notebook gets one.
    """
    # views.graded_notebook (NumPy, 55 ms): not at a command's start
    from autograder.views import formgrader, graded_notebook

    notebook = notebook or course.assignment
    results = list(results)
    _prepared(course)
    gradebook = _open(course, notebook, assignment)
    try:
        timestamps = {result.student: submitted_timestamp(course.submitted(result.student))
                      for result in results}
        try:
            due = root_settings.load(course.root, course.assignment).due
        except root_settings.RootSettingsError as error:
            raise GradebookError(str(error)) from None
        with _no_cyclic_gc():
            written = _write(gradebook.db, course.assignment, notebook, results, assignment,
                             decisions, timestamps, due)
            gradebook.db.commit()
    except Exception as error:
        gradebook.db.rollback()
        if _expected(error):
            raise _gradebook_error(course, "write scores into", error) from error
        raise
    finally:
        gradebook.close()
    journal.after_write(course.gradebook_db())  # the fault-injection test's hook
    try:  # formgrader's Autograde button refuses here from now on
        formgrader.install(course.root, course.assignment)
    except formgrader.FormgraderConfigError as error:
        raise GradebookError(str(error)) from None
    if notebook == course.assignment:  # formgrader opens autograded/<s>/<a>/<notebook>.ipynb
        graded_notebook.write_missing(course, results, assignment=assignment)
    return written


def clear_manual_score(course: Course, student: str, part: str,
                       notebook: str | None = None, *, assignment: Bundle) -> None:
    """Clear the manual score formgrader holds for one part of ``assignment`` (a decision
    taken back)."""
    if not course.gradebook_db().exists():
        return
    gradebook = _open(course, notebook or course.assignment, assignment)
    try:
        grade = gradebook.find_grade(assignment.part(part).grade_cell, notebook or course.assignment,
                                     course.assignment, student)
        grade.manual_score = None
        gradebook.db.commit()
    except Exception as error:
        gradebook.db.rollback()
        if _expected(error):
            raise _gradebook_error(course, "clear a manual score in", error) from error
        if type(error).__name__ != "MissingEntry":
            raise
    finally:
        gradebook.close()
