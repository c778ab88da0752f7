"""Two cohorts through the whole course workflow with a real nbgrader exchange.

release -> students fetch and submit (exchange) or hand in through an LMS (zip)
-> collect / zip_collect -> grade -> feedback -> export. Every student must
appear exactly once, in the right cohort's export, with the right score; the
feedback goes out through nbgrader's own release_feedback and comes back to the
student through fetch_feedback; the LMS grade files carry grades.csv's numbers.
The round runs once (a module fixture); each test reads what it left.
"""

from __future__ import annotations

import csv
import json
import shutil
import stat
import subprocess
import sys
import time
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

from autograder.authoring import student_env
from autograder.batch.engine import BatchOptions
from autograder.bundles.h2_attention.samples import (
    VARIANTS,
    own_functions,
    solved_notebook,
    write_evidence,
)
from autograder.integrations.cohorts import workflow
from autograder.integrations.cohorts.config import get_cohort
from autograder.integrations.lms import canvas, moodle
from autograder.sandbox.limits import Limits
from tests.support.cohort_workflow import ship_check
from tests.support.commands import nbgrader_ok
from tests.support.h2 import SPEC

ASSIGNMENT = SPEC.name

pytestmark = pytest.mark.slow

NOTEBOOK = f"{ASSIGNMENT}.ipynb"
EVIDENCE = SPEC.evidence_file
FAST = BatchOptions(jobs=2, progress=False, limits=Limits(cell_timeout=5, call_timeout=3))
BUG = next(v for v in VARIANTS if v.name == "softmax_wrong_axis")
CACHE = ".nbgrader_cache"  # a student's own submission cache (fetch_feedback reads it)


def write_config(path: Path, tmp: Path, due_a: str) -> Path:
    path.write_text(f"""
[defaults]
courses_root = "{tmp / 'courses'}"
exchange = "{tmp / 'exchange'}"
lms_filename_regexp = '.*/(?P<student_id>[A-Za-z0-9.@-]+)__(?P<file_id>[^/]+)$'

[cohorts.fall-a]
due = "{due_a}"

[cohorts.fall-b]
course_id = "fall-b-2026"
due = "2030-01-01 00:00:00 UTC"
""")
    return path


