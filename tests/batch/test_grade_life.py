"""A grade's whole life in one course root, as a TA runs it (the real command line): graded
against a due date once, the root remembers it, so the late student stays late through a
plain `autograde`, `--student` and `--force`; `--student` keeps everybody else's row;
`--no-due` says lateness is not judged (late: unknown, never "no"); and Ctrl-C ends a run
with one true line and no traceback."""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from autograder.base.course import FEEDBACK_HTML, RESULTS_JSON, TIMESTAMP_TXT
from autograder.batch import receipts
from autograder.batch.lateness import NOT_JUDGED
from autograder.spec import REPO
from tests.support.commands import interruptible
from tests.support.vectors import BUNDLES, REFERENCE, VECTORS, submit

pytestmark = pytest.mark.slow

ASSIGNMENT = VECTORS.name  # the small test bundle: a grade's life is the engine's, not H2's
COHORT = "demo-2026"
DUE = "2026-12-14 23:59:00 UTC"
DUE_AT = datetime(2026, 12, 14, 23, 59, tzinfo=UTC)
FAST = ["--no-progress", "--jobs", "2", "--cell-timeout", "10", "--call-timeout", "3",
        "--assignments", str(BUNDLES)]
LOOPS = REFERENCE | {"normalize": "def normalize(a):\n    while True:\n        pass\n"}


def hand_in(root: Path, student: str, when: datetime | None = None,
            functions: dict[str, str] = REFERENCE) -> None:
    """A submission of the vectors bundle, with nbgrader's timestamp.txt when ``when``."""
    folder = submit(root, student, functions)
    if when is not None:
        (folder / TIMESTAMP_TXT).write_text(receipts.time_text(when), encoding="utf-8")


def autograde(root: Path, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "autograder", "autograde", ASSIGNMENT,
                           "--root", str(root), *FAST, *args],
                          cwd=REPO, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def rows(root: Path) -> dict[str, dict[str, str]]:
    with (root / "grades.csv").open(newline="") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


def extra(root: Path, student: str) -> dict:
    folder = root / "autograded" / student / ASSIGNMENT
    return json.loads((folder / RESULTS_JSON).read_text())["extra_data"]


def test_the_late_student_stays_late_and_student_keeps_every_row(tmp_path):
    root = tmp_path / "demo"
    hand_in(root, "a-on-time", DUE_AT - timedelta(hours=1))
    hand_in(root, "b-late", DUE_AT + timedelta(days=1))

    first = autograde(root, "--cohort", COHORT, "--due", DUE)  # the Makefile's demo command
    assert "remembered in" in first.stdout
    assert f"1 late (due {DUE}); cohort {COHORT}" in first.stdout
    assert json.loads((root / "course.json").read_text())[ASSIGNMENT] == {
        "cohort": COHORT, "due": DUE, "bundle": str(BUNDLES / ASSIGNMENT)}  # found outside

    plain = autograde(root)  # the README's TA command, in the same root: nothing regraded
    assert "(0 assessed in this run, 2 unchanged" in plain.stdout
    assert f"1 late (due {DUE})" in plain.stdout and "remembered" not in plain.stdout
    assert rows(root)["b-late"]["late"] == "yes"

    before = rows(root)["a-on-time"]
    one = autograde(root, "--student", "b-late", "--force")
    assert "1 submission:" in one.stdout and f"1 late (due {DUE}); cohort {COHORT}" in one.stdout
    after = rows(root)
    assert sorted(after) == ["a-on-time", "b-late"]  # not truncated to b-late's row
    assert after["a-on-time"] == before and after["b-late"]["late"] == "yes"
    assert (extra(root, "b-late")["late"], extra(root, "b-late")["due"],
            extra(root, "b-late")["cohort"]) == (True, DUE, COHORT)
    with sqlite3.connect(root / "gradebook.db") as db:  # the gradebook keeps a-on-time too
        graded = {name for (name,) in db.execute("SELECT student_id FROM submitted_assignment")}
    assert graded == {"a-on-time", "b-late"}

    cleared = autograde(root, "--student", "b-late", "--no-due")
    assert "cleared" in cleared.stdout and NOT_JUDGED in cleared.stdout
    row = rows(root)["b-late"]
    assert (row["late"], row["needs_review"], row["ta_notes"]) == ("unknown", "no", NOT_JUDGED)
    assert extra(root, "b-late")["late"] == "unknown" and extra(root, "b-late")["due"] == ""
    page = (root / "autograded" / "b-late" / ASSIGNMENT / FEEDBACK_HTML).read_text()
    assert "Late: unknown" in page and "on time" not in page

    again = autograde(root, "--student", "b-late", "--due", DUE)
    assert "remembered in" in again.stdout
    assert rows(root)["b-late"]["late"] == "yes" and rows(root)["a-on-time"]["late"] == "no"


