"""`status`: what a course root holds, and which of its outputs are older than its grades
(issue 37). Results saved as the grader saves them; outputs' ages set by hand."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.base.course import RESULTS_JSON, Course
from autograder.grading.submission import content_hash
from autograder.results.message import Message
from autograder.results.result import FORMAT, STATUS_GRADED, PartResult, SubmissionResult, save
from autograder.views import grades_csv
from tests.support.cli import one_line_error
from tests.support.h2 import SPEC


def _status(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", "status", "--root", str(root)],
                          capture_output=True, text=True, timeout=120, check=False)


def _result(student: str, **extra: object) -> SubmissionResult:
    parts = [PartResult(part.name, part.points, part.points) for part in SPEC.parts]
    return SubmissionResult(student, SPEC.name, STATUS_GRADED, parts=parts, **extra)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    course = Course(tmp_path / "course", SPEC.name)
    results = [_result("s1"), _result("s2", needs_review=True, reason="a person will check",
                                      ta_notes=[Message("the evidence file holds s1's inputs")])]
    for result in results:
        (course.submitted(result.student)).mkdir(parents=True)
        save(result, course.autograded(result.student) / RESULTS_JSON)
    (course.submitted("s3")).mkdir(parents=True)  # submitted, not graded yet
    grades_csv.write(results, course.grades_csv(), SPEC)
    return course.root


def test_status_says_what_is_graded_and_what_waits_for_a_person_and_why(root):
    shown = _status(root)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert "submissions: 3 (2 graded)" in lines
    assert any(line.startswith("  not graded yet: s3") for line in lines)
    assert "to review: 1" in lines
    assert "  s2: 100/100: a person will check" in lines
    assert "    for TAs: the evidence file holds s1's inputs" in lines  # review list hid it
    assert any(line.startswith("  grades.csv") and line.endswith("current") for line in lines)


def test_an_output_older_than_the_grades_is_named_stale_with_its_command(root):
    report = root / "report" / "report.html"
    report.parent.mkdir()
    report.write_text("<html></html>")
    old = (root / "grades.csv").stat().st_mtime - 3600
    os.utime(report, (old, old))
    (line,) = [line for line in _status(root).stdout.splitlines() if "report.html" in line]
    assert "STALE: python -m autograder report --root" in line


def test_a_root_with_nothing_graded_is_one_line(tmp_path):
    line = one_line_error(_status(tmp_path))
    assert "nothing graded in" in line and "autograde" in line


def test_an_unreadable_gradebook_is_stale_not_a_traceback(root):
    (root / "gradebook.db").write_bytes(b"not a database")
    shown = _status(root)
    assert shown.returncode == 0 and "Traceback" not in shown.stderr, shown.stderr
    (line,) = [line for line in shown.stdout.splitlines() if "gradebook.db" in line]
    assert "STALE" in line and "nbgrader cannot read it" in line


def test_a_copy_that_cannot_be_written_stops_the_change_naming_it(root):
    """publish after a grade is saved: a view that cannot be written (a full disk, a file
    that is not one) is an ``OSError`` naming its path, which rolls the command's change of
    the root back (issue 51: nothing half-written); never a view silently left stale."""
    from autograder.base.course import Course
    from autograder.publish.views import publish

    (root / "summary.md").write_text("old")
    (root / "report" / "scores.csv").mkdir(parents=True)  # nothing can be written in its place
    (root / "report" / "report.html").write_text("<html></html>")
    with pytest.raises(OSError) as raised:
        publish(Course(root, SPEC.name), SPEC, [])
    assert "scores.csv" in str(raised.value.filename)


# Issue 50, item 14: an id from a folder or LMS file name with terminal controls in it.
HOSTILE_ID = "s9\x1b]0;owned\x07\x1b[2J"


def test_a_student_id_with_terminal_controls_is_shown_escaped(tmp_path):
    course = Course(tmp_path / "course", SPEC.name)
    result = _result(HOSTILE_ID, needs_review=True, reason="a person will check")
    course.submitted(HOSTILE_ID).mkdir(parents=True)
    save(result, course.autograded(HOSTILE_ID) / RESULTS_JSON)
    course.submitted(HOSTILE_ID + "\x07waiting").mkdir(parents=True)  # not graded yet
    grades_csv.write([result], course.grades_csv(), SPEC)
    shown = _status(course.root)
    assert shown.returncode == 0, shown.stderr
    assert "\x1b" not in shown.stdout and "\x07" not in shown.stdout
    assert "  s9\\x1b]0;owned\\x07\\x1b[2J: 100/100: a person will check" in shown.stdout
    assert "not graded yet: s9\\x1b]0;owned\\x07\\x1b[2J\\x07waiting" in shown.stdout


@pytest.mark.parametrize("command", [["status"], ["review", "list"], ["export"]])
def test_a_root_that_does_not_exist_is_called_missing(tmp_path, command):
    missing = tmp_path / "no-such-root"
    done = subprocess.run([sys.executable, "-m", "autograder", *command, "--root", str(missing)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert one_line_error(done).startswith(f"error: no such folder: {missing}")


def test_an_unreadable_record_is_named_and_a_newer_one_refused(root):
    broken = Course(root, SPEC.name).autograded("s1") / RESULTS_JSON
    good = broken.read_text(encoding="utf-8")
    broken.write_text(good[:300], encoding="utf-8")  # truncated
    lines = _status(root).stdout.splitlines()
    assert any(line.startswith(f"  unreadable: autograded/s1/{SPEC.name}/results.json of s1 (")
               for line in lines), lines
    data = json.loads(good)
    data["extra_data"]["format"] = FORMAT + 1
    broken.write_text(json.dumps(data), encoding="utf-8")
    line = one_line_error(_status(root))
    assert str(broken) in line and "newer grader" in line


def test_a_deleted_gradebook_is_named_missing_and_export_writes_it_again(root):
    assert not (root / "gradebook.db").exists()
    (line,) = [line for line in _status(root).stdout.splitlines() if "gradebook.db" in line]
    assert "MISSING" in line and "autograde" in line
    done = subprocess.run([sys.executable, "-m", "autograder", "export", "--root", str(root)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "gradebook.db was missing: written again from results.json (2 graded scores)" \
        in done.stdout
    with (root / "nbgrader-export.csv").open(newline="", encoding="utf-8") as handle:
        assert sorted(row["student_id"] for row in csv.DictReader(handle)) == ["s1", "s2"]
    (line,) = [line for line in _status(root).stdout.splitlines() if "gradebook.db" in line]
    assert line.endswith("  current"), line


def test_a_resubmission_not_graded_yet_is_named(root):
    course = Course(root, SPEC.name)
    notebook = course.submitted("s1") / SPEC.notebook
    notebook.write_text("{}", encoding="utf-8")
    result = _result("s1", submission_hash=content_hash(course.submitted("s1")))
    save(result, course.autograded("s1") / RESULTS_JSON)
    assert "resubmitted" not in _status(root).stdout
    notebook.write_text('{"cells": []}', encoding="utf-8")  # submitted again
    lines = _status(root).stdout.splitlines()
    assert "  not graded yet (resubmitted): s1 (every output shows the earlier submission's " \
           "grade until autograde grades it)" in lines, lines
    (grades,) = [line for line in lines if line.startswith("  grades.csv")]
    assert not grades.endswith("  current")


def test_export_on_a_plain_root_says_how_feedback_reaches_students_not_release_feedback(root):
    """A root graded with `autograde --root` names no nbgrader course or exchange, so
    `nbgrader release_feedback` cannot work there (issue 51, item 8)."""
    from autograder.results.decisions import Decisions
    from autograder.results.result import saved_results
    from autograder.views import gradebook

    course = Course(root, SPEC.name)
    gradebook.record(course, saved_results(course), decisions=Decisions.load(root),
                     assignment=SPEC)
    done = subprocess.run([sys.executable, "-m", "autograder", "export", "--root", str(root)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stdout.splitlines() if "feedback pages in" in line]
    assert "release them with" not in line and "cannot send them from here" in line, line
