"""The second bundle (``tests/bundles/vectors``) graded end to end by the same commands as H2,
next to H2 in ONE course root: ``autograde`` (the local pool and ``--cluster dask-local``),
``report``, the LMS grade files, ``gradescope build`` then ``run_autograder`` in a tree laid
out like Gradescope's; and H2, graded in that root afterwards, is graded exactly as in a
root of its own, and leaves the second bundle's outputs alone."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder.base.course import FEEDBACK_HTML, RESULTS_JSON
from autograder.base.nbgrader_command import nbgrader_command
from autograder.integrations.gradescope.results import SUBMISSION_ENTRY
from autograder.spec import REPO
from tests.bundles import students
from tests.support.gradescope_tree import unpack_like_gradescope
from tests.support.h2 import H2

pytestmark = pytest.mark.slow

BUNDLES = students.BUNDLES
SECOND = students.NAME
H2_STUDENT = "h2-correct"
CORRECT, BUGGY = "v-correct", "v-buggy"
EXPECTED = {CORRECT: {"dot": 3, "norm": 3, "normalize": 4},
            BUGGY: {"dot": 3, "norm": 3, "normalize": 0}}
QUICK = ("--jobs", "2", "--no-progress", "--cell-timeout", "10", "--call-timeout", "5")


def cli(*args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=timeout, check=False)


def succeeded(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 0, (done.args, done.stdout[-3000:], done.stderr[-3000:])
    return done.stdout


def saved(root: Path, student: str, assignment: str) -> tuple[dict, bytes]:
    """A student's results.json without its timing, and their feedback.html."""
    folder = root / "autograded" / student / assignment
    data = json.loads((folder / RESULTS_JSON).read_text(encoding="utf-8"))
    data["extra_data"].pop("seconds")
    return data, (folder / FEEDBACK_HTML).read_bytes()


def part_points(data: dict) -> dict[str, float]:
    return {part["part"]: part["points"] for part in data["extra_data"]["parts"]}


def grades_file(stdout: str, assignment: str = SECOND) -> dict[str, dict[str, str]]:
    """``assignment``'s rows of the grades CSV the autograde run names (``grades: PATH``),
    by student: one file holds every assignment of the root, a row per student and
    assignment."""
    (path,) = re.findall(r"^grades: (.+)$", stdout, flags=re.M)
    with Path(path).open(newline="", encoding="utf-8") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)
                if row["assignment"] == assignment}


def copy_submissions(source: Path, target: Path, assignment: str) -> None:
    for folder in sorted((source / "submitted").glob(f"*/{assignment}")):
        shutil.copytree(folder, target / "submitted" / folder.parent.name / assignment)


@pytest.fixture(scope="module")
def second():
    return students.assignment()


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    """One course root: a correct H2 submission (as tests/batch build them) and the second
    bundle's correct and buggy students."""
    samples = H2.module("samples")  # H2's sample students (its bundle's samples package)
    root = tmp_path_factory.mktemp("course")
    correct = next(variant for variant in samples.VARIANTS if variant.name == "correct")
    samples.build_submission(root, H2_STUDENT, correct)
    students.add_students(root, {CORRECT: False, BUGGY: True})
    return root


@pytest.fixture(scope="module")
def second_graded(course) -> subprocess.CompletedProcess:
    return cli("autograde", SECOND, "--assignments", str(BUNDLES), "--root", str(course),
               *QUICK)


@pytest.fixture(scope="module")
def h2_graded(course, second_graded) -> tuple[subprocess.CompletedProcess, dict]:
    """H2 graded in the same root after the second bundle; what the second had before."""
    before = {student: saved(course, student, SECOND) for student in EXPECTED
              if (course / "autograded" / student / SECOND / RESULTS_JSON).is_file()}
    return cli("autograde", H2.name, "--root", str(course), *QUICK), before


# ------------------------------------------------------------------ autograde


def test_autograde_gives_full_marks_and_charges_the_bug_to_its_own_part(course, second,
                                                                       second_graded):
    out = succeeded(second_graded)
    assert "2 submissions: 2 graded, 0 ungradable, 0 grader errors" in out, out
    for student, points in EXPECTED.items():
        data, page = saved(course, student, SECOND)
        extra = data["extra_data"]
        assert (extra["assignment"], extra["student"], extra["status"]) == (
            SECOND, student, "graded")
        assert part_points(data) == points, student
        assert data["score"] == sum(points.values()) and data["max_score"] == 10
        assert extra["grading_key"] == second.grading_key
        graded = [test for test in data["tests"] if test["name"] != SUBMISSION_ENTRY]
        assert {test["tags"][0] for test in graded} == set(second.function_parts)
        failed = {test["tags"][0] for test in data["tests"] if test["status"] != "passed"}
        assert failed == {part for part, got in points.items() if got == 0}, student
        # The root names no course (no --course-name, no course id of its own): none, never the
        # grader's project (issue 39: "Course: h2-attention"); no other assignment's words.
        assert "<dt>Course</dt><dd>—</dd>" in page.decode("utf-8")
        text = page.decode("utf-8").casefold()
        assert "attention" not in text and "evidence" not in text and "limitation" not in text
        assert "masks" not in text  # H2's hidden inputs: its spec's, not every page's
    assert not (course / "autograded" / H2_STUDENT).exists()  # H2's student: not this run's
    rows = grades_file(out)
    assert {student: float(row["total"]) for student, row in rows.items()} == {
        CORRECT: 10.0, BUGGY: 6.0}


