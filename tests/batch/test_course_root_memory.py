"""A course root remembers its cohort and due date (course.json), holds one grading run at a
time, keeps every student's row in grades.csv, and says how to resume after Ctrl-C. These
tests grade nothing; test_grade_life.py grades a root through the real command line."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from datetime import UTC, datetime
from pathlib import Path

import pytest

from autograder.base.course import RESULTS_JSON, Course
from autograder.batch.command import interrupted_line, summary_line
from autograder.batch.engine import BatchSummary, every_result
from autograder.batch.lateness import NOT_JUDGED
from autograder.batch.outcome import internal_error_result
from autograder.batch.root_lock import LOCK_FILE, RootBusy, hold
from autograder.integrations.cohorts import workflow
from autograder.integrations.cohorts.config import get_cohort
from autograder.results import root_settings
from autograder.results.result import SubmissionResult, save
from autograder.results.root_settings import RootSettingsError, remember
from autograder.spec import REPO
from autograder.views import grades_csv
from tests.support.cli import one_line_error
from tests.support.h2 import SPEC

ASSIGNMENT = SPEC.name
DUE = datetime(2026, 12, 14, 23, 59, tzinfo=UTC)


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A course root with one (empty) submission: enough for the command to get going."""
    course = tmp_path / "course"
    (course / "submitted" / "s1" / ASSIGNMENT).mkdir(parents=True)
    return course


def test_the_first_given_values_are_remembered_and_used_when_not_given(root):
    settings, lines = remember(root, ASSIGNMENT, cohort="demo-2026", due=DUE, set_due=True,
                               set_cohort=True)
    assert settings == root_settings.RootSettings("demo-2026", DUE)
    assert len(lines) == 2 and "2026-12-14 23:59:00 UTC (was none)" in lines[0]
    assert json.loads((root / "course.json").read_text()) == {
        ASSIGNMENT: {"cohort": "demo-2026", "due": "2026-12-14 23:59:00 UTC"}}
    # a later run given nothing (the TA's `autograde`, `--student`) grades against them, quietly
    assert remember(root, ASSIGNMENT) == (settings, [])
    # given again, the same: nothing to say
    assert remember(root, ASSIGNMENT, due=DUE, set_due=True)[1] == []


def test_an_explicit_due_date_replaces_it_and_no_due_clears_it(root):
    remember(root, ASSIGNMENT, due=DUE, set_due=True)
    later = datetime(2026, 12, 16, 12, 0, tzinfo=UTC)
    settings, lines = remember(root, ASSIGNMENT, due=later, set_due=True)
    assert settings.due == later
    assert lines == [f"due date of {ASSIGNMENT} in {root}: 2026-12-16 12:00:00 UTC (was "
                     f"2026-12-14 23:59:00 UTC), remembered in {root / 'course.json'}"]
    settings, lines = remember(root, ASSIGNMENT, due=None, set_due=True)
    assert settings.due is None and len(lines) == 1 and "cleared" in lines[0]
    assert remember(root, ASSIGNMENT)[0].due is None


@pytest.mark.parametrize("text", ["{not json", "[]",
                                  json.dumps({ASSIGNMENT: {"due": "friday"}}),
                                  json.dumps({ASSIGNMENT: {"due": "2026-12-14 23:59"}})])
def test_a_damaged_course_json_is_one_line(root, text):
    (root / "course.json").write_text(text)
    with pytest.raises(RootSettingsError, match="course.json"):
        remember(root, ASSIGNMENT)
    line = one_line_error(cli("autograde", ASSIGNMENT, "--root", str(root), "--no-progress",
                              "--jobs", "1"))
    assert "course.json" in line and "fix or delete" in line


def test_no_due_and_due_together_are_refused(root):
    line = one_line_error(cli("autograde", ASSIGNMENT, "--root", str(root), "--no-due",
                              "--due", "2026-12-14 23:59 UTC"))
    assert "not allowed with argument" in line


