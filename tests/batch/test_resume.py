"""A batch resumes: unchanged work is skipped, changed work regraded, a killed run loses nothing."""

from __future__ import annotations

import csv
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from autograder.base.course import Course
from autograder.batch import resume
from autograder.batch.engine import grade_course
from tests.support.h2 import SPEC
from tests.support.vectors import BUNDLES, REFERENCE, VECTORS, WRONG_NORMALIZE, submit

ASSIGNMENT = VECTORS.name  # the small test bundle: resuming is the engine's, not H2's

pytestmark = pytest.mark.slow

KINDS = {"correct": REFERENCE, "wrong_normalize": REFERENCE | {"normalize": WRONG_NORMALIZE},
         "infinite_loop": REFERENCE | {"normalize": "def normalize(a):\n    while True:\n"
                                                    "        pass\n"}}
ROSTER = {"a-correct": "correct", "b-wrong": "wrong_normalize", "c-broken": "broken_notebook"}


def hand_in(root: Path, roster: dict[str, str]) -> Path:
    """Each student's submission of the vectors bundle; a broken notebook is cut in half."""
    for student, kind in roster.items():
        folder = submit(root, student, KINDS.get(kind, REFERENCE))
        if kind == "broken_notebook":
            notebook = folder / VECTORS.notebook
            text = notebook.read_text(encoding="utf-8")
            notebook.write_text(text[: len(text) // 2], encoding="utf-8")
    return root


def csv_rows(course: Course) -> list[dict[str, str]]:
    with course.grades_csv().open(newline="") as handle:
        return list(csv.DictReader(handle))


def test_unchanged_submissions_are_skipped_and_changed_ones_regraded(tmp_path, options):
    course = Course(hand_in(tmp_path, ROSTER), ASSIGNMENT)
    first = grade_course(course, options=options, assignment=VECTORS)
    assert sorted(first.graded) == sorted(ROSTER) and first.skipped == []
    scores = {r.student: r.score for r in first.results}
    assert scores["a-correct"] == VECTORS.total and scores["b-wrong"] < VECTORS.total

    second = grade_course(course, options=options, assignment=VECTORS)
    assert second.graded == [] and sorted(second.skipped) == sorted(ROSTER)
    assert {r.student: r.score for r in second.results} == scores

    shutil.rmtree(course.submitted("b-wrong"))
    submit(tmp_path, "b-wrong")  # resubmitted, fixed
    third = grade_course(course, options=options, assignment=VECTORS)
    assert third.graded == ["b-wrong"]
    assert {r.student: r.score for r in third.results}["b-wrong"] == VECTORS.total

    forced = grade_course(course, options=replace(options, force=True), assignment=VECTORS)
    assert sorted(forced.graded) == sorted(ROSTER)
    assert [row["student"] for row in csv_rows(course)] == sorted(ROSTER)


def test_a_killed_batch_loses_nothing(tmp_path):
    roster = {f"s{n:02d}": ("correct" if n % 2 else "wrong_normalize") for n in range(8)}
    # Graded last and slow (a function that loops until its 3 s limit, three times):
    # the batch is certainly still running when the kill lands.
    roster |= {"z-loop-1": "infinite_loop", "z-loop-2": "infinite_loop"}
    course = Course(hand_in(tmp_path, roster), ASSIGNMENT)
    command = [sys.executable, "-m", "autograder", "autograde", ASSIGNMENT, "--root", str(tmp_path),
               "--assignments", str(BUNDLES), "--jobs", "2", "--no-progress", "--call-timeout", "3"]
    grader = subprocess.Popen(command, start_new_session=True, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    done: list[Path] = []
    while time.monotonic() < deadline and len(done) < 2:
        time.sleep(0.1)
        # What was graded is kept aside as it is saved (a link to its results.json), where
        # the rerun takes it from.
        done = [resume.path(course, s) for s in roster if resume.path(course, s).exists()]
    os.killpg(grader.pid, signal.SIGKILL)
    grader.wait()
    assert 2 <= len(done) < len(roster), "the kill should land mid-batch"
    before = {path.stem: path.stat().st_ino for path in done}

    rerun = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert "rolled back an unfinished change" in rerun.stderr  # the killed run's, said once
    rows = csv_rows(course)
    assert sorted(row["student"] for row in rows) == sorted(roster)  # everyone, exactly once
    assert all(row["status"] == "graded" for row in rows)
    totals = {row["student"]: float(row["total"]) for row in rows}
    full = float(VECTORS.total)
    assert {totals[s] for s, v in roster.items() if v == "correct"} == {full}
    assert all(totals[s] < full for s, v in roster.items() if v == "infinite_loop")
    buggy = {totals[s] for s, v in roster.items() if v == "wrong_normalize"}
    assert len(buggy) == 1 and buggy.pop() < full  # the same bug, the same grade
    assert all(resume.path(course, student).stat().st_ino == inode
               for student, inode in before.items()), (
        "work graded before the kill must not be redone"
    )


def test_a_new_gradebook_has_nbgraders_schema_version(tmp_path):
    """The gradebook we create records the alembic head nbgrader itself computes (with
    `alembic heads` in a subprocess), so `nbgrader db upgrade` and formgrader accept it."""
    import sqlite3

    from nbgrader.dbutil import _temp_alembic_ini

    from autograder.authoring.release import nbgrader_env
    from autograder.views import gradebook

    gradebook._open(Course(tmp_path, SPEC.name), SPEC.name, SPEC).close()
    (stamped,) = sqlite3.connect(tmp_path / "gradebook.db").execute(
        "SELECT version_num FROM alembic_version").fetchone()
    with _temp_alembic_ini("sqlite:////tmp/gradebook.db") as ini:
        heads = subprocess.run(["alembic", "-c", ini, "heads"], capture_output=True, text=True,
                               env=nbgrader_env(), check=True)
    assert stamped == heads.stdout.split()[0]
