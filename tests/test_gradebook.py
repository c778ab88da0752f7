"""The gradebook we write is nbgrader's own: a real SQLite gradebook, the real nbgrader CLI.

``autograder.results.gradebook`` creates a new gradebook itself (nbgrader's tables, stamped
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

from autograder.batch.course import Course
from autograder.results import gradebook
from autograder.results.result import STATUS_GRADED, PartResult, SubmissionResult
from autograder.spec import SPEC

VENV_BIN = str(Path(sys.executable).parent)


def nbgrader_env() -> dict[str, str]:
    """A subprocess environment in which nbgrader finds `alembic` (the venv's bin first)."""
    return {**os.environ, "PATH": VENV_BIN + os.pathsep + os.environ.get("PATH", "")}


def result(student: str, lose: int = 0) -> SubmissionResult:
    """A graded submission: full points on every part, ``lose`` points off the first."""
    parts = [PartResult(p.name, p.points - (lose if i == 0 else 0), p.points)
             for i, p in enumerate(SPEC.parts)]
    return SubmissionResult(student=student, assignment=SPEC.name, status=STATUS_GRADED,
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
    return Course(root, SPEC.name)


@pytest.mark.slow
def test_new_gradebook_is_nbgraders_own(course):
    """nbgrader upgrades it as its own (no re-stamp, no migration), opens it without running
    alembic, and `nbgrader export` reads our scores back."""
    thread = gradebook.prepare(course)
    thread.join()
    assert gradebook.record(course, [result("s001"), result("s002", lose=2)]) == 2
    head = nbgrader_head()
    assert stamped_versions(course.root) == [head]

    upgrade = subprocess.run(
        [sys.executable, "-m", "nbgrader", "db", "upgrade",
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
        [sys.executable, "-m", "nbgrader", "export", f"--CourseDirectory.root={course.root}",
         "--to", str(export), "--log-level=WARN"],
        cwd=course.root, env=nbgrader_env(), capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    rows = {row["student_id"]: row for row in csv.DictReader(export.open(encoding="utf-8"))}
    assert float(rows["s001"]["score"]) == 100.0
    assert float(rows["s002"]["score"]) == 98.0
    assert float(rows["s002"]["max_score"]) == 100.0


@pytest.mark.slow
def test_gradebook_made_by_nbgrader_is_used_as_it_is(course):
    """A gradebook nbgrader created (and stamped) itself is written into, never re-stamped."""
    subprocess.run(
        [sys.executable, "-c", "import sys; from nbgrader.api import Gradebook; "
         "Gradebook(sys.argv[1]).close()", course.db_url],
        env=nbgrader_env(), check=True, capture_output=True, timeout=120,
    )
    before = stamped_versions(course.root)
    assert gradebook.record(course, [result("s001", lose=1)]) == 1
    assert stamped_versions(course.root) == before
    with sqlite3.connect(course.root / "gradebook.db") as db:
        [(total,)] = db.execute("SELECT SUM(auto_score) FROM grade").fetchall()
    assert total == 99


def test_record_replaces_no_function_of_nbgrader(course):
    """nbgrader is used as it is, for the whole process: nothing of it is replaced."""
    import nbgrader.api
    import nbgrader.dbutil

    nbgrader_functions = (nbgrader.api.get_alembic_version, nbgrader.dbutil.upgrade,
                          nbgrader.api.Gradebook.__init__)
    gradebook.prepare(course).join()
    assert gradebook.record(course, [result("s001")]) == 1
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
    gradebook.prepare(course).join()
    assert gradebook.record(course, [result("s001")]) == 1
    assert dict(os.environ) == environment
    assert len(stamped_versions(course.root)) == 1


def test_record_is_idempotent(course):
    gradebook.record(course, [result("s001", lose=3)])
    gradebook.record(course, [result("s001", lose=3)])
    with sqlite3.connect(course.root / "gradebook.db") as db:
        assert db.execute("SELECT COUNT(*) FROM submitted_assignment").fetchone() == (1,)
        assert db.execute("SELECT SUM(auto_score) FROM grade").fetchone() == (97,)


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
    return Course(root, SPEC.name)


@pytest.mark.parametrize("kind", ["root is a file", "root does not exist", "not a database"])
def test_a_gradebook_that_cannot_be_opened_is_one_clear_error(tmp_path, kind, capfd):
    course = _unwritable_root(tmp_path, kind)
    thread = gradebook.prepare(course)  # in the background while grading runs: no noise there
    thread.join()
    assert capfd.readouterr().err == ""
    with pytest.raises(gradebook.GradebookError) as caught:
        gradebook.record(course, [result("s001")])
    message = str(caught.value)
    assert "\n" not in message
    assert str(course.root / "gradebook.db") in message
    assert "cannot" in message and "sqlalche.me" not in message


def test_an_unexpected_error_in_prepare_is_raised_by_record(course, capfd):
    """Not swallowed: a bug (here nbgrader refusing an assignment without a name) is kept by
    the background thread and raised as it is, in the batch's thread, by record()."""
    from nbgrader.api import InvalidEntry

    broken = Course(course.root, None)
    thread = gradebook.prepare(broken)
    thread.join()
    assert capfd.readouterr().err == ""
    with pytest.raises(InvalidEntry) as caught:
        gradebook.record(broken, [result("s001")])
    assert caught.value is thread.error
