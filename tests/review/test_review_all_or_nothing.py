"""`review set` is all or nothing, and `review history` only reads (issue 51, item 3).

Before: Ctrl-C part-way through `review set` left decisions.json at the new score while
results.json, feedback.html, grades.csv and the gradebook said others; then `review history`
read the gradebook's stale score as a new formgrader score, recorded it and undid the TA's
decision everywhere. Now the command is one change of the root (autograder.results.journal):
stopped after any write, every output is as before, and `history` changes nothing."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from autograder.base.course import RESULTS_JSON, Course
from autograder.results import journal
from autograder.results.result import load
from autograder.spec import REPO
from tests.support.commands import FAST, grades_rows
from tests.support.vectors import BUNDLES, REFERENCE, VECTORS, WRONG_NORMALIZE, submit

pytestmark = pytest.mark.slow

COMMON = ("--root", "{root}", "--assignment", VECTORS.name, "--assignments", str(BUNDLES))


def _run(root: Path, *args: str, env: dict[str, str] | None = None
         ) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "autograder", *args,
               *(a.format(root=root) for a in COMMON)]
    # Ctrl-C heard, whatever the runner was started with (a background job ignores it, and so
    # would the command: autograder.batch.interrupts keeps an ignored Ctrl-C ignored).
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600,
                          env={**os.environ, **(env or {})}, check=False,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _outputs(root: Path) -> dict[str, object]:
    """What every output of the root says about the grades (bytes, and the gradebook's
    scores), the lock file and the journal left out."""
    course = Course(root, VECTORS.name)
    seen: dict[str, object] = {}
    for student in course.students():
        folder = course.autograded(student)
        for name in (RESULTS_JSON, "feedback.html"):
            seen[f"{student}/{name}"] = (folder / name).read_bytes()
    seen["grades.csv"] = course.grades_csv().read_bytes()
    seen["decisions.json"] = (root / "decisions.json").read_bytes()
    with closing(sqlite3.connect(course.gradebook_db())) as db:
        seen["gradebook"] = db.execute(
            "SELECT notebook_id, cell_id, auto_score, manual_score FROM grade "
            "ORDER BY notebook_id, cell_id").fetchall()
    return seen


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two students graded, and a first decision recorded (2 of normalize's 4 points)."""
    root = tmp_path_factory.mktemp("review") / "course"
    submit(root, "s1")
    submit(root, "s2", REFERENCE | {"normalize": WRONG_NORMALIZE})
    done = subprocess.run([sys.executable, "-m", "autograder", "autograde", VECTORS.name,
                           "--root", str(root), "--assignments", str(BUNDLES), *FAST],
                          cwd=REPO, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    first = _run(root, "review", "set", "s2", "normalize", "2", "--note", "half of it")
    assert first.returncode == 0, first.stderr
    return root


@pytest.fixture
def root(graded: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "course"
    subprocess.run(["cp", "-a", str(graded), str(copy)], check=True)
    return copy


@pytest.mark.parametrize("after", ["decisions.json:1", "*/results.json:1", "*/feedback.html:1",
                                   "grades.csv:1"])
def test_a_decision_killed_after_any_write_leaves_nothing_of_it(root: Path, after: str):
    before = _outputs(root)
    killed = _run(root, "review", "set", "s2", "normalize", "3", "--note", "more",
                  env={journal.FAULT_ENV: after})
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    # `history` and `status` only read: the half-done change is named, not acted on.
    history = _run(root, "review", "history", "s2")
    assert history.returncode == 0, history.stderr
    assert "by formgrader" not in history.stdout and "from formgrader" not in history.stdout
    status = _run(root, "status")
    assert "UNFINISHED: python -m autograder review set s2 normalize 3" in status.stdout
    # The next command that changes the root rolls it back, says so, then does its own.
    again = _run(root, "review", "set", "s2", "normalize", "3", "--note", "more")
    assert again.returncode == 0, again.stderr
    assert "rolled back an unfinished change" in again.stderr
    assert journal.pending(root) is None
    after_all = _outputs(root)
    result = load(Course(root, VECTORS.name).autograded("s2") / RESULTS_JSON)
    assert result is not None and result.part("normalize").points == 3
    assert float(grades_rows(root / "grades.csv")["s2"]["total"]) == result.score
    assert after_all["gradebook"] != before["gradebook"]  # the new score reached it


@pytest.mark.parametrize("number", ["INT", "TERM"])
def test_a_decision_interrupted_after_results_json_changes_nothing(root: Path, number: str):
    before = _outputs(root)
    stopped = _run(root, "review", "set", "s2", "normalize", "3",
                   env={journal.FAULT_ENV: "*/results.json:1",
                        journal.FAULT_SIGNAL_ENV: number})
    assert stopped.returncode != 0
    assert "Traceback" not in stopped.stderr, stopped.stderr
    assert _outputs(root) == before
    assert journal.pending(root) is None  # rolled back by the command itself


def test_history_never_records_formgrader_scores(root: Path):
    """A score entered in formgrader (written into the gradebook as formgrader does) is named
    by `history`, and recorded only by the next command that changes the root."""
    course = Course(root, VECTORS.name)
    with closing(sqlite3.connect(course.gradebook_db())) as db:
        db.execute("UPDATE grade SET manual_score = 1 WHERE cell_id IN (SELECT id FROM "
                   "base_cell WHERE name = ?) AND manual_score = 2",
                   (next(p.grade_cell for p in VECTORS.parts if p.name == "normalize"),))
        db.commit()
    before = _outputs(root)
    history = _run(root, "review", "history", "s2")
    assert history.returncode == 0, history.stderr
    assert "formgrader holds 1 score(s) no decision says yet (s2 normalize 1)" in history.stderr
    assert _outputs(root) == before
    recorded = _run(root, "review", "set", "s1", "dot", "3")
    assert recorded.returncode == 0 and "from formgrader: s2 normalize" in recorded.stdout
