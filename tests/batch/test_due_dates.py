"""Due dates as TAs type them (issue 37): a bare day is refused with a suggestion that keeps
the day (``'2026-12-14 UTC'`` once moved the deadline to midnight and made three on-time
students late), named zones are read with their daylight saving, and anything else names
the accepted forms in one line. A mistyped id in ``--extension`` is refused, naming the
close one, instead of being remembered and changing nothing."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from autograder.batch.due_dates import DueDateError, parse_due
from tests.batch.test_course_root_memory import ASSIGNMENT, cli
from tests.support.cli import one_line_error

DUE = datetime(2026, 12, 14, 23, 59, tzinfo=UTC)


@pytest.mark.parametrize("text, expected", [
    ("2026-12-14 23:59 UTC", DUE),
    ("2026-12-14 23:59:00 UTC", DUE),
    ("2026-12-15T00:59+01:00", DUE),
    ("2026-12-15 00:59 Europe/Berlin", DUE),  # winter: UTC+1
    ("2026-07-15 01:59 Europe/Berlin", datetime(2026, 7, 14, 23, 59, tzinfo=UTC)),  # summer: +2
    ("2026-12-14 15:59 America/Los_Angeles", DUE),
])
def test_a_due_date_with_its_zone_is_read(text, expected):
    assert parse_due(text) == expected


@pytest.mark.parametrize("text, says", [
    ("2026-12-14", "'2026-12-14 23:59 UTC'"),
    ("2026-12-14 UTC", "'2026-12-14 23:59 UTC'"),
    ("2026-12-14 Europe/Berlin", "'2026-12-14 23:59 Europe/Berlin'"),
    ("2026-12-14 23:59", "has no time zone"),
    ("2026-12-14 23:59 Mars/Olympus", "unknown time zone 'Mars/Olympus'"),
    ("2026-12-14 11:59 PM UTC", "24-hour time"),
    ("next friday", "no day read at its start"),
    ("2026-12-14T23:59+01:00 UTC", "names two zones"),
])
def test_a_due_date_that_cannot_be_placed_says_what_to_type(text, says):
    with pytest.raises(DueDateError, match=r".*") as raised:
        parse_due(text)
    assert says in str(raised.value) and "\n" not in str(raised.value)


@pytest.mark.parametrize("text, says", [
    ("2026-12-14 23:59 EST", "the time zone 'EST' is not read (abbreviations are not read: "
     "several zones share them): write UTC, an offset (+01:00) or a place's zone "
     "(Europe/Berlin, America/New_York), e.g. '2026-12-14 23:59 UTC'"),
    ("2026-12-14 23:59 utc", "the time zone 'utc' is not read: write it UTC, e.g. "
     "'2026-12-14 23:59 UTC'"),
    ("2026-12-14 11:59 PM UTC", "11:59 PM is a 12-hour time, which is not read: write it as a "
     "24-hour time, e.g. '2026-12-14 23:59 UTC'"),
    ("2026-12-14 9:30 am Europe/Berlin", "9:30 am is a 12-hour time, which is not read: write "
     "it as a 24-hour time, e.g. '2026-12-14 09:30 Europe/Berlin'"),
    ("2026-12-14 12:10 AM EST", "12:10 AM is a 12-hour time and the time zone 'EST' is not "
     "read"),
    ("2026-13-14 23:59 UTC", "the day '2026-13-14' is not read"),
    ("2026-12-14 noon UTC", "no 24-hour time of day read after the day ('noon' was not): "
     "e.g. '2026-12-14 23:59 UTC'"),
])
def test_the_part_of_a_due_date_that_was_not_read_is_named(text, says):
    """Issue 51: these were a bare "not a time" naming nothing."""
    with pytest.raises(DueDateError) as raised:
        parse_due(text)
    assert str(raised.value).startswith(f"{text!r}: {says}") and "\n" not in str(raised.value)


def test_autograde_names_the_zone_it_did_not_read(tmp_path):
    root = tmp_path / "course"
    (root / "submitted" / "s1" / ASSIGNMENT).mkdir(parents=True)
    line = one_line_error(cli("autograde", ASSIGNMENT, "--root", str(root), "--due",
                              "2026-12-14 23:59 EST"))
    assert "the time zone 'EST' is not read" in line and "'2026-12-14 23:59 UTC'" in line
    assert not (root / "course.json").exists()


def test_autograde_refuses_a_bare_day_before_it_grades_or_remembers(tmp_path):
    root = tmp_path / "course"
    (root / "submitted" / "s1" / ASSIGNMENT).mkdir(parents=True)
    line = one_line_error(cli("autograde", ASSIGNMENT, "--root", str(root), "--due", "2026-12-14"))
    assert "no time of day" in line and "'2026-12-14 23:59 UTC'" in line
    assert not (root / "course.json").exists()


def test_an_extension_for_a_mistyped_student_is_refused_naming_the_close_one(tmp_path):
    root = tmp_path / "course"
    for student in ("s014-correct", "s015-late"):
        (root / "submitted" / student / ASSIGNMENT).mkdir(parents=True)
    line = one_line_error(cli("autograde", ASSIGNMENT, "--root", str(root), "--no-progress",
                              "--jobs", "1", "--extension", "s015-lat=2026-12-16 23:59 UTC"))
    assert "--extension s015-lat" in line and "did you mean s015-late?" in line
    remembered = json.loads((root / "course.json").read_text()) if (
        root / "course.json").exists() else {}
    assert "extensions" not in remembered.get(ASSIGNMENT, {})


@pytest.mark.parametrize("text", ["0001-01-01 00:00 UTC", "9999-12-31 23:59 UTC",
                                  "1969-12-31 23:59 UTC"])
def test_a_due_date_out_of_range_is_refused_before_it_is_remembered(text):
    """Issue 38: a year-1 due date was remembered as '1-01-01 ...' and every later run of the
    root failed to read it."""
    with pytest.raises(DueDateError, match="a due date is between 1970 and 9998"):
        parse_due(text)


# ------------------------------------------------------------------ issue 50, item 16


@pytest.mark.parametrize("extension", ["2026-12-10 23:59 UTC",  # the class deadline moved
                                       "2025-12-16 23:59 UTC",  # a year typed early
                                       "2026-12-14 23:59 UTC"])  # the due date itself
def test_an_extension_that_ends_by_the_due_date_is_refused_and_nothing_changes(tmp_path,
                                                                             extension):
    root = tmp_path / "course"
    (root / "submitted" / "s042" / ASSIGNMENT).mkdir(parents=True)
    line = one_line_error(cli("autograde", ASSIGNMENT, "--root", str(root), "--no-progress",
                              "--jobs", "1", "--due", "2026-12-14 23:59 UTC",
                              "--extension", f"s042={extension}"))
    assert "the extension of s042" in line and "2026-12-14 23:59:00 UTC" in line, line
    assert "late sooner" in line and "--extension s042=none" in line
    assert not (root / "course.json").exists()  # neither the due date nor the extension


def test_a_due_date_moved_past_a_remembered_extension_is_refused(tmp_path):
    root = tmp_path / "course"
    (root / "submitted" / "s042" / ASSIGNMENT).mkdir(parents=True)
    remembered = {ASSIGNMENT: {"due": "2026-12-14 23:59:00 UTC",
                               "extensions": {"s042": "2026-12-16 23:59:00 UTC"}}}
    (root / "course.json").write_text(json.dumps(remembered))
    before = (root / "course.json").read_bytes()
    line = one_line_error(cli("autograde", ASSIGNMENT, "--root", str(root), "--no-progress",
                              "--jobs", "1", "--due", "2026-12-18 23:59 UTC"))
    assert "the extension of s042 (2026-12-16 23:59:00 UTC) ends before the due date" in line
    assert (root / "course.json").read_bytes() == before