INTERRUPTED = ("interrupted: every output of the root is as it was before this run; what was "
               "already graded is kept; ")


def ended(grader: subprocess.Popen, seconds: float) -> tuple[str, str]:
    """The run's output once it ended; one still running after ``seconds`` fails the test and
    is killed with its group, so that the root's lock does not fail the tests after it."""
    try:
        return grader.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(grader.pid, signal.SIGKILL)
        out, err = grader.communicate()
        pytest.fail(f"the run did not end within {seconds:g} s of Ctrl-C: {out[-500:]} {err[-500:]}")


@pytest.fixture(scope="module")
def slow_root(tmp_path_factory) -> Path:
    """Six quick submissions, then two whose functions loop until their limit (seconds
    each): an interrupt after the fifth or sixth result lands while one grading process of
    the pool waits for work and the other grades (where the traceback used to come from)."""
    root = tmp_path_factory.mktemp("interrupt")
    for number in range(6):
        hand_in(root, f"s{number}")
    hand_in(root, "z-loop-1", functions=LOOPS)
    hand_in(root, "z-loop-2", functions=LOOPS)
    return root


@pytest.mark.parametrize(("force", "after"), [(False, 5), (True, 5), (False, 6), (True, 6)])
def test_ctrl_c_is_one_true_line_without_a_traceback(slow_root, force, after):
    shutil.rmtree(slow_root / "autograded", ignore_errors=True)
    command = [sys.executable, "-m", "autograder", "autograde", ASSIGNMENT, "--root",
               str(slow_root), *FAST, *(["--force"] if force else [])]
    grader = interruptible(command, cwd=REPO, start_new_session=True, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    saved: list[Path] = []
    while len(saved) < after and time.monotonic() < deadline:
        time.sleep(0.05)
        saved = list(slow_root.glob(f"autograded/*/{ASSIGNMENT}/{RESULTS_JSON}"))
    assert len(saved) >= after and grader.poll() is None, "the interrupt should land mid-batch"
    os.killpg(grader.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: the whole group
    _, stderr = ended(grader, 60)
    assert grader.returncode == 130, stderr
    again = ("run it again without --force to resume (with --force it starts over)" if force
             else "run the same command again to resume")
    assert stderr.strip() == INTERRUPTED + again, stderr


def test_a_run_started_deaf_to_ctrl_c_grades_on_and_loses_nobody(slow_root):
    """A background job of a shell ignores SIGINT: so do its grading processes, and nobody
    is graded twice or charged for a dead process."""
    shutil.rmtree(slow_root / "autograded", ignore_errors=True)
    command = [sys.executable, "-m", "autograder", "autograde", ASSIGNMENT, "--root",
               str(slow_root), *FAST]
    grader = interruptible(command, deaf=True, cwd=REPO, start_new_session=True, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while (len(list(slow_root.glob(f"autograded/*/{ASSIGNMENT}/{RESULTS_JSON}"))) < 5
           and time.monotonic() < deadline):
        time.sleep(0.05)
    os.killpg(grader.pid, signal.SIGINT)
    out, err = ended(grader, 120)
    assert grader.returncode == 0, err
    assert "8 submissions: 8 graded, 0 ungradable, 0 grader errors" in out, out