def fill_in(folder: Path, student: str, cohort: str, *, bug: bool = False, broken: bool = False,
            evidence_of: str | None = None) -> None:
    """What a student does in the fetched folder: solve, save evidence."""
    notebook = solved_notebook(student)
    if bug:
        BUG.apply(notebook, folder, student)
    text = nbformat.writes(notebook)
    (folder / NOTEBOOK).write_text(text[: len(text) // 3] if broken else text)
    # An honest student's file comes from their own (possibly buggy) functions.
    write_evidence(folder, evidence_of or student, cohort=cohort,
                   functions=own_functions(notebook) if bug else None)


def exchange_round(cohort_name: str, config: Path, home: Path, students: dict[str, dict]) -> None:
    """Each student fetches the release and submits through the exchange."""
    cohort = get_cohort(cohort_name, config)
    first = home / "fetched"
    first.mkdir(parents=True)
    nbgrader_ok(first, "fetch_assignment", ASSIGNMENT, f"--course={cohort.course_id}",
                        f"--Exchange.root={cohort.exchange}")
    stated = json.loads((first / ASSIGNMENT / SPEC.cohort_file).read_text())
    assert stated["cohort"] == cohort_name and stated["due_text"] == cohort.due_text()
    # The student's environment comes with the notebook, not from the course repository.
    shipped = first / ASSIGNMENT / student_env.REQUIREMENTS_NAME
    assert shipped.read_bytes() == student_env.requirements_path(SPEC).read_bytes()
    for student, how in students.items():
        student_home = home / student
        shutil.copytree(first, student_home)  # every student fetches the same release
        fill_in(student_home / ASSIGNMENT, student, cohort_name, **how)
        nbgrader_ok(student_home, "submit", ASSIGNMENT, f"--course={cohort.course_id}",
                            f"--Exchange.root={cohort.exchange}", f"--student={student}",
                            f"--Exchange.cache={student_home / CACHE}")


def lms_zip(path: Path, cohort: str, students: dict[str, dict]) -> Path:
    """An LMS download: every file renamed <student>__<file>."""
    with zipfile.ZipFile(path, "w") as archive:
        for student, how in students.items():
            folder = path.parent / f"lms-{student}"
            folder.mkdir()
            fill_in(folder, student, cohort, **how)
            for name in (NOTEBOOK, EVIDENCE):
                archive.write(folder / name, f"{student}__{name}")
    return path


def read_csv(path: Path) -> dict[str, dict[str, str]]:
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    students = [row["student_id" if "student_id" in row else "student"] for row in rows]
    assert len(students) == len(set(students)), f"a student appears twice in {path.name}"
    return {student: row for student, row in zip(students, rows, strict=True)}


@pytest.fixture(scope="module")
def round_trip(tmp_path_factory) -> SimpleNamespace:
    """Release, submit, collect, grade, feedback and export both cohorts, once."""
    tmp_path = tmp_path_factory.mktemp("workflow")
    config = write_config(tmp_path / "cohorts.toml", tmp_path, "2030-01-01 00:00:00 UTC")
    for name in ("fall-a", "fall-b"):
        workflow.release(get_cohort(name, config))
    a, b = get_cohort("fall-a", config), get_cohort("fall-b", config)
    assert SPEC.cohort_file in ship_check(a) and NOTEBOOK in ship_check(b)
    assert (b.exchange / "fall-b-2026" / "outbound" / ASSIGNMENT).is_dir()

    home = tmp_path / "home"
    exchange_round("fall-a", config, home / "a", {
        "a1": {}, "a2": {"bug": True}, "a3": {"broken": True},
        "same-id": {}, "a5": {"evidence_of": "a1"},  # a5 copied a1's evidence file
    })
    due = datetime.now(UTC)
    time.sleep(1.2)
    exchange_round("fall-a", config, home / "late", {"a4": {}})
    # The deadline as the instructor set it: between the first submissions and a4's.
    write_config(config, tmp_path, f"{due:%Y-%m-%d %H:%M:%S.%f} UTC")
    (tmp_path / "lms").mkdir()
    archive = lms_zip(tmp_path / "lms" / "download.zip", "fall-b",
                      {"b1": {}, "b2": {"bug": True}, "same-id": {}})

    a, b = get_cohort("fall-a", config), get_cohort("fall-b", config)
    workflow.collect(a)
    workflow.collect(b, [archive])
    summaries = {name: workflow.grade(cohort, FAST) for name, cohort in (("a", a), ("b", b))}
    feedback = {"a": workflow.feedback(a), "b": workflow.feedback(b)}
    files = {"a": workflow.export(a), "b": workflow.export(b)}
    return SimpleNamespace(a=a, b=b, home=home, summaries=summaries, feedback=feedback,
                           files=files)


def test_two_cohorts_end_to_end(round_trip):
    a, b, files = round_trip.a, round_trip.b, round_trip.files
    assert all(not s.count("grader_error") for s in round_trip.summaries.values())
    # each root is closed to other users from release on (issue 50: the reference, every
    # submission and every grade are in it), whatever the umask; the feedback pages keep
    # 0644, the mode nbgrader's release_feedback copies into the exchange for their student
    for cohort in (a, b):
        assert stat.S_IMODE(cohort.root.stat().st_mode) == 0o700, cohort.root
    assert all(stat.S_IMODE(page.stat().st_mode) & 0o004 for page in round_trip.feedback["a"])
    assert len(round_trip.feedback["a"]) == 6 and len(round_trip.feedback["b"]) == 3

    ours_a, ours_b = read_csv(files["a"].grades), read_csv(files["b"].grades)
    theirs_a, theirs_b = read_csv(files["a"].nbgrader), read_csv(files["b"].nbgrader)
    assert set(ours_a) == {"a1", "a2", "a3", "a4", "a5", "same-id"}
    assert set(ours_b) == {"b1", "b2", "same-id"}
    # nbgrader's export (from each cohort's own gradebook) agrees with ours, row for row; an
    # ungradable student (a3) is not in it, as in the LMS files: nbgrader would show a 0.
    assert set(theirs_a) == {s for s, row in ours_a.items() if row["status"] == "graded"}
    assert set(theirs_b) == set(ours_b) and "a3" not in theirs_a
    for ours, theirs in ((ours_a, theirs_a), (ours_b, theirs_b)):
        for student, row in theirs.items():
            assert float(row["score"]) == float(ours[student]["total"]), student

    assert float(ours_a["a1"]["total"]) == 100 and float(ours_b["b1"]["total"]) == 100
    assert float(ours_a["same-id"]["total"]) == 100 and float(ours_b["same-id"]["total"]) == 100
    assert ours_a["a2"]["stable_softmax"] == ours_b["b2"]["stable_softmax"] != "16"
    assert ours_a["a3"]["status"] == "ungradable" and "JSON" in ours_a["a3"]["reason"]
    assert float(ours_a["a5"]["evidence"]) < 14 and ours_a["a5"]["needs_review"] == "yes"
    assert [s for s, row in ours_a.items() if row["late"] == "yes"] == ["a4"]
    # An LMS download carries no submission time (zip_collect matching files by name writes
    # no timestamp.txt): against a due date, `late` is unknown and a TA checks.
    assert all(row["late"] == "unknown" for row in ours_b.values())
    assert (a.root / "feedback" / "a2" / ASSIGNMENT / f"{ASSIGNMENT}.html").exists()
    assert "softmax_wrong_axis" in files["a"].summary.read_text()
    # Nothing of one cohort is in the other's course root.
    assert not (b.root / "submitted" / "a1").exists() and not (a.root / "submitted" / "b1").exists()


def test_release_feedback_then_the_student_fetches_it(round_trip):
    """nbgrader's own flow after `cohort feedback`: release_feedback in the course root, then
    fetch_feedback as the student, who gets exactly the page the grader wrote."""
    a, b = round_trip.a, round_trip.b
    log = workflow.nbgrader(a, "release_feedback", ASSIGNMENT)
    assert log.count("Releasing feedback for student") == 6, log
    released = sorted((a.exchange / a.course_id / "feedback").glob("*.html"))
    assert len(released) == 6
    # An LMS-only cohort (no submission secrets, no timestamps) releases without a crash.
    workflow.nbgrader(b, "release_feedback", ASSIGNMENT)

    for student in ("a1", "a2"):
        home = round_trip.home / "a" / student
        nbgrader_ok(home, "fetch_feedback", ASSIGNMENT, f"--course={a.course_id}",
                            f"--Exchange.root={a.exchange}", f"--student={student}",
                            f"--Exchange.cache={home / CACHE}")
        fetched = list((home / ASSIGNMENT / "feedback").glob(f"*/{ASSIGNMENT}.html"))
        assert len(fetched) == 1, fetched  # their own page only, under their submission time
        page = a.root / "autograded" / student / ASSIGNMENT / "feedback.html"
        assert fetched[0].read_bytes() == page.read_bytes()
        assert fetched[0].parent.name == (a.root / "submitted" / student / ASSIGNMENT /
                                          "timestamp.txt").read_text().strip()


def test_lms_files_carry_the_numbers_of_grades_csv(round_trip):
    for name in ("a", "b"):
        files = round_trip.files[name]
        ours = read_csv(files.grades)
        graded = {s: row["total"] for s, row in ours.items() if row["status"] == "graded"}
        with files.canvas.open(newline="", encoding="utf-8") as handle:
            header, points, *rows = list(csv.reader(handle))
        assert header == [*canvas.STUDENT_COLUMNS, ASSIGNMENT] and points[0] == "Points Possible"
        assert {row[3]: row[5] for row in rows} == graded  # SIS Login ID -> points
        with files.moodle.open(newline="", encoding="utf-8") as handle:
            header, *rows = list(csv.reader(handle))
        assert header == ["username", ASSIGNMENT]
        assert dict(rows) == graded
        assert {s.student for s in files.left_out} == set(ours) - set(graded)
    assert [s.student for s in round_trip.files["a"].left_out] == ["a3"]  # broken notebook
    assert "a5" in round_trip.files["a"].to_review  # copied evidence: exported, and flagged
    assert canvas.FILE_NAME == files.canvas.name and moodle.FILE_NAME == files.moodle.name


def test_autograde_in_a_cohort_root_keeps_the_cohorts_due_date(round_trip):
    """The README's TA command in a cohort's root, for one student: the root remembers the
    cohort and due date `cohort grade` used (course.json), so a4 stays late and every other
    student keeps their row."""
    a = round_trip.a
    done = subprocess.run([sys.executable, "-m", "autograder", "autograde", ASSIGNMENT,
                           "--root", str(a.root), "--student", "a4", "--force", "--jobs", "1",
                           "--no-progress", "--cell-timeout", "5", "--call-timeout", "3"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"1 late (due {a.due:%Y-%m-%d %H:%M:%S}" in done.stdout
    assert f"cohort {a.name}" in done.stdout
    rows = read_csv(a.root / "grades.csv")
    assert set(rows) == {"a1", "a2", "a3", "a4", "a5", "same-id"}
    assert rows["a4"]["late"] == "yes"
    saved = json.loads((a.root / "autograded" / "a4" / ASSIGNMENT / "results.json").read_text())
    assert saved["extra_data"]["cohort"] == a.name and saved["extra_data"]["due"]


def test_a_decision_after_feedback_and_export_reaches_every_copy(round_trip):
    """Issue 37: after `review set`, the feedback copies release_feedback sends, the Canvas and
    Moodle files, summary.md and nbgrader's export kept the old total (78 vs 80)."""
    from autograder.base.course import Course
    from autograder.report.summary import render_summary
    from autograder.results.result import saved_results
    from autograder.views.nbgrader_feedback import feedback_page

    a = round_trip.a
    before = read_csv(a.root / "grades.csv")["a2"]
    done = subprocess.run([sys.executable, "-m", "autograder", "review", "set", "a2",
                           "stable_softmax", "13", "--note", "the axis was a slip", "--root",
                           str(a.root)], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "also rewritten:" in done.stdout and "NOT rewritten" not in done.stdout
    # The page release_feedback put in the exchange is the old one (issue 51).
    assert ("released feedback of a2 is older than its grade: run `nbgrader release_feedback "
            f"{ASSIGNMENT}` in {a.root} again") in done.stdout, done.stdout
    total = read_csv(a.root / "grades.csv")["a2"]["total"]
    assert float(total) > float(before["total"])

    course = Course(a.root, ASSIGNMENT)
    copy = feedback_page(course, "a2", SPEC)
    assert copy.read_bytes() == (course.autograded("a2") / "feedback.html").read_bytes()
    with (a.root / canvas.FILE_NAME).open(newline="", encoding="utf-8") as handle:
        assert {row[3]: row[5] for row in list(csv.reader(handle))[2:]}["a2"] == total
    with (a.root / moodle.FILE_NAME).open(newline="", encoding="utf-8") as handle:
        assert dict(list(csv.reader(handle))[1:])["a2"] == total
    assert float(read_csv(a.root / "nbgrader-export.csv")["a2"]["score"]) == float(total)
    assert (a.root / "summary.md").read_text() == render_summary(course, saved_results(course), SPEC)

    # `cohort grade` ends as `autograde` does: every copy rewritten, and said.
    said: list[str] = []
    workflow.grade(a, FAST, say=said.append)
    assert any(line.startswith("also rewritten:") and "canvas-grades.csv" in line for line in said)
    with (a.root / canvas.FILE_NAME).open(newline="", encoding="utf-8") as handle:
        assert {row[3]: row[5] for row in list(csv.reader(handle))[2:]}["a2"] == total
