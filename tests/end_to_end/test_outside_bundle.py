"""A bundle kept outside the repository, through the whole course with the TA's commands and
no engine change (issue 39): a copy of ``tests/bundles/averages`` (one function, an evidence
file, a limitation; its source notebook in its own ``source/``) in a course folder of its
own is authored (``sync-solutions --check``, ``generate-release``: the release is written
beside the bundle), released to a cohort through a real nbgrader exchange, collected from
the exchange and from an LMS download, graded, reviewed, fed back and exported, then built
into a Gradescope zip and run as Gradescope runs it. The cohort's root remembers where the
bundle lives after ``cohort release --assignments``, so no later command names it again.
Every command runs from the course folder, and no file of the checkout is written."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from autograder.results.root_settings import COURSE_JSON
from autograder.spec import REPO
from tests.bundles import averages_students as students
from tests.bundles.students import BUNDLES
from tests.support.commands import nbgrader_ok
from tests.support.gradescope_tree import run_upload, unpack_like_gradescope

pytestmark = pytest.mark.slow

NAME = students.NAME
NOTEBOOK, EVIDENCE = f"{NAME}.ipynb", "averages_evidence.json"
COHORT = "fall"
QUICK = ("--jobs", "2", "--no-progress", "--cell-timeout", "10", "--call-timeout", "5")
# How each student hands in (and what): two through the exchange, one in an LMS download.
BY_EXCHANGE = {"o-correct": {}, "o-forged": {"forged": True}}
BY_LMS = {"o-blank": {"limitation": students.PLACEHOLDER}}
EXPECTED = {"o-correct": {"mean": 4, "evidence": 2, "limitation": 1},  # limitation: provisional
            "o-forged": {"mean": 1, "evidence": 0, "limitation": 1},
            "o-blank": {"mean": 4, "evidence": 2, "limitation": 0}}
NOT_THE_CHECKOUT = {".git", ".venv", "__pycache__", ".pytest_cache", ".ruff_cache"}


def checkout_files() -> dict[str, tuple[int, int]]:
    """Every file of the checkout (size, mtime) but git's, the environment's and caches'."""
    found = {}
    for folder, subfolders, files in os.walk(REPO):
        subfolders[:] = [name for name in subfolders if name not in NOT_THE_CHECKOUT]
        for name in files:
            path = Path(folder) / name
            try:
                stat = path.lstat()
            except FileNotFoundError:
                continue
            found[path.relative_to(REPO).as_posix()] = (stat.st_size, stat.st_mtime_ns)
    return found