def test_the_gradebook_holds_the_second_assignment_with_its_own_cells(course, second,
                                                                     second_graded):
    from nbgrader.api import Gradebook

    succeeded(second_graded)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        assignment = gradebook.find_assignment(SECOND)
        (notebook,) = assignment.notebooks
        assert notebook.name == Path(second.notebook).stem
        assert {cell.name: cell.max_score for cell in notebook.grade_cells} == {
            second.part(part).grade_cell: points for part, points in second.part_points.items()}
        for student, points in EXPECTED.items():
            assert gradebook.find_submission(SECOND, student).score == sum(points.values())


def test_h2_in_the_same_root_is_graded_as_in_a_root_of_its_own(course, second_graded,
                                                               h2_graded, tmp_path):
    done, before = h2_graded
    out = succeeded(done)
    assert "1 submission: 1 graded" in out, out
    alone = tmp_path / "alone"
    copy_submissions(course, alone, H2.name)
    succeeded(cli("autograde", H2.name, "--root", str(alone), *QUICK))
    mixed_json, mixed_page = saved(course, H2_STUDENT, H2.name)
    alone_json, alone_page = saved(alone, H2_STUDENT, H2.name)
    assert mixed_json == alone_json
    assert mixed_page == alone_page
    assert mixed_json["score"] == H2.total_points
    assert mixed_json["extra_data"]["grading_key"] == H2.grading_key
    # The second bundle's outputs are as they were; the grades file holds both assignments,
    # each row with its own assignment's parts, the second's rows as its run wrote them.
    assert {student: saved(course, student, SECOND) for student in before} == before
    assert set(grades_file(out, H2.name)) == {H2_STUDENT}
    second_rows = grades_file(out)
    assert {s: float(row["total"]) for s, row in second_rows.items()} == {CORRECT: 10.0, BUGGY: 6.0}
    assert all(row[part] == "" for row in second_rows.values() for part in H2.part_points)
    assert not (course / "autograded" / CORRECT / H2.name).exists()


# ------------------------------------------------------------------ report and LMS


def test_report_describes_the_second_bundle_alone(course, h2_graded, tmp_path):
    succeeded(h2_graded[0])
    out = succeeded(cli("report", SECOND, "--assignments", str(BUNDLES), "--root",
                        str(course), "--out", str(tmp_path / "report")))
    assert "2 students:" in out, out
    assert "evidence" not in out, out  # an assignment without an evidence file
    html = (tmp_path / "report" / "report.html").read_text(encoding="utf-8")
    assert "attention" not in html.casefold()
    with (tmp_path / "report" / "scores.csv").open(newline="", encoding="utf-8") as handle:
        text = handle.read()
    assert CORRECT in text and BUGGY in text and H2_STUDENT not in text
    with (tmp_path / "report" / "items.csv").open(newline="", encoding="utf-8") as handle:
        items = list(csv.DictReader(handle))
    assert len(items) == 3, items  # one hidden check per part


def test_the_lms_files_carry_the_second_bundles_points(course, second, h2_graded, tmp_path):
    from autograder.base.course import Course
    from autograder.integrations.lms import canvas, moodle
    from autograder.integrations.lms.grades import split
    from autograder.results.result import load

    succeeded(h2_graded[0])
    graded = Course(course, SECOND)
    results = [load(graded.autograded(student) / RESULTS_JSON) for student in graded.students()]
    assert [result.student for result in results] == sorted(EXPECTED)
    grades, left_out = split(results, graded.students())
    assert left_out == []
    canvas_file = canvas.write(tmp_path / canvas.FILE_NAME, grades,
                               canvas.CanvasSettings(SECOND), second.total_points)
    moodle_file = moodle.write(tmp_path / moodle.FILE_NAME, grades,
                               moodle.MoodleSettings(SECOND))
    header, possible, *rows = csv.reader(io.StringIO(canvas_file.read_text(encoding="utf-8")))
    assert header[-1] == SECOND and possible[-1] == "10"
    assert {row[3]: row[-1] for row in rows} == {CORRECT: "10", BUGGY: "6"}
    header, *rows = csv.reader(io.StringIO(moodle_file.read_text(encoding="utf-8")))
    assert header == ["username", SECOND] and dict(rows) == {CORRECT: "10", BUGGY: "6"}
    # nbgrader's own export of the shared gradebook: each assignment with its own students.
    target = tmp_path / "nbgrader-export.csv"
    subprocess.run([*nbgrader_command(), "export", "--to", str(target)],
                   cwd=course, capture_output=True, text=True, timeout=300, check=True)
    with target.open(newline="", encoding="utf-8") as handle:
        exported = {(row["assignment"], row["student_id"]): (float(row["score"]),
                                                             float(row["max_score"]))
                    for row in csv.DictReader(handle)}
    assert exported[(SECOND, CORRECT)] == (10.0, 10.0)
    assert exported[(SECOND, BUGGY)] == (6.0, 10.0)
    assert exported[(H2.name, H2_STUDENT)] == (float(H2.total_points),) * 2
    assert (H2.name, CORRECT) not in exported or exported[(H2.name, CORRECT)][0] == 0


