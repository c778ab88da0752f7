"""Nothing parses prose (issue 37): every sentence a result holds for people is reworded, and
no grade, review flag, decision or report figure changes.

The sample cohort is graded once (the run's ``graded_sample_cohort``, here with a late
policy); a copy of its root has every student-facing text of
every results.json reworded (each word reversed and the words in reverse order: equal texts
stay equal, different ones stay different, none reads as before), then both roots are
published (a plain ``autograde``, which grades nothing again and renders grades.csv and
the gradebook from the records; ``export`` and ``report``) and a person's decision is applied to both. Every figure of every output is
compared; only the columns that are sentences (a reason, a note) may differ.
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.base.course import RESULTS_JSON, Course
from autograder.results.result import WORDS
from tests.support.h2 import SPEC
from tests.support.shared_roots import copy_of

pytestmark = pytest.mark.slow

UNJUDGED = "s016-unjudged-limitation"
# The record's fields that are data (compared as they are), not sentences.
DATA = {"format", "student", "assignment", "status", "part", "points", "max_points",
        "diagnoses", "needs_review", "auto_points", "auto_review", "name", "score",
        "max_score", "code", "pointer", "carried", "carried_from", "review",
        "submission_hash", "grading_key", "isolation", "seconds", "submitted_at", "due",
        "late", "time_source", "received_at", "cohort", "graded_on",
        "review_apart", "late_penalty", "parts", "tests", "messages", "notes", "ta_notes",
        "version", "rule", "counted", "why", "versions", "hash", "inputs_hash"}
# Output columns that are sentences for people (the only ones that may differ).
PROSE_COLUMNS = {"reason", "ta_notes", "details", "note", "late_policy"}


def cli(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "autograder", *args], capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, (args, done.stdout[-2000:], done.stderr[-2000:])
    return done.stdout


def reworded(text: str) -> str:
    return " ".join(word[::-1] for word in reversed(text.split(" ")))


def reword(value: object, key: str = "") -> object:
    """``value`` (a record, or part of one) with every sentence reworded."""
    if isinstance(value, dict):
        return {k: reword(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [reword(item, key) for item in value]
    if isinstance(value, str) and key in WORDS and value:
        return reworded(value)
    return value


def string_fields(value: object, key: str = "") -> set[str]:
    if isinstance(value, dict):
        return {found for k, v in value.items() for found in string_fields(v, k)}
    if isinstance(value, list):
        return {found for item in value for found in string_fields(item, key)}
    return {key} if isinstance(value, str) and value else set()


def figures(path: Path, key: str) -> dict[str, dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return {row[key]: {k: v for k, v in row.items() if k not in PROSE_COLUMNS}
                for row in csv.DictReader(handle)}


def csv_rows(path: Path) -> dict[str, dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


def lms(root: Path) -> list[list[str]]:
    with (root / "moodle-grades.csv").open(newline="", encoding="utf-8") as handle:
        moodle = list(csv.reader(handle))
    with (root / "canvas-grades.csv").open(newline="", encoding="utf-8") as handle:
        return moodle + list(csv.reader(handle))


@pytest.fixture(scope="module")
def graded_twice(tmp_path_factory, graded_sample_cohort) -> tuple[Course, Course]:
    """(the sample cohort graded with a due date and a late policy, a copy with every
    sentence reworded)."""
    root = copy_of(graded_sample_cohort, tmp_path_factory.mktemp("rewording") / "as-graded")
    cli("autograde", "--root", str(root), "--due", "2026-12-14 23:59 UTC",
        "--late-policy", "10%/day", "--no-progress", "--jobs", "2")
    cli("review", "set", UNJUDGED, "limitation", "7", "--note", "sound", "--root", str(root))
    other = root.parent / "reworded"
    shutil.copytree(root, other, symlinks=True)
    course, copy = Course(root, SPEC.name), Course(other, SPEC.name)
    for student in copy.students():
        path = copy.autograded(student) / RESULTS_JSON
        data = json.loads(path.read_text())
        data["extra_data"] = reword(data["extra_data"])
        path.write_text(json.dumps(data))
    for each in (root, other):  # a plain run grades nothing again and renders every view
        assert "0 assessed in this run" in cli("autograde", "--root", str(each), "--no-progress")
        cli("export", "--root", str(each))
        cli("report", "--root", str(each))
    return course, copy


def test_every_text_of_a_record_is_declared_words_or_data(graded_twice):
    """A new field that is a sentence must be in ``WORDS`` (or it would escape the
    rewording below); one that is data, here."""
    course, _ = graded_twice
    found = set()
    for student in course.students():
        found |= string_fields(json.loads(
            (course.autograded(student) / RESULTS_JSON).read_text())["extra_data"])
    assert found - WORDS - DATA == set()
    assert {"text", "explanations", "reason", "decided"} <= found  # the cohort has each kind


def test_rewording_every_sentence_changes_no_figure(graded_twice):
    course, copy = graded_twice
    reasons = [{s: row["reason"] for s, row in csv_rows(c.grades_csv()).items()}
               for c in (course, copy)]
    said = [s for s, reason in reasons[0].items() if reason]
    assert said and all(reasons[1][s] == reworded(reasons[0][s]) for s in said)  # re-rendered
    assert figures(course.grades_csv(), "student") == figures(copy.grades_csv(), "student")
    for name in ("scores.csv", "items.csv", "submission_times.csv", "similarity.csv"):
        key = "student_a" if name == "similarity.csv" else ("check" if name == "items.csv"
                                                            else "student")
        assert figures(course.root / "report" / name, key) == figures(
            copy.root / "report" / name, key), name
    assert figures(course.root / "report" / "review.csv", "student") == figures(
        copy.root / "report" / "review.csv", "student")
    assert figures(course.root / "nbgrader-export.csv", "student_id") == figures(
        copy.root / "nbgrader-export.csv", "student_id")
    assert lms(course.root) == lms(copy.root)


def test_a_decision_holds_whatever_the_words(graded_twice):
    """A person's score judged the part's verdict, not its words: it still stands."""
    course, copy = graded_twice
    rows = [figures(c.grades_csv(), "student")[UNJUDGED] for c in (course, copy)]
    assert rows[0] == rows[1] and rows[0]["needs_review"] == "no"
    listed = [cli("review", "list", "--root", str(c.root)) for c in (course, copy)]
    flagged = [{line.split(":")[0] for line in out.splitlines() if line[:1] not in " \t"}
               for out in listed]
    assert flagged[0] == flagged[1] and UNJUDGED not in flagged[0]
