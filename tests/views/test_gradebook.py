"""The gradebook we write is nbgrader's own: a real SQLite gradebook, the real nbgrader CLI.

``autograder.views.gradebook`` creates a new gradebook itself (nbgrader's tables, stamped
with nbgrader's alembic head through alembic's Python API) instead of letting nbgrader run
``alembic heads`` in a subprocess; these tests prove nbgrader takes it as its own, that
nothing of nbgrader or of the process environment is changed for the process, and that a
gradebook that cannot be opened says so in one line.
"""

from __future__ import annotations

import csv
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.base.course import Course
from autograder.base.nbgrader_command import nbgrader_command
from autograder.results.result import STATUS_GRADED, PartResult, SubmissionResult
from autograder.views import gradebook
from tests.support.vectors import VECTORS  # the small test bundle: the gradebook is the engine's

VENV_BIN = str(Path(sys.executable).parent)


def nbgrader_env() -> dict[str, str]:
    """A subprocess environment in which nbgrader finds `alembic` (the venv's bin first)."""
    return {**os.environ, "PATH": VENV_BIN + os.pathsep + os.environ.get("PATH", "")}


def result(student: str, lose: int = 0) -> SubmissionResult:
    """A graded submission: full points on every part, ``lose`` points off the first."""
    parts = [PartResult(p.name, p.points - (lose if i == 0 else 0), p.points)
             for i, p in enumerate(VECTORS.parts)]
    return SubmissionResult(student=student, assignment=VECTORS.name, status=STATUS_GRADED,
                            parts=parts)


def stamped_versions(root: Path) -> list[str]:
    with sqlite3.connect(root / "gradebook.db") as db:
        return [row[0] for row in db.execute("SELECT version_num FROM alembic_version")]


def nbgrader_head() -> str:
    """The revision nbgrader itself stamps a new gradebook with (its own code, in a subprocess
    so that it runs `alembic heads` exactly as it does for a TA)."""
    out = subprocess.run(
        [sys.executable, "-c", "from nbgrader.api import get_alembic_version as v; print(v())"],
        env=nbgrader_env(), capture_output=True, text=True, check=True, timeout=120,
    )
    return out.stdout.strip()


@pytest.fixture
def course(tmp_path: Path) -> Course:
    root = tmp_path / "course"
    root.mkdir()
    return Course(root, VECTORS.name)