def cli(cwd: Path, *args: str) -> str:
    """``python -m autograder ARGS`` as the TA runs it, from the course folder; its output."""
    env = {key: value for key, value in os.environ.items() if key != "AUTOGRADER_ASSIGNMENTS"}
    done = subprocess.run([sys.executable, "-m", "autograder", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, (args, done.stdout[-3000:], done.stderr[-3000:])
    return done.stdout


def exchange_round(course: Path, exchange: Path) -> None:
    """Each student fetches the cohort's release from the exchange, solves it, submits it."""
    fetched = course / "students" / "fetched"
    fetched.mkdir(parents=True)
    nbgrader_ok(fetched, "fetch_assignment", NAME, f"--course={COHORT}",
                        f"--Exchange.root={exchange}")
    for student, how in BY_EXCHANGE.items():
        home = course / "students" / student
        shutil.copytree(fetched, home)
        folder = home / NAME
        students.write_submission(folder, release=folder / NOTEBOOK, **how)
        nbgrader_ok(home, "submit", NAME, f"--course={COHORT}",
                            f"--Exchange.root={exchange}", f"--student={student}",
                            f"--Exchange.cache={home / '.nbgrader_cache'}")


def lms_download(course: Path, release: Path) -> Path:
    """An LMS's zip of the LMS students' files, each named <student>__<file>."""
    path = course / "lms" / "download.zip"
    path.parent.mkdir()
    with zipfile.ZipFile(path, "w") as archive:
        for student, how in BY_LMS.items():
            folder = students.write_submission(course / "lms" / student, release=release, **how)
            for name in (NOTEBOOK, EVIDENCE):
                archive.write(folder / name, f"{student}__{name}")
    return path


def rows(path: Path, key: str = "student") -> dict[str, dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return {row[key]: row for row in csv.DictReader(handle)}


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> SimpleNamespace:
    """The whole course, once, from a course folder outside the repository."""
    before = checkout_files()
    ta = tmp_path_factory.mktemp("outside-course")
    assert not ta.is_relative_to(REPO)
    bundles = ta / "bundles"
    bundle = bundles / NAME
    shutil.copytree(BUNDLES / NAME, bundle,
                    ignore=shutil.ignore_patterns("__pycache__", "release"))
    out = SimpleNamespace(ta=ta, bundle=bundle, root=ta / "courses" / COHORT)

    # Authoring: the source is in sync; the release is generated beside the bundle, and the
    # grader reads it there (data/'s notebook a link to it, as the docs advise).
    out.sync = cli(ta, "sync-solutions", NAME, "--assignments", str(bundles), "--check")
    out.generated = cli(ta, "generate-release", NAME, "--assignments", str(bundles))
    (bundle / "data" / NOTEBOOK).unlink()
    (bundle / "data" / NOTEBOOK).symlink_to(Path("..") / "release" / NOTEBOOK)
    out.release_check = cli(ta, "generate-release", NAME, "--assignments", str(bundles),
                            "--check")

    # The cohort: released with --assignments once; no later command names the bundle.
    (ta / "cohorts.toml").write_text(
        f'[defaults]\ncourses_root = "courses"\nexchange = "exchange"\nassignment = "{NAME}"\n'
        "lms_filename_regexp = '.*/(?P<student_id>[A-Za-z0-9.@-]+)__(?P<file_id>[^/]+)$'\n"
        f'[cohorts.{COHORT}]\ndue = "2030-01-01 00:00:00 UTC"\n', encoding="utf-8")
    config = ("--config", str(ta / "cohorts.toml"))
    out.released = cli(ta, "cohort", *config, "release", COHORT, "--assignments", str(bundles))
    exchange_round(ta, ta / "exchange")
    download = lms_download(ta, out.root / "release" / NAME / NOTEBOOK)
    out.collected = cli(ta, "cohort", *config, "collect", COHORT, "--zip", str(download),
                        "--received", "2029-12-01 12:00 UTC")
    out.graded = cli(ta, "cohort", *config, "grade", COHORT, *QUICK)
    out.review_list = cli(ta, "review", "--root", str(out.root), "list")
    out.decided = cli(ta, "review", "--root", str(out.root), "set", "o-correct", "limitation",
                      "2", "--note", "sound: one extreme value moves the mean")
    out.feedback = cli(ta, "cohort", *config, "feedback", COHORT)
    out.exported = cli(ta, "cohort", *config, "export", COHORT)
    out.status = cli(ta, "status", "--root", str(out.root))

    # Gradescope: the zip holds the bundle (no source or release), and runs one upload.
    out.built = cli(ta, "gradescope", "build", NAME, "--assignments", str(bundles),
                    "--out", str(ta / "gradescope"))
    zip_path = ta / "gradescope" / "autograder.zip"
    with zipfile.ZipFile(zip_path) as archive:
        out.zip_names = archive.namelist()
    tree = unpack_like_gradescope(zip_path, ta / "autograder")
    shutil.copytree(out.root / "submitted" / "o-correct" / NAME, tree / "submission",
                    ignore=shutil.ignore_patterns("timestamp.txt"))
    out.gradescope = run_upload(tree, "o-correct", NAME)

    out.written = {path for path, seen in checkout_files().items() if before.get(path) != seen}
    out.written |= set(before) - set(checkout_files())
    return out


def test_the_release_is_generated_beside_the_bundle_and_checked_there(course):
    assert course.sync.strip().endswith("in sync")
    release = course.bundle / "release"
    assert f"{release}: (new release)" in course.generated
    assert {path.name for path in release.iterdir()} == {
        NOTEBOOK, "averages_evidence.schema.json", "requirements.txt"}
    assert f"{release}: current and leak-free" in course.release_check
    text = (release / NOTEBOOK).read_text(encoding="utf-8")
    assert "raise NotImplementedError()" in text and "sum(values)" not in text


def test_the_cohort_root_remembers_the_bundle_and_later_commands_find_it(course):
    remembered = json.loads((course.root / COURSE_JSON).read_text(encoding="utf-8"))
    assert remembered[NAME]["bundle"] == str(course.bundle)
    assert f"bundle of {NAME}: {course.bundle}, remembered in" in course.released
    assert f"course root {course.root}: {NAME}" in course.status


def test_students_come_from_the_exchange_and_the_lms_download(course):
    assert "collected from the exchange" in course.collected
    assert "collected 1 LMS download(s)" in course.collected
    assert "3 submission(s)" in course.collected
    shipped = {path.name for path in (course.ta / "students" / "fetched" / NAME).iterdir()}
    assert shipped == {NOTEBOOK, "averages_evidence.schema.json", "requirements.txt"}


def test_grading_scores_each_part_and_the_decision_becomes_the_grade(course):
    assert "3 submissions: 3 graded" in course.graded, course.graded
    for student, points in EXPECTED.items():
        saved = json.loads((course.root / "autograded" / student / NAME / "results.json")
                           .read_text(encoding="utf-8"))
        got = {part["part"]: part["points"] for part in saved["extra_data"]["parts"]}
        if student == "o-correct":  # the TA's decision is the grade of record
            assert got == {**points, "limitation": 2}
        else:
            assert got == points, student
    assert f"    text: {students.LIMITATION}" in course.review_list
    assert "o-blank" not in course.review_list  # a placeholder is scored 0, not reviewed
    assert "o-correct: 7/8" in course.review_list
    grades = rows(course.root / "grades.csv")
    assert {student: float(row["total"]) for student, row in grades.items()} == {
        "o-correct": 8.0, "o-forged": 2.0, "o-blank": 6.0}


def test_feedback_and_the_lms_files_carry_the_grades(course):
    for student in EXPECTED:
        assert (course.root / "feedback" / student / NAME / f"{NAME}.html").is_file()
    with (course.root / "canvas-grades.csv").open(newline="", encoding="utf-8") as handle:
        header, _points, *canvas = list(csv.reader(handle))
    assert header[-1] == NAME
    assert {row[3]: row[-1] for row in canvas} == {"o-correct": "8", "o-forged": "2",
                                                   "o-blank": "6"}
    moodle = rows(course.root / "moodle-grades.csv", key="username")
    assert {student: row[NAME] for student, row in moodle.items()} == {
        "o-correct": "8", "o-forged": "2", "o-blank": "6"}


def test_the_gradescope_zip_grades_an_upload_without_the_source_or_the_release(course):
    inside = [name for name in course.zip_names if name.startswith(f"assignments/{NAME}/")]
    assert f"assignments/{NAME}/assignment.toml" in inside
    assert f"assignments/{NAME}/data/{NOTEBOOK}" in inside
    assert not [name for name in inside if "/source/" in name or "/release/" in name]
    extra = course.gradescope["extra_data"]
    assert (extra["assignment"], extra["student"]) == (NAME, "o-correct")
    assert {part["part"]: part["points"] for part in extra["parts"]} == EXPECTED["o-correct"]
    assert course.gradescope["max_score"] == 8


def test_no_file_of_the_checkout_was_written(course):
    assert course.written == set(), sorted(course.written)[:20]
