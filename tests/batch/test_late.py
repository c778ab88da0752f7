"""Late submissions: decided in the grading process, before anything is saved, so
results.json, feedback.html and grades.csv agree; a new due date regrades; a submission
whose time is missing or unreadable is ``late: unknown`` and goes to review."""

from __future__ import annotations

import csv
import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from autograder.base.course import FEEDBACK_HTML, RESULTS_JSON, TIMESTAMP_TXT, Course
from autograder.batch.engine import grade_course
from autograder.batch.lateness import NOT_JUDGED
from tests.support.vectors import VECTORS, submit

ASSIGNMENT = VECTORS.name  # the small test bundle: lateness is the engine's, not H2's
DUE = datetime(2026, 12, 14, 23, 59, tzinfo=UTC)
ROSTER = ["a-on-time", "b-late", "c-no-time", "d-bad-time"]  # each with a correct submission
MISSING = "no submission time (timestamp.txt missing): check when it was submitted"


def nbgrader_timestamp(moment: datetime) -> str:
    """What nbgrader writes into timestamp.txt."""
    return f"{moment:%Y-%m-%d %H:%M:%S.%f} UTC"


def saved(course: Course, student: str) -> tuple[dict, str]:
    """(extra_data of results.json, feedback.html)"""
    folder = course.autograded(student)
    data = json.loads((folder / RESULTS_JSON).read_text())
    return data["extra_data"], (folder / FEEDBACK_HTML).read_text()


def csv_rows(course: Course) -> dict[str, dict[str, str]]:
    with course.grades_csv().open(newline="") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


def test_submission_time_says_why_it_has_none(tmp_path):
    from autograder.base.course import submission_time

    assert submission_time(tmp_path) == (None, "timestamp.txt missing")
    (tmp_path / TIMESTAMP_TXT).write_text("last tuesday")
    assert submission_time(tmp_path) == (None, "timestamp.txt is not a time")
    (tmp_path / TIMESTAMP_TXT).write_bytes(b"\xff\xfe2026")
    assert submission_time(tmp_path) == (None, "timestamp.txt unreadable")
    (tmp_path / TIMESTAMP_TXT).write_text("2026-12-14 23:59:00.5 UTC\n")
    assert submission_time(tmp_path) == (datetime(2026, 12, 14, 23, 59, 0, 500000, tzinfo=UTC), "")


@pytest.mark.slow
def test_late_is_saved_consistently_and_follows_the_due_date(tmp_path, options):
    for student in ROSTER:
        submit(tmp_path, student)
    course = Course(tmp_path, ASSIGNMENT)
    late_at = DUE + timedelta(hours=1)
    (course.submitted("a-on-time") / TIMESTAMP_TXT).write_text(
        nbgrader_timestamp(DUE - timedelta(days=1)))
    (course.submitted("b-late") / TIMESTAMP_TXT).write_text(nbgrader_timestamp(late_at))
    (course.submitted("d-bad-time") / TIMESTAMP_TXT).write_text("not a time at all")

    first = grade_course(course, options=replace(options, due=DUE), assignment=VECTORS)
    assert sorted(first.graded) == sorted(ROSTER)
    rows = csv_rows(course)
    expected = {"a-on-time": (False, "no"), "b-late": (True, "yes"),
                "c-no-time": ("unknown", "unknown"), "d-bad-time": ("unknown", "unknown")}
    # results.json as saved (not only the batch's memory) and grades.csv say the same
    assert {s: saved(course, s)[0]["late"] for s in ROSTER} == {s: e[0] for s, e in expected.items()}
    assert {s: row["late"] for s, row in rows.items()} == {s: e[1] for s, e in expected.items()}
    for student, (in_json, _) in expected.items():
        extra, page = saved(course, student)
        assert extra["due"] == "2026-12-14 23:59:00 UTC"
        assert extra["submitted_at"] == rows[student]["submitted_at"], student
        assert ("after the due date" in page) == (in_json is True), student
    assert saved(course, "b-late")[0]["submitted_at"] == "2026-12-15 00:59:00 UTC"
    assert "on time" in saved(course, "a-on-time")[1]
    # A missing or unreadable time is flagged for review, with the reason, nothing else is.
    assert {s for s, row in rows.items() if row["needs_review"] == "yes"} == {"c-no-time",
                                                                            "d-bad-time"}
    assert MISSING in rows["c-no-time"]["reason"] and MISSING in [n["text"] for n in saved(course, "c-no-time")[0]["notes"]]
    assert "timestamp.txt is not a time" in rows["d-bad-time"]["reason"]
    assert saved(course, "c-no-time")[0]["needs_review"] is True
    assert all(float(row["total"]) == VECTORS.total for row in rows.values())  # flagged, not penalised

    again = grade_course(course, options=replace(options, due=DUE), assignment=VECTORS)
    assert again.graded == [] and sorted(again.skipped) == sorted(ROSTER)
    assert csv_rows(course)["b-late"]["late"] == "yes"  # a resumed batch keeps the right value

    extended = grade_course(course, options=replace(options, due=late_at + timedelta(hours=1)),
                            assignment=VECTORS)
    assert sorted(extended.graded) == sorted(ROSTER)  # another due date: nothing saved is current
    extra, page = saved(course, "b-late")
    assert extra["late"] is False and csv_rows(course)["b-late"]["late"] == "no"
    assert "after the due date" not in page and "on time" in page

    # Without a due date nothing is judged: late is unknown everywhere (never "no": b-late is
    # not on time), nobody goes to review, and the reason says why, apart from a missing time.
    no_due = grade_course(course, options=options, assignment=VECTORS)
    rows = csv_rows(course)
    assert {row["late"] for row in rows.values()} == {"unknown"}
    assert {row["needs_review"] for row in rows.values()} == {"no"}
    # the TA's note: in grades.csv's ta_notes, not in the reason a student may be shown
    assert all(row["ta_notes"] == NOT_JUDGED and row["reason"] == "" for row in rows.values()), rows
    assert all(saved(course, s)[0]["late"] == "unknown" for s in ROSTER)
    assert all(saved(course, s)[0]["due"] == "" for s in ROSTER)
    assert "no due date was given" in saved(course, "b-late")[1]
    assert "after the due date" not in saved(course, "b-late")[1]
    assert not any(MISSING in r.reason for r in no_due.results)
    assert grade_course(course, options=options, assignment=VECTORS).graded == []  # current


def test_a_saved_result_reads_back_late_unknown(tmp_path):
    from autograder.results.result import SubmissionResult, load, save

    result = SubmissionResult("s1", ASSIGNMENT, "graded", late_unknown=True, due="x")
    save(result, Path(tmp_path) / RESULTS_JSON)
    back = load(Path(tmp_path) / RESULTS_JSON)
    assert back is not None and back.late_unknown and not back.late and back.late_label == "unknown"


@pytest.mark.parametrize("text, expected", [
    ("2026-12-14 23:59 UTC", DUE),
    ("2026-12-15T00:59+01:00", DUE),
])
def test_autograde_reads_a_due_date_with_its_zone(text, expected):
    from autograder.batch.command import due_date

    assert due_date(text) == expected


@pytest.mark.parametrize("text, says", [
    ("2026-12-14 23:59", "has no time zone"),
    ("next friday", "no day read at its start"),
])
def test_autograde_refuses_a_due_date_it_cannot_place_in_time(text, says):
    import argparse

    from autograder.batch.command import due_date

    with pytest.raises(argparse.ArgumentTypeError, match=says):
        due_date(text)
