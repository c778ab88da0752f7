"""The lateness rule (``autograder.batch.lateness``): timestamp.txt against the receipt
``cohort collect`` recorded, case by case, on real course folders and receipts files; and
the zip extra fields an LMS download records its times in."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import zipfile
from datetime import UTC, datetime, timedelta

import pytest

from autograder.base.course import TIMESTAMP_TXT, Course
from autograder.batch import receipts
from autograder.batch.lateness import SOURCE_CLAIM_ONLY, TOLERANCE, decide, span
from autograder.grading.submission import content_hash
from autograder.integrations.cohorts.arrival import REACHED_EXCHANGE, _extra_time
from tests.support.skips import install
from tests.support.vectors import VECTORS as SPEC

NOTEBOOK = SPEC.notebook

DUE = datetime(2026, 12, 14, 23, 59, tzinfo=UTC)


def course_with(tmp_path, claim: datetime | None) -> tuple[Course, str]:
    course = Course(tmp_path, SPEC.name)
    folder = course.submitted("s1")
    folder.mkdir(parents=True)
    (folder / NOTEBOOK).write_text("{}")
    if claim is not None:
        (folder / TIMESTAMP_TXT).write_text(f"{claim:%Y-%m-%d %H:%M:%S.%f} UTC")
    return course, content_hash(folder)


def receipt(course: Course, moment: datetime | None, digest: str, source=receipts.SOURCE_EXCHANGE,
            how=REACHED_EXCHANGE) -> None:
    text = receipts.time_text(moment) if moment else None
    receipts.save(course.root, course.assignment,
                  {"s1": receipts.Receipt(source, text, how, digest)})


def test_an_honest_submission_is_confirmed(tmp_path):
    course, digest = course_with(tmp_path, DUE - timedelta(hours=1))
    receipt(course, DUE - timedelta(hours=1) + timedelta(seconds=2), digest)
    decided = decide(course.submitted("s1"), DUE)
    assert (decided.late, decided.unknown, decided.note) == (False, False, "")
    assert decided.time_source == "exchange" and decided.submitted_at == "2026-12-14 22:59:00 UTC"
    # a submission whose copy straddles the due date by seconds keeps its own time
    course2, digest2 = course_with(tmp_path / "b", DUE - timedelta(seconds=1))
    receipt(course2, DUE + timedelta(seconds=3), digest2)
    assert decide(course2.submitted("s1"), DUE).late is False


@pytest.mark.parametrize("gap, words", [
    (TOLERANCE + timedelta(seconds=1), "later (back-dated, or changed after it was submitted)"),
    (-(TOLERANCE + timedelta(seconds=1)), "earlier (a submission time later than its files"),
])
def test_a_claim_the_record_contradicts_goes_to_review_with_both_times(tmp_path, gap, words):
    claim = DUE - timedelta(hours=1)
    course, digest = course_with(tmp_path, claim)
    receipt(course, claim + gap, digest)
    decided = decide(course.submitted("s1"), DUE)
    assert decided.unknown and not decided.late
    assert "timestamp.txt says it was submitted at 2026-12-14 22:59:00 UTC" in decided.note
    assert f"{REACHED_EXCHANGE} at {(claim + gap):%Y-%m-%d %H:%M:%S} UTC" in decided.note
    assert words in decided.note and span(gap) in decided.note
    # a tamper within the on-time window is reviewed all the same; without a due date nothing
    # is judged: late is unknown (never "no"), and no one goes to review
    undecided = decide(course.submitted("s1"), None)
    assert (undecided.late, undecided.unknown, undecided.note) == (False, True, "")


def test_a_claim_that_back_dates_across_the_due_date(tmp_path):
    course, digest = course_with(tmp_path, DUE - timedelta(minutes=1))
    receipt(course, DUE + timedelta(hours=3), digest)
    decided = decide(course.submitted("s1"), DUE)
    assert decided.unknown and "3 h 1 min later" in decided.note


def test_without_a_receipt_the_time_is_shown_as_timestamp_txt_only(tmp_path):
    course, _ = course_with(tmp_path, DUE - timedelta(hours=1))
    decided = decide(course.submitted("s1"), DUE)
    assert (decided.late, decided.unknown, decided.time_source) == (False, False,
                                                                    SOURCE_CLAIM_ONLY)
    shutil.rmtree(course.root / "submitted")
    course, _ = course_with(tmp_path, None)
    assert decide(course.submitted("s1"), DUE).note == (
        "no submission time (timestamp.txt missing): check when it was submitted")


def test_an_lms_time_stands_in_for_a_missing_timestamp(tmp_path):
    course, digest = course_with(tmp_path, None)
    receipt(course, DUE + timedelta(hours=2), digest, receipts.SOURCE_LMS, "the LMS received it")
    decided = decide(course.submitted("s1"), DUE)
    assert (decided.late, decided.unknown, decided.time_source) == (True, False, "lms")
    assert decided.submitted_at == "2026-12-15 01:59:00 UTC"
    # an LMS download that records no time: unknown, and the reason says what to give
    receipt(course, None, digest, receipts.SOURCE_LMS, "the zip records no zone (pass --received)")
    decided = decide(course.submitted("s1"), DUE)
    assert decided.unknown and "pass --received" in decided.note


def test_a_receipt_for_other_files_or_a_damaged_file_is_never_on_time(tmp_path):
    course, digest = course_with(tmp_path, DUE - timedelta(hours=1))
    receipt(course, DUE - timedelta(hours=1), digest)
    (course.submitted("s1") / NOTEBOOK).write_text('{"changed": 1}')
    decided = decide(course.submitted("s1"), DUE)
    assert decided.unknown and "changed after `cohort collect`" in decided.note
    # an exchange submission whose time could not be established
    receipt(course, None, content_hash(course.submitted("s1")), how="no folder holds them")
    assert decide(course.submitted("s1"), DUE).unknown
    # a receipts file someone edited by hand
    path = receipts.path_for(course.root, course.assignment)
    data = json.loads(path.read_text())
    data["submissions"]["s1"]["received_at"] = 1
    path.write_text(json.dumps(data))
    with pytest.raises(receipts.ReceiptsError, match="not a receipts file"):
        receipts.load(course.root, course.assignment)
    decided = decide(course.submitted("s1"), DUE)
    assert decided.unknown and "receipts file cannot be read" in decided.note


def test_the_ut_extra_field_info_zip_writes_is_read_in_utc(tmp_path):
    if shutil.which("zip") is None:
        pytest.skip(install("Info-ZIP's zip not installed", "apt-get install -y zip"))
    moment = datetime(2026, 12, 14, 21, 30, 5, tzinfo=UTC)
    source = tmp_path / f"s1__{NOTEBOOK}"
    source.write_text("{}")
    os.utime(source, (moment.timestamp(), moment.timestamp()))
    subprocess.run(["zip", "-q", "-j", str(tmp_path / "d.zip"), str(source)], check=True,
                   env={**os.environ, "TZ": "America/New_York"})  # local times differ
    (info,) = zipfile.ZipFile(tmp_path / "d.zip").infolist()
    assert _extra_time(info.extra) == moment
    assert info.date_time != moment.timetuple()[:6]  # the DOS time is the local one


def test_the_ntfs_extra_field_and_none():
    moment = datetime(2026, 12, 14, 21, 30, 5, 123456, tzinfo=UTC)
    ticks = (moment - datetime(1601, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1) * 10
    body = struct.pack("<IHHQQQ", 0, 1, 24, ticks, ticks, ticks)
    assert _extra_time(struct.pack("<HH", 0x000A, len(body)) + body) == moment
    assert _extra_time(b"") is None and _extra_time(b"\x01\x00\x02\x00ab") is None