@pytest.mark.slow
def test_new_gradebook_is_nbgraders_own(course):
    """nbgrader upgrades it as its own (no re-stamp, no migration), opens it without running
    alembic, and `nbgrader export` reads our scores back."""
    thread = gradebook.prepare(course, assignment=VECTORS)
    thread.join()
    assert gradebook.record(course, [result("s001"), result("s002", lose=2)],
                            assignment=VECTORS) == 2
    head = nbgrader_head()
    assert stamped_versions(course.root) == [head]

    upgrade = subprocess.run(
        [*nbgrader_command(), "db", "upgrade",
         f"--CourseDirectory.root={course.root}"],
        cwd=course.root, env=nbgrader_env(), capture_output=True, text=True, timeout=120,
    )
    assert upgrade.returncode == 0, upgrade.stderr
    assert stamped_versions(course.root) == [head]

    # nbgrader's Gradebook takes it as an existing gradebook: with no `alembic` reachable it
    # would fail if it thought the database new and tried to stamp it again.
    opened = subprocess.run(
        [sys.executable, "-c",
         "import sys; from nbgrader.api import Gradebook\n"
         "with Gradebook(sys.argv[1]) as gb: print(len(gb.students))", course.db_url],
        env={**os.environ, "PATH": "/nonexistent"}, capture_output=True, text=True, timeout=120,
    )
    assert opened.returncode == 0, opened.stderr
    assert opened.stdout.strip() == "2"

    export = course.root / "export.csv"
    done = subprocess.run(
        [*nbgrader_command(), "export", f"--CourseDirectory.root={course.root}",
         "--to", str(export), "--log-level=WARN"],
        cwd=course.root, env=nbgrader_env(), capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    rows = {row["student_id"]: row for row in csv.DictReader(export.open(encoding="utf-8"))}
    assert float(rows["s001"]["score"]) == 10.0
    assert float(rows["s002"]["score"]) == 8.0
    assert float(rows["s002"]["max_score"]) == 10.0


@pytest.mark.slow
def test_gradebook_made_by_nbgrader_is_used_as_it_is(course):
    """A gradebook nbgrader created (and stamped) itself is written into, never re-stamped."""
    subprocess.run(
        [sys.executable, "-c", "import sys; from nbgrader.api import Gradebook; "
         "Gradebook(sys.argv[1]).close()", course.db_url],
        env=nbgrader_env(), check=True, capture_output=True, timeout=120,
    )
    before = stamped_versions(course.root)
    assert gradebook.record(course, [result("s001", lose=1)], assignment=VECTORS) == 1
    assert stamped_versions(course.root) == before
    with sqlite3.connect(course.root / "gradebook.db") as db:
        [(total,)] = db.execute("SELECT SUM(auto_score) FROM grade").fetchall()
    assert total == 9


def test_record_replaces_no_function_of_nbgrader(course):
    """nbgrader is used as it is, for the whole process: nothing of it is replaced."""
    import nbgrader.api
    import nbgrader.dbutil

    nbgrader_functions = (nbgrader.api.get_alembic_version, nbgrader.dbutil.upgrade,
                          nbgrader.api.Gradebook.__init__)
    gradebook.prepare(course, assignment=VECTORS).join()
    assert gradebook.record(course, [result("s001")], assignment=VECTORS) == 1
    after = (nbgrader.api.get_alembic_version, nbgrader.dbutil.upgrade,
             nbgrader.api.Gradebook.__init__)
    assert after == nbgrader_functions
    # ...and not before this test either (another test may have recorded in this process)
    assert [f.__module__ for f in after] == ["nbgrader.api", "nbgrader.dbutil", "nbgrader.api"]


def test_record_leaves_the_environment_alone(course, monkeypatch):
    """PATH (or anything else of os.environ) is not changed for the process, and the new
    gradebook is stamped all the same: without `alembic` on PATH."""
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # a TA's PATH without the venv's bin
    environment = dict(os.environ)
    gradebook.prepare(course, assignment=VECTORS).join()
    assert gradebook.record(course, [result("s001")], assignment=VECTORS) == 1
    assert dict(os.environ) == environment
    assert len(stamped_versions(course.root)) == 1


def test_record_is_idempotent(course):
    gradebook.record(course, [result("s001", lose=3)], assignment=VECTORS)
    gradebook.record(course, [result("s001", lose=3)], assignment=VECTORS)
    with sqlite3.connect(course.root / "gradebook.db") as db:
        assert db.execute("SELECT COUNT(*) FROM submitted_assignment").fetchone() == (1,)
        assert db.execute("SELECT SUM(auto_score) FROM grade").fetchone() == (7,)


def _unwritable_root(tmp_path: Path, kind: str) -> Course:
    if kind == "root is a file":
        root = tmp_path / "course"
        root.write_text("not a folder\n")
    elif kind == "root does not exist":
        root = tmp_path / "missing" / "course"
    else:  # gradebook.db is not a database
        root = tmp_path / "course"
        root.mkdir()
        (root / "gradebook.db").write_bytes(b"this is not an SQLite file " * 100)
    return Course(root, VECTORS.name)


@pytest.mark.parametrize("kind", ["root is a file", "root does not exist", "not a database"])
def test_a_gradebook_that_cannot_be_opened_is_one_clear_error(tmp_path, kind, capfd):
    course = _unwritable_root(tmp_path, kind)
    thread = gradebook.prepare(course, assignment=VECTORS)  # in the background while grading runs: no noise there
    thread.join()
    assert capfd.readouterr().err == ""
    with pytest.raises(gradebook.GradebookError) as caught:
        gradebook.record(course, [result("s001")], assignment=VECTORS)
    message = str(caught.value)
    assert "\n" not in message
    assert str(course.root / "gradebook.db") in message
    assert "cannot" in message and "sqlalche.me" not in message


def test_an_unexpected_error_in_prepare_is_raised_by_record(course, capfd):
    """Not swallowed: a bug (here nbgrader refusing an assignment without a name) is kept by
    the background thread and raised as it is, in the batch's thread, by record()."""
    from nbgrader.api import InvalidEntry

    broken = Course(course.root, None)
    thread = gradebook.prepare(broken, assignment=VECTORS)
    thread.join()
    assert capfd.readouterr().err == ""
    with pytest.raises(InvalidEntry) as caught:
        gradebook.record(broken, [result("s001")], assignment=VECTORS)
    assert caught.value is thread.error


# --- one transaction per batch -------------------------------------------------------------

def record_per_row(course: Course, results: list[SubmissionResult]) -> None:
    """How ``record`` wrote before it was one transaction: nbgrader's ``Gradebook`` API, which
    commits after every row. The reference the batched write must match, row for row."""
    from nbgrader.api import MissingEntry

    book = gradebook._open(course, course.assignment, VECTORS)
    try:
        for res in results:
            if res.status != STATUS_GRADED:  # no grade to write (see the export test below)
                continue
            book.update_or_create_student(res.student)
            try:
                submission = book.find_submission(course.assignment, res.student)
            except MissingEntry:
                submission = book.add_submission(course.assignment, res.student)
            grades = {grade.name: grade for nb in submission.notebooks for grade in nb.grades}
            for part in res.parts:
                grade = grades[VECTORS.part(part.part).grade_cell]
                grade.auto_score = part.points
                grade.needs_manual_grade = part.needs_review
        book.db.commit()
    finally:
        book.close()


def contents(course: Course) -> dict[str, list[tuple]]:
    """Everything ``record`` writes, by name (row ids are random uuids)."""
    rows = {
        "student": "SELECT id, first_name, last_name, email, lms_user_id FROM student",
        "submission": "SELECT a.name, s.student_id, s.timestamp, s.extension "
                      "FROM submitted_assignment s JOIN assignment a ON s.assignment_id = a.id",
        "notebook": "SELECT sa.student_id, n.name, sn.flagged, sn.late_submission_penalty "
                    "FROM submitted_notebook sn JOIN notebook n ON sn.notebook_id = n.id "
                    "JOIN submitted_assignment sa ON sn.assignment_id = sa.id",
        "grade": "SELECT sa.student_id, n.name, c.name, g.auto_score, g.manual_score, "
                 "g.extra_credit, g.needs_manual_grade FROM grade g "
                 "JOIN base_cell c ON g.cell_id = c.id "
                 "JOIN submitted_notebook sn ON g.notebook_id = sn.id "
                 "JOIN notebook n ON sn.notebook_id = n.id "
                 "JOIN submitted_assignment sa ON sn.assignment_id = sa.id",
        "comment": "SELECT sa.student_id, n.name, c.name, m.auto_comment, m.manual_comment "
                   "FROM comment m JOIN base_cell c ON m.cell_id = c.id "
                   "JOIN submitted_notebook sn ON m.notebook_id = sn.id "
                   "JOIN notebook n ON sn.notebook_id = n.id "
                   "JOIN submitted_assignment sa ON sn.assignment_id = sa.id",
    }
    with sqlite3.connect(course.root / "gradebook.db") as db:
        return {table: sorted(db.execute(query).fetchall(), key=repr)
                for table, query in rows.items()}


def reviewed(student: str, lose: int, review: set[str]) -> SubmissionResult:
    """``result``, with the parts in ``review`` left for a person to grade."""
    res = result(student, lose)
    for part in res.parts:
        part.needs_review = part.part in review
    return res


def test_record_writes_what_the_per_row_api_wrote(tmp_path):
    """Row for row what nbgrader's per-row API wrote: new students and submissions (with a
    grade and comment for every cell of every notebook of the assignment, as
    ``Gradebook.add_submission`` makes them), a student nbgrader already knew, a result without
    parts, and a second batch that re-records students with changed scores and review flags
    alongside new ones."""
    from nbgrader.api import Gradebook

    first = [reviewed("s001", 0, set()), reviewed("s002", 2, {"normalize"}),
             reviewed("s003", 1, {"norm", "normalize"})]
    ungradable = SubmissionResult(student="s006", assignment=VECTORS.name, status="ungradable")
    second = [reviewed("s002", 0, set()), reviewed("s004", 3, {"normalize"}),
              reviewed("s003", 2, {"normalize"}), ungradable, reviewed("s007", 0, set())]
    courses = []
    for name in ("batched", "per_row"):
        (tmp_path / name).mkdir()
        course = Course(tmp_path / name, VECTORS.name)
        gradebook._open(course, course.assignment, VECTORS).close()
        with Gradebook(course.db_url) as book:  # cells and a student a TA may have added
            book.update_or_create_solution_cell("answer", VECTORS.name, VECTORS.name)
            book.update_or_create_task_cell("explain", VECTORS.name, VECTORS.name, max_score=2,
                                            cell_type="markdown")
            book.update_or_create_notebook("appendix", VECTORS.name)
            book.update_or_create_grade_cell("appendix_grade", "appendix", VECTORS.name,
                                             max_score=1, cell_type="code")
            book.add_student("s007", first_name="Ada", email="ada@example.org")
        courses.append(course)
    batched, per_row = courses

    assert gradebook.record(batched, first, assignment=VECTORS) == 3
    record_per_row(per_row, first)
    assert contents(batched) == contents(per_row)
    assert gradebook.record(batched, second, assignment=VECTORS) == 4  # not the ungradable s006
    record_per_row(per_row, second)
    written = contents(batched)
    assert written == contents(per_row)

    assert [s[0] for s in written["student"]] == ["s001", "s002", "s003", "s004", "s007"]
    assert ("s007", "Ada", None, "ada@example.org", None) in written["student"]
    assert len(written["submission"]) == 5
    assert len(written["comment"]) == 5 * 2  # the solution cell and the task cell
    scores = {(g[0], g[2]): (g[3], g[6]) for g in written["grade"]}
    first_part = VECTORS.parts[0]
    assert scores["s003", first_part.grade_cell] == (first_part.points - 2, 0)
    norm, normalize = VECTORS.part("norm"), VECTORS.part("normalize")
    assert scores["s003", norm.grade_cell] == (norm.points, 0)
    assert scores["s003", normalize.grade_cell][1] == 1
    assert scores["s002", normalize.grade_cell] == (normalize.points, 0)
    assert not any(student == "s006" for student, _ in scores)  # no grade: not written
    assert scores["s001", "appendix_grade"] == (None, 1)


@pytest.fixture
def commits():
    """The COMMITs SQLAlchemy issues per database URL (every engine: nbgrader's Gradebook
    creates its own)."""
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    counted: dict[str, int] = {}

    def count(connection) -> None:
        url = connection.engine.url.render_as_string()
        counted[url] = counted.get(url, 0) + 1

    event.listen(Engine, "commit", count)
    yield counted
    event.remove(Engine, "commit", count)


@pytest.mark.parametrize("existing", [False, True], ids=["new", "re-recorded"])
def test_a_batch_is_written_in_a_fixed_number_of_commits(tmp_path, commits, existing):
    """The number of COMMITs does not grow with the batch: nbgrader's API commits every row."""
    counts = []
    for size in (3, 30):
        (tmp_path / str(size)).mkdir()
        course = Course(tmp_path / str(size), VECTORS.name)
        batch = [result(f"s{i:03d}", lose=i % 4) for i in range(size)]
        gradebook.prepare(course, assignment=VECTORS).join()
        if existing:
            gradebook.record(course, batch, assignment=VECTORS)
            batch = [result(f"s{i:03d}", lose=(i + 1) % 4) for i in range(size)]
        commits.clear()
        assert gradebook.record(course, batch, assignment=VECTORS) == size
        counts.append(commits.get(course.db_url, 0))
    assert counts[0] == counts[1], counts
    assert counts[0] > 0  # the listener sees the gradebook's commits at all


def test_a_failed_batch_writes_nothing(course):
    """One transaction: a batch that fails part way leaves the gradebook as it was."""
    gradebook.record(course, [result("s001", lose=1)], assignment=VECTORS)
    before = contents(course)
    broken = result("s003")
    broken.parts[0].part = "no_such_part"
    with pytest.raises(KeyError):
        gradebook.record(course, [result("s001", lose=2), result("s002"), broken],
                         assignment=VECTORS)
    assert contents(course) == before


def test_a_locked_gradebook_is_one_clear_error_and_nothing_is_written(course):
    """Another writer holds the database (sqlite's 5 s busy timeout runs out): one line for
    the TA, nothing half written; once it is free, the same call writes everything."""
    gradebook.record(course, [result("s001")], assignment=VECTORS)
    before = contents(course)
    batch = [result("s001", lose=1), result("s002")]
    holder = sqlite3.connect(course.root / "gradebook.db", isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")  # a write lock: readers may still read
        with pytest.raises(gradebook.GradebookError) as caught:
            gradebook.record(course, batch, assignment=VECTORS)
    finally:
        holder.close()
    message = str(caught.value)
    assert "\n" not in message and "locked" in message
    assert "cannot write scores into the gradebook" in message
    assert contents(course) == before
    assert gradebook.record(course, batch, assignment=VECTORS) == 2
    with sqlite3.connect(course.root / "gradebook.db") as db:
        assert db.execute("SELECT SUM(auto_score) FROM grade").fetchone() == (19,)


# --- an ungradable submission has no grade ---------------------------------------------------

def ungradable(student: str) -> SubmissionResult:
    """What ``grade_submission`` gives a broken notebook: every part (all code) 0."""
    parts = [PartResult(p.name, 0, p.points, ["no notebook was submitted"])
             for p in VECTORS.parts]
    return SubmissionResult(student=student, assignment=VECTORS.name, status="ungradable",
                            reason="no notebook was submitted", parts=parts, needs_review=True)


def nbgrader_export(course: Course) -> dict[str, dict[str, str]]:
    """`nbgrader export`'s rows (the real CLI, as `make demo` runs it), by student."""
    export = course.root / "nbgrader-export.csv"
    done = subprocess.run(
        [*nbgrader_command(), "export", f"--CourseDirectory.root={course.root}",
         "--to", str(export), "--log-level=WARN"],
        cwd=course.root, env=nbgrader_env(), capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return {row["student_id"]: row for row in csv.DictReader(export.open(encoding="utf-8"))}


@pytest.mark.slow
def test_an_ungradable_student_has_no_score_in_nbgrader_export(course):
    """`nbgrader export` writes every student of the gradebook, and 0 for a submission
    whose grades are empty as for a missing one: an ungradable submission is not written,
    one written before it (graded, then resubmitted broken) is removed with the student the
    grader made, and a student the instructor put in the gradebook keeps their row as
    nbgrader shows anyone without a submission (no timestamp)."""
    from nbgrader.api import Gradebook

    gradebook._open(course, course.assignment, VECTORS).close()
    with Gradebook(course.db_url) as book:
        book.add_student("s004", first_name="Ada", email="ada@example.org")
    graded = [result("s001"), result("s002", lose=2), result("s004", lose=1)]
    assert gradebook.record(course, graded, assignment=VECTORS) == 3
    assert set(nbgrader_export(course)) == {"s001", "s002", "s004"}

    # s002 and s004 resubmitted broken notebooks, s003 submitted one; s001 is unchanged
    assert gradebook.record(course, [result("s001"), ungradable("s002"), ungradable("s003"),
                                     ungradable("s004")], assignment=VECTORS) == 1
    rows = nbgrader_export(course)
    assert set(rows) == {"s001", "s004"}  # no s002, no s003: neither has a number
    assert float(rows["s001"]["score"]) == 10.0
    assert rows["s004"]["timestamp"] == "" and rows["s004"]["first_name"] == "Ada"
    written = contents(course)
    assert [s[0] for s in written["submission"]] == [VECTORS.name]  # s001's alone
    assert {g[0] for g in written["grade"]} == {"s001"}
    assert [s[0] for s in written["student"]] == ["s001", "s004"]

    # a run that grades s002 again (fixed) writes it back in full
    assert gradebook.record(course, [result("s002", lose=3)], assignment=VECTORS) == 1
    assert float(nbgrader_export(course)["s002"]["score"]) == 7.0


def test_formgrader_gets_the_due_date_the_extensions_and_the_whole_review_queue(course):
    """Issue 37: `autograde --due` never reached the gradebook (nbgrader export's `duedate` was
    empty), an extended student looked late there, and of the submissions sent to review only
    those with a part in review were flagged (`needs_manual_grade`)."""
    from datetime import UTC, datetime, timedelta

    from nbgrader.api import Gradebook

    from autograder.results import root_settings

    due = datetime(2026, 12, 14, 23, 59, tzinfo=UTC)
    root_settings.save(course.root, VECTORS.name, root_settings.RootSettings(due=due))
    on_time, extended, reached_out, one_part = (result(s) for s in ("s1", "s2", "s3", "s4"))
    for graded in (on_time, reached_out, one_part):
        graded.due = "2026-12-14 23:59:00 UTC"
    extended.due = "2026-12-17 23:59:00 UTC"
    reached_out.needs_review = True  # for no part of its own (its code read a grader file)
    one_part.needs_review = one_part.parts[-1].needs_review = True
    assert gradebook.record(course, [on_time, extended, reached_out, one_part],
                            assignment=VECTORS) == 4

    with Gradebook(course.db_url) as book:
        assert book.find_assignment(VECTORS.name).duedate == due.replace(tzinfo=None)
        extensions = {s: book.find_submission(VECTORS.name, s).extension for s in ("s1", "s2")}
        flags = {s: [grade.needs_manual_grade for grade in
                     book.find_submission_notebook(VECTORS.name, VECTORS.name, s).grades]
                 for s in ("s1", "s3", "s4")}
    assert extensions == {"s1": None, "s2": timedelta(days=3)}
    assert not any(flags["s1"]) and all(flags["s3"]) and sum(flags["s4"]) == 1
    assert {row["duedate"] for row in nbgrader_export(course).values()} == {"2026-12-14 23:59:00"}


def test_publishing_nbgraders_export_writes_what_its_command_writes(course):
    """`publish` runs nbgrader's own CSV export plugin in-process (2.5 s of nbgrader start-up
    saved per command): the file is byte for byte what `nbgrader export` writes."""
    from autograder.publish.views import nbgrader_export as publish_export

    assert gradebook.record(course, [result("s1"), result("s2", lose=3)], assignment=VECTORS) == 2
    nbgrader_export(course)  # the real CLI, into nbgrader-export.csv
    publish_export(course, course.root / "published.csv")
    assert (course.root / "published.csv").read_bytes() == (
        course.root / "nbgrader-export.csv").read_bytes()
