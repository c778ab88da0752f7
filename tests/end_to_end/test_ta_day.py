"""A TA's day on the sample cohort, command by command as a TA types them (issue 37), with
the real nbgrader gradebook: after every command, every output agrees with results.json,
field by field, for every student.

grade with a due date -> export (plain root: LMS files, feedback copies, nbgrader's export)
-> report -> a decision -> a decision while another run holds the root (refused) -> a score
entered as formgrader does, read in by `review list` -> a late policy -> an extension -> a
late resubmission under each version rule (best after penalty, last on time, newest).

Outputs compared: grades.csv (total, late, late_penalty, needs_review), nbgrader's export
(score, late_submission_penalty; graded submissions only, as nbgrader has no number for an
ungradable one), the Canvas and Moodle files (graded only, the same string as grades.csv),
the feedback copies for release_feedback (the page itself), the report's scores.csv (total,
late, late_penalty, needs_review) and `status` (no output stale).
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.base.course import FEEDBACK_HTML, RESULTS_JSON, Course
from autograder.bundles.h2_attention.samples import VARIANTS, build_submission
from autograder.results.result import STATUS_GRADED, SubmissionResult, load
from autograder.views.nbgrader_feedback import feedback_page
from tests.support.h2 import SPEC
from tests.support.shared_roots import copy_of

pytestmark = pytest.mark.slow

LATE, UNJUDGED, MONKEY = "s015-late", "s016-unjudged-limitation", "s008-monkeypatch"
RESUBMITS = "s010-no-evidence"  # 78 on time; resubmits the correct notebook late
BY_NAME = {variant.name: variant for variant in VARIANTS}


def cli(*args: str, code: int = 0) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "autograder", *args], capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == code, (args, done.stdout[-2000:], done.stderr[-2000:])
    return done


def rows(path: Path, key: str) -> dict[str, dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return {row[key]: row for row in csv.DictReader(handle)}


def number(text: str) -> float:
    return float(text) if text else 0.0


def assert_every_output_agrees(course: Course, step: str) -> dict[str, SubmissionResult]:
    """Every output's fields against results.json, for every student, after ``step``; the
    results."""
    results = {s: load(course.autograded(s) / RESULTS_JSON) for s in course.students()}
    graded = {s for s, r in results.items() if r.status == STATUS_GRADED}
    grades = rows(course.grades_csv(), "student")
    exported = rows(course.root / "nbgrader-export.csv", "student_id")
    scores = rows(course.root / "report" / "scores.csv", "student")
    with (course.root / "canvas-grades.csv").open(newline="", encoding="utf-8") as handle:
        canvas = {row[3]: row[5] for row in list(csv.reader(handle))[2:]}
    with (course.root / "moodle-grades.csv").open(newline="", encoding="utf-8") as handle:
        moodle = dict(list(csv.reader(handle))[1:])
    assert set(grades) == set(results) == set(scores)
    assert set(exported) == set(canvas) == set(moodle) == graded
    for student, result in results.items():
        review = "yes" if result.needs_review else "no"
        row = grades[student]
        total = f"{result.score:g}" if student in graded else ""  # ungradable: no total
        assert (row["total"], row["late"], number(row["late_penalty"]),
                row["needs_review"]) == (total, result.late_label, result.late_penalty,
                                         review), (step, "grades.csv", student)
        row = scores[student]
        assert (row["total"], row["late"], number(row["late_penalty"]),
                row["needs_review"]) == (total, result.late_label, result.late_penalty,
                                         review), (step, "report", student)
        if student in graded:
            assert (number(exported[student]["score"]),
                    number(exported[student]["late_submission_penalty"])) == (
                result.score, result.late_penalty), (step, "nbgrader export", student)
            assert canvas[student] == moodle[student] == grades[student]["total"], (
                step, "LMS files", student)
        copy = feedback_page(course, student, SPEC)
        if copy.is_file():
            assert copy.read_bytes() == (course.autograded(student) / FEEDBACK_HTML).read_bytes(), (
                step, "feedback copy", student)
    status = cli("status", "--root", str(course.root)).stdout
    assert "STALE" not in status, f"after {step}: {status}"
    return results


def formgrader_notes(course: Course, student: str) -> str:
    """What the graded notebook formgrader opens says about the submission as a whole."""
    from autograder.views import graded_notebook

    cells = json.loads(graded_notebook.path(course, student).read_text())["cells"]
    return "".join(out.get("text", "") for cell in cells[:2] for out in cell.get("outputs", []))


def test_a_tas_day_keeps_every_output_equal(tmp_path, graded_sample_cohort):
    # The sample cohort graded with the real command line (`autograde --cohort demo-2026
    # --due ...`: tests/support/cohort_scores.py), once for the test run; the day goes on in
    # a copy. It has an ungradable notebook: autograde exits 0 (only a grader error is 1).
    root = copy_of(graded_sample_cohort, tmp_path / "course")
    course = Course(root, SPEC.name)
    fast = ("--no-progress", "--jobs", "2")
    cli("export", "--root", str(root))
    cli("report", "--root", str(root))
    before = assert_every_output_agrees(course, 'grading with a due date, export and report')

    # A decision: in every output at once.
    cli("review", "set", UNJUDGED, "limitation", "7", "--note", "sound", "--root", str(root))
    after = assert_every_output_agrees(course, 'a decision')
    assert after[UNJUDGED].score == before[UNJUDGED].score - 4 + 7

    # A decision while another run holds the root: refused, nothing changed.
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys; from pathlib import Path; from autograder.batch.root_lock import hold\n"
        "with hold(Path(sys.argv[1])):\n    print('held', flush=True); sys.stdin.read()"),
        str(root)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    decisions = (root / "decisions.json").read_bytes()
    cli("review", "set", UNJUDGED, "limitation", "5", "--root", str(root), code=2)
    holder.stdin.close()
    holder.wait(timeout=30)
    assert (root / "decisions.json").read_bytes() == decisions
    assert_every_output_agrees(course, 'a refused decision')

    # A score entered as formgrader does: named by `review list` (which only reads), read in
    # by the next command that changes the root (issue 51).
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as book:
        grade = book.find_grade(SPEC.part("evidence").grade_cell, SPEC.name, SPEC.name, MONKEY)
        grade.manual_score, grade.needs_manual_grade = 10, False
        book.db.commit()
    listed = cli("review", "list", "--root", str(root))
    assert f"({MONKEY} evidence 10)" in listed.stderr
    cli("export", "--root", str(root))
    results = assert_every_output_agrees(course, 'a formgrader score read in')
    assert results[MONKEY].part("evidence").points == 10

    # A late policy, then an extension for the late student.
    cli("autograde", "--root", str(root), "--late-policy", "10%/day, cap 50%", *fast)
    results = assert_every_output_agrees(course, 'a late policy')
    assert results[LATE].late and results[LATE].late_penalty == 20
    # Formgrader shows the points before the penalty: its view of the notebook says so.
    assert f"Late penalty: -20 ({results[LATE].late_policy}). The grade of record is 80/100" in (
        formgrader_notes(course, LATE))
    cli("autograde", "--root", str(root), "--extension", f"{LATE}=2026-12-17 23:59 UTC", *fast)
    results = assert_every_output_agrees(course, 'an extension')
    assert not results[LATE].late and results[LATE].late_penalty == 0
    assert "Late penalty" not in formgrader_notes(course, LATE)
    assert json.loads((root / "course.json").read_text())[SPEC.name]["extensions"] == {
        LATE: "2026-12-17 23:59:00 UTC"}

    # A late resubmission of an on-time student, under each version rule: every version is
    # kept, every output follows the one that counts, and the page says which.
    on_time = results[RESUBMITS].score
    shutil.rmtree(course.submitted(RESUBMITS))  # as nbgrader collect --update replaces it
    build_submission(root, RESUBMITS, BY_NAME["late"], "demo-2026")  # correct, 26 h late: -20
    cli("autograde", "--root", str(root), "--version-rule", "best_after_penalty", *fast)
    results = assert_every_output_agrees(course, 'a late resubmission, best after penalty')
    best = results[RESUBMITS]
    assert (best.score, best.late, best.version["why"]) == (80, True, "better_after_penalty")
    assert len(best.version["versions"]) == 2
    cli("autograde", "--root", str(root), "--version-rule", "last_on_time", *fast)
    results = assert_every_output_agrees(course, 'the last on-time version')
    assert (results[RESUBMITS].score, results[RESUBMITS].late) == (on_time, False)
    assert "counts" in (course.autograded(RESUBMITS) / FEEDBACK_HTML).read_text()
    cli("autograde", "--root", str(root), "--version-rule", "newest", *fast)
    results = assert_every_output_agrees(course, 'the newest version')
    assert (results[RESUBMITS].score, results[RESUBMITS].late_penalty) == (80, 20)

    # And status tells when the gradebook does not say what results.json says.
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as book:
        grade = book.find_grade(SPEC.part("causal_mask").grade_cell, SPEC.name, SPEC.name, LATE)
        grade.auto_score = 0
        book.db.commit()
    (line,) = [line for line in cli("status", "--root", str(root)).stdout.splitlines()
               if line.strip().startswith("gradebook.db")]
    assert "STALE" in line and f"its scores differ for {LATE}" in line