def test_summary_lines_say_the_due_date_and_cohort_or_that_lateness_was_not_judged(tmp_path):
    late = SubmissionResult("b", ASSIGNMENT, "graded", late=True, due="x")
    unknown = SubmissionResult("c", ASSIGNMENT, "graded", late_unknown=True, due="x")
    summary = BatchSummary([late, unknown, SubmissionResult("a", ASSIGNMENT, "graded")],
                           ["a", "b", "c"], [], 1.0, tmp_path, "2026-12-14 23:59:00 UTC", "demo")
    line = summary_line(summary)
    assert "; 1 late, 1 unknown (due 2026-12-14 23:59:00 UTC); cohort demo; 1.0 s" in line
    line = summary_line(BatchSummary([], [], [], 1.0, tmp_path))
    assert f"; {NOT_JUDGED}; no cohort;" in line


def test_after_force_ctrl_c_does_not_say_the_same_command_resumes():
    assert "run the same command again to resume" in interrupted_line(False)
    forced = interrupted_line(True)
    assert "without --force" in forced and "same command" not in forced


def test_grades_csv_keeps_every_student_a_run_did_not_grade(tmp_path):
    course = Course(tmp_path, ASSIGNMENT)
    for student in ("a", "b", "c", "d"):
        course.submitted(student).mkdir(parents=True)
    for student in ("a", "b"):
        save(SubmissionResult(student, ASSIGNMENT, "graded", due="x", late=student == "b"),
             course.autograded(student) / RESULTS_JSON)
    # c's grader error of an earlier run was never saved: only grades.csv knows it
    grades_csv.write([internal_error_result("c", SPEC, "killed")], course.grades_csv(), SPEC)
    fresh = SubmissionResult("a", ASSIGNMENT, "ungradable", reason="regraded now", due="x")
    rows = {r.student: r for r in every_result(course, SPEC, {"a": fresh})}
    assert sorted(rows) == ["a", "b", "c"]  # d was never graded: no row
    assert rows["a"] is fresh and rows["b"].late and rows["c"].status == "grader_error"
    assert "killed" in rows["c"].reason


HOLDER = textwrap.dedent("""
    import sys, time
    from autograder.batch.root_lock import hold
    with hold(sys.argv[1]):
        print("held", flush=True)
        time.sleep(60)
""")


@pytest.fixture
def held(root):
    """Another process holds ``root``, as a grading run in it would."""
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(root)], cwd=REPO,
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    yield holder
    holder.kill()
    holder.wait()


def test_a_second_autograde_in_a_root_refuses_with_one_line_naming_the_holder(root, held):
    line = one_line_error(cli("autograde", ASSIGNMENT, "--root", str(root), "--no-progress"))
    assert f"another command is changing {root.resolve()} (pid {held.pid} of user " in line
    assert not (root / "autograded").exists() and not (root / "course.json").exists()
    with pytest.raises(RootBusy):
        with hold(root):
            pass
    held.kill()
    held.wait()
    with hold(root), hold(root):  # free once its holder is gone, whatever ended it; nested
        assert (root / LOCK_FILE).exists()


def test_cohort_grade_refuses_a_root_another_run_holds(tmp_path, root, held):
    config = tmp_path / "cohorts.toml"
    config.write_text(f'[defaults]\ncourses_root = "{root.parent}"\nexchange = "{tmp_path}"\n'
                      f'[cohorts.{root.name}]\ndue = "2026-12-14 23:59:00 UTC"\n')
    (root / "nbgrader_config.py").write_text("")
    (root / "release" / ASSIGNMENT).mkdir(parents=True)
    line = one_line_error(cli("cohort", "--config", str(config), "grade", root.name))
    assert "another command is changing" in line and f"pid {held.pid}" in line


def test_a_cohort_root_remembers_cohorts_toml(tmp_path):
    """`cohort release` and `cohort grade` write the cohort and its due date into the root, so
    `autograde` there (the README's TA command, or --student) judges lateness the same way."""
    config = tmp_path / "cohorts.toml"
    config.write_text(f'[defaults]\ncourses_root = "{tmp_path}"\nexchange = "{tmp_path}/x"\n'
                      '[cohorts.fall]\ndue = "2026-12-15 00:59:00+01:00"\n')
    cohort = get_cohort("fall", config)
    cohort.root.mkdir()
    assert len(workflow.remember_settings(cohort)) == 2
    assert remember(cohort.root, ASSIGNMENT)[0] == root_settings.RootSettings("fall", DUE)
    assert workflow.remember_settings(cohort) == []
