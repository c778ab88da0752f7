"""`python -m autograder autograde` through the real CLI: every mistake of a TA ends in one
line on stderr saying what is wrong and what to do, and a non-zero exit; the summary line
adds up."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.authoring.sample_cohort import VARIANTS, build_submission
from autograder.spec import REPO, SPEC
from tests.support.cli import one_line_error

ASSIGNMENT = SPEC.name
FAST = ["--no-progress", "--jobs", "2", "--cell-timeout", "10", "--call-timeout", "5"]


def autograde(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "autograder", "autograde", *args],
        cwd=REPO, capture_output=True, text=True, timeout=300, check=False,
    )


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """A course root with one (empty, so ungradable) submission: enough for a grader to run."""
    root = tmp_path / "course"
    (root / "submitted" / "s1" / ASSIGNMENT).mkdir(parents=True)
    return root


def test_a_root_that_does_not_exist(tmp_path):
    missing = tmp_path / "nope"
    line = one_line_error(autograde(ASSIGNMENT, "--root", str(missing)))
    assert line == (f"error: course root {missing} does not exist: pass --root <the folder that "
                    "holds submitted/> (default: the current directory)")


def test_a_root_that_is_a_file(tmp_path):
    (tmp_path / "grades.csv").write_text("")
    line = one_line_error(autograde(ASSIGNMENT, "--root", str(tmp_path / "grades.csv")))
    assert "is not a folder" in line


def test_a_root_without_submissions(tmp_path):
    line = one_line_error(autograde(ASSIGNMENT, "--root", str(tmp_path)))
    assert f"no submissions in {tmp_path / 'submitted'}/<student>/{ASSIGNMENT}/" in line
    assert "nbgrader collect" in line


def test_an_unknown_student(course):
    line = one_line_error(autograde(ASSIGNMENT, "--root", str(course), "--student", "nobody",
                                    "--student", "s1", *FAST))
    assert line == (f"error: no submission for nobody in {course / 'submitted'}/<student>/"
                    f"{ASSIGNMENT}/ (students with one: s1); check the id or collect it first")
    assert not (course / "autograded").exists(), "nothing is graded when a student is unknown"


@pytest.mark.parametrize(("flags", "says"), [
    (["--jobs", "0"], "argument --jobs/-j: must be at least 1 (got 0)"),
    (["-j", "-3"], "argument --jobs/-j: must be at least 1 (got -3)"),
    (["--cell-timeout", "0"], "argument --cell-timeout: must be more than 0 seconds (got 0)"),
    (["--call-timeout", "nan"], "argument --call-timeout: must be more than 0 seconds (got nan)"),
    (["--memory-mb", "512"], "argument --memory-mb: must be at least 1024"),
    (["--jobs", "abc"], "argument --jobs/-j: invalid int value: 'abc'"),
    (["--student"], "argument --student: expected one argument"),
    (["--frobnicate"], "unrecognized arguments: --frobnicate"),
    (["extra-assignment"], "unrecognized arguments: extra-assignment"),
])
def test_bad_options(course, flags, says):
    line = one_line_error(autograde(ASSIGNMENT, "--root", str(course), *flags, *FAST[:1]))
    assert says in line
    assert "autograde --help" in line
    assert not (course / "autograded").exists()


@pytest.mark.slow
def test_the_summary_adds_up(tmp_path):
    root = tmp_path / "course"
    correct = next(v for v in VARIANTS if v.name == "correct")
    build_submission(root, "good", correct)
    (root / "submitted" / "empty" / ASSIGNMENT).mkdir(parents=True)  # no notebook: ungradable
    done = autograde(ASSIGNMENT, "--root", str(root), *FAST)
    assert done.returncode == 0, done.stdout + done.stderr
    first = done.stdout.splitlines()[0]
    assert first.startswith("2 submissions: 1 graded, 1 ungradable, 0 grader errors "
                            "(2 assessed in this run, 0 unchanged since the last run); mean 50.0"), first
    again = autograde(ASSIGNMENT, "--root", str(root), *FAST).stdout.splitlines()[0]
    assert again.startswith("2 submissions: 1 graded, 1 ungradable, 0 grader errors "
                            "(0 assessed in this run, 2 unchanged since the last run)"), again
    counts = re.match(r"(\d+) submissions: (\d+) graded, (\d+) ungradable, (\d+) grader", first)
    total, *kinds = map(int, counts.groups())
    assert total == sum(kinds)


@pytest.mark.parametrize("argv", [["autogrde"], [], ["cohort"], ["verify-evidence"]])
def test_top_level_mistakes_are_one_line(argv):
    done = subprocess.run([sys.executable, "-m", "autograder", *argv], cwd=REPO,
                          capture_output=True, text=True, timeout=60, check=False)
    assert "--help" in one_line_error(done)


@pytest.mark.parametrize("command", ["autograde", "report"])
def test_an_unknown_assignment_is_refused_with_the_known_one(command, course):
    """`autograde h3_decoder` graded a submission folder of that name with this assignment's
    parts (or said "collect them first"); now it names the assignment this grader knows."""
    done = subprocess.run([sys.executable, "-m", "autograder", command, "h3_decoder",
                           "--root", str(course)], cwd=REPO, capture_output=True, text=True,
                          timeout=60, check=False)
    line = one_line_error(done)
    assert "'h3_decoder'" in line and repr(ASSIGNMENT) in line
    assert not (course / "autograded").exists()