# ------------------------------------------------------------------ Gradescope


def run_in_tree(root: Path, student: str, *, buggy: bool) -> dict:
    for stale in ("submission", "results"):
        shutil.rmtree(root / stale, ignore_errors=True)
    (root / "results").mkdir()
    students.write_submission(root / "submission", buggy=buggy)
    (root / "submission_metadata.json").write_text(json.dumps(
        {"id": 1, "users": [{"sid": student, "email": f"{student}@example.org"}],
         "assignment": {"title": SECOND}}))
    env = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}/usr/bin:/bin",
           "HOME": str(root), "LANG": "C.UTF-8"}  # no checkout, no AUTOGRADER_ASSIGNMENTS
    done = subprocess.run([str(root / "run_autograder")], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return json.loads((root / "results" / RESULTS_JSON).read_text(encoding="utf-8"))


def test_gradescope_build_and_run_autograder_grade_the_second_bundle(second, tmp_path):
    out = succeeded(cli("gradescope", "build", SECOND, "--assignments", str(BUNDLES),
                        "--out", str(tmp_path / "zip")))
    zip_path = tmp_path / "zip" / "autograder.zip"
    assert str(zip_path) in out
    with zipfile.ZipFile(zip_path) as archive:
        names = archive.namelist()
    for inside in ("assignment.toml", "reference.py", "checks/pytest.ini",
                   "checks/test_vectors_dot.py", f"data/{second.notebook}"):
        assert any(name.endswith(f"{SECOND}/{inside}") for name in names), inside
    root = unpack_like_gradescope(zip_path, tmp_path / "autograder")
    for student, buggy in ((CORRECT, False), (BUGGY, True)):
        data = run_in_tree(root, student, buggy=buggy)
        assert data["extra_data"]["assignment"] == SECOND
        assert data["extra_data"]["student"] == student
        assert part_points(data) == EXPECTED[student]
        assert data["score"] == sum(EXPECTED[student].values()) and data["max_score"] == 10
        graded = [test for test in data["tests"] if test["name"] != SUBMISSION_ENTRY]
        assert {test["tags"][0] for test in graded} == set(second.function_parts)
        assert data["extra_data"]["grading_key"] == second.grading_key
        assert (root / "results" / FEEDBACK_HTML).is_file()


# ------------------------------------------------------------------ Dask


def test_a_dask_local_cluster_grades_the_second_bundle_as_the_pool(course, second_graded,
                                                                  tmp_path):
    succeeded(second_graded)
    on_dask = tmp_path / "dask"
    copy_submissions(course, on_dask, SECOND)
    out = succeeded(cli("autograde", SECOND, "--assignments", str(BUNDLES), "--root",
                        str(on_dask), "--cluster", "dask-local:2", "--no-progress"))
    assert "2 submissions: 2 graded" in out, out
    for student in EXPECTED:
        assert saved(on_dask, student, SECOND) == saved(course, student, SECOND), student


def test_cohort_export_writes_the_second_bundles_lms_files(course, second, h2_graded, tmp_path):
    """The TA's own command for the LMS files (`cohort export`), on a cohort whose assignment
    is the second bundle, in the root H2 shares: its files carry its points only."""
    succeeded(h2_graded[0])
    released = course / "release" / SECOND  # what `cohort release` leaves in the root
    released.mkdir(parents=True, exist_ok=True)
    shutil.copy(second.grader_release_notebook, released / second.notebook)
    config = tmp_path / "cohorts.toml"
    config.write_text(  # a cohort's root is <courses_root>/<cohort>: the shared root
        f'[defaults]\ncourses_root = "{course.parent}"\nassignment = "{SECOND}"\n'
        f'assignments = ["{BUNDLES}"]\n[cohorts.{course.name}]\n', encoding="utf-8")
    done = cli("cohort", "--config", str(config), "export", course.name)
    assert done.returncode == 0, done.stdout + done.stderr
    header, possible, *rows = csv.reader(io.StringIO(
        (course / "canvas-grades.csv").read_text(encoding="utf-8")))
    assert header[-1] == SECOND and possible[-1] == "10"
    assert {row[3]: row[-1] for row in rows} == {CORRECT: "10", BUGGY: "6"}
    moodle_rows = list(csv.reader(io.StringIO(
        (course / "moodle-grades.csv").read_text(encoding="utf-8"))))
    assert moodle_rows[0][-1] == SECOND and dict(moodle_rows[1:]) == {CORRECT: "10", BUGGY: "6"}
