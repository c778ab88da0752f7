"""A back-dated ``timestamp.txt`` is never ``late = no`` silently (issue 25, item 6).

Through the real exchange: students fetch, solve and ``nbgrader submit``; one submits after
the due date and then, in the exchange folder they own, back-dates ``timestamp.txt``, renames
the folder to a back-dated name and resets every mtime with ``os.utime``. Through LMS
downloads: a student whose uploaded file names carry a back-dated time (which the TA's
``lms_filename_regexp`` reads, so ``zip_collect`` writes it into timestamp.txt), against the
time the TA gives (``--received``) or the time the zip records (its "UT" extra field). Each
forger ends ``late = unknown``, to review, with both times in the reason; every honest
student keeps ``late`` yes/no with no review, and their time confirmed. The assignment is
the small ``vectors`` test bundle (with a source folder: ``tests/support/vectors_source.py``).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import struct
import time
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest

from autograder.base.course import TIMESTAMP_TXT, parse_time, submission_time
from autograder.batch import receipts
from autograder.batch.engine import BatchOptions
from autograder.batch.lateness import TOLERANCE
from autograder.integrations.cohorts import workflow
from autograder.integrations.cohorts.config import get_cohort
from autograder.sandbox.limits import Limits
from tests.support.cohort_config import term_config
from tests.support.commands import nbgrader_ok
from tests.support.vectors import REFERENCE, VECTORS, solved_notebook
from tests.support.vectors_source import bundles_with_source

pytestmark = pytest.mark.slow

ASSIGNMENT = VECTORS.name
NOTEBOOK = VECTORS.notebook
FAST = BatchOptions(jobs=2, progress=False, limits=Limits(cell_timeout=5, call_timeout=3))
# An LMS naming files <student>__<original name>, and a TA's regexp that takes a time from
# the name when one is there: the forging student names the upload to carry one.
REGEXP = (r".*/(?P<student_id>[A-Za-z0-9.@-]+)__"
          r"(?:(?P<timestamp>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)__)?(?P<file_id>[^/]+)$")


def write_config(path: Path, tmp: Path, due: str) -> Path:
    return term_config(tmp, due, defaults=f"lms_filename_regexp = '{REGEXP}'", path=path)


def solve(folder: Path) -> None:
    (folder / NOTEBOOK).write_text(json.dumps(solved_notebook(REFERENCE)), encoding="utf-8")


def submit(cohort, fetched: Path, home: Path, student: str) -> None:
    shutil.copytree(fetched, home)
    solve(home / ASSIGNMENT)
    nbgrader_ok(home, "submit", ASSIGNMENT, f"--course={cohort.course_id}",
                        f"--Exchange.root={cohort.exchange}", f"--student={student}",
                        f"--Exchange.cache={home / '.cache'}")


def back_date(inbound: Path, student: str, to: datetime) -> None:
    """What a student can do to their own folder in the exchange after submitting: write
    an earlier time into timestamp.txt, give the folder the matching name, and set every
    file's (and folder's) times back."""
    (folder,) = inbound.glob(f"{student}+{ASSIGNMENT}+*")
    stamp = f"{to:%Y-%m-%d %H:%M:%S.%f} UTC"
    (folder / TIMESTAMP_TXT).write_text(stamp)
    random_part = folder.name.rsplit("+", 1)[1]
    moved = folder.rename(inbound / f"{student}+{ASSIGNMENT}+{stamp}+{random_part}")
    seconds = to.timestamp()
    for path in [*moved.rglob("*"), moved]:
        os.utime(path, (seconds, seconds), follow_symlinks=False)


def lms_files(tmp: Path, student: str, claimed: datetime | None) -> list[tuple[str, Path]]:
    """(name in the download, file) of one LMS student; ``claimed``: the time the student
    put into their file names."""
    folder = tmp / f"lms-{student}"
    folder.mkdir()
    solve(folder)
    middle = f"{claimed:%Y-%m-%d %H:%M:%S}__" if claimed else ""
    return [(f"{student}__{middle}{NOTEBOOK}", folder / NOTEBOOK)]


def ut_extra(moment: datetime) -> bytes:
    """An entry's "UT" extended-timestamp extra field (what Info-ZIP and most LMSs write)."""
    return struct.pack("<HHBi", 0x5455, 5, 1, int(moment.timestamp()))


def write_zip(path: Path, entries: list[tuple[str, Path]], recorded: datetime | None) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, source in entries:
            info = zipfile.ZipInfo(name, date_time=(recorded or datetime.now(UTC)).timetuple()[:6])
            if recorded is not None:
                info.extra = ut_extra(recorded)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, source.read_bytes())
    return path


def rows(path: Path) -> dict[str, dict[str, str]]:
    with path.open(newline="") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> SimpleNamespace:
    tmp = tmp_path_factory.mktemp("forged")
    bundles_with_source(tmp / "bundles")
    config = write_config(tmp / "cohorts.toml", tmp, "2030-01-01 00:00:00 UTC")
    workflow.release(get_cohort("term", config))
    cohort = get_cohort("term", config)
    fetched = tmp / "fetched"
    fetched.mkdir()
    nbgrader_ok(fetched, "fetch_assignment", ASSIGNMENT, f"--course={cohort.course_id}",
                        f"--Exchange.root={cohort.exchange}")
    submit(cohort, fetched, tmp / "home" / "honest", "honest")
    due = datetime.now(UTC)
    time.sleep(1.2)
    submit(cohort, fetched, tmp / "home" / "forger", "forger")
    submit(cohort, fetched, tmp / "home" / "late", "late")
    inbound = cohort.exchange / cohort.course_id / "inbound"
    back_date(inbound, "forger", due - timedelta(hours=1))
    write_config(config, tmp, f"{due:%Y-%m-%d %H:%M:%S.%f} UTC")
    cohort = get_cohort("term", config)

    # A download given with the time the LMS received it (after the due date), and one whose
    # entries record their times (in UTC, the "UT" extra field).
    lms = tmp / "lms"
    lms.mkdir()
    given = write_zip(lms / "late-download.zip",
                      lms_files(lms, "lms-forger", due - timedelta(hours=1))
                      + lms_files(lms, "lms-plain", None), None)
    ut_forger = write_zip(lms / "forger.zip",
                          lms_files(lms, "zip-forger", due - timedelta(hours=1)),
                          due + timedelta(minutes=30))
    ut_honest = write_zip(lms / "honest.zip", lms_files(lms, "zip-honest", None),
                          due - timedelta(hours=3))
    received = due + timedelta(hours=2)
    collected = [workflow.collect(cohort, [given], received=received),
                 workflow.collect(cohort, [ut_forger, ut_honest])]
    summary = workflow.grade(cohort, FAST)
    files = workflow.export(cohort)
    return SimpleNamespace(cohort=cohort, due=due, received=received, summary=summary,
                           files=files, rows=rows(files.grades), collected=collected)


def extra(graded: SimpleNamespace, student: str) -> dict:
    path = graded.cohort.root / "autograded" / student / ASSIGNMENT / "results.json"
    return json.loads(path.read_text())["extra_data"]


def test_every_forger_is_late_unknown_with_both_times(graded):
    rows, due = graded.rows, graded.due
    one_hour_early = f"{due - timedelta(hours=1):%Y-%m-%d %H:%M:%S} UTC"
    for student in ("forger", "lms-forger", "zip-forger"):  # the forgery works on timestamp.txt
        claim, _ = submission_time(graded.cohort.root / "submitted" / student / ASSIGNMENT)
        assert claim is not None and claim < due, student  # alone, it would say "on time"
    for student, where in [("forger", "its files reached the exchange at"),
                           ("lms-forger", "the TA gave, with --received, that the LMS "
                                          "received it at"),
                           ("zip-forger", "the LMS download records its files at")]:
        row, data = rows[student], extra(graded, student)
        assert (row["late"], row["needs_review"]) == ("unknown", "yes"), (student, row)
        assert data["late"] == "unknown" and data["needs_review"] is True
        # the student's claim and the record they could not write, both named
        assert f"timestamp.txt says it was submitted at {one_hour_early}" in row["reason"], row
        assert where in row["reason"], row
        assert data["received_at"] and data["received_at"] in row["reason"]
        assert parse_time(data["received_at"]) > due  # what really happened: after the due date
        page = (graded.cohort.root / "autograded" / student / ASSIGNMENT /
                "feedback.html").read_text()
        assert "could not be confirmed" in page and one_hour_early in page
        assert float(row["total"]) == VECTORS.total_points  # flagged for a person, not penalised
    assert rows["lms-forger"]["time_source"] == rows["zip-forger"]["time_source"] == "lms"
    assert rows["forger"]["time_source"] == "exchange"
    summary = graded.files.summary.read_text()
    assert "## Submission times" in summary and "3 with `late` unknown" in summary
    assert all(f"**{s}**" in summary for s in ("forger", "lms-forger", "zip-forger"))


def test_honest_students_keep_their_verdict_with_no_review(graded):
    rows = graded.rows
    expected = {"honest": ("no", "exchange"), "late": ("yes", "exchange"),
                "lms-plain": ("yes", "lms"), "zip-honest": ("no", "lms")}
    for student, (late, source) in expected.items():
        row = rows[student]
        assert (row["late"], row["needs_review"], row["time_source"]) == (late, "no", source), row
        assert row["reason"] == "", row
    # lms-plain had no timestamp.txt: its time is the one the TA gave
    assert rows["lms-plain"]["submitted_at"] == f"{graded.received:%Y-%m-%d %H:%M:%S} UTC"
    assert rows["zip-honest"]["submitted_at"] == f"{graded.due - timedelta(hours=3):%Y-%m-%d %H:%M:%S} UTC"
    # An honest submit: the exchange's record trails timestamp.txt by the copy, far inside
    # the tolerance.
    book = receipts.load(graded.cohort.root, ASSIGNMENT)
    for student in ("honest", "late"):
        claim = parse_time((graded.cohort.root / "submitted" / student / ASSIGNMENT /
                            TIMESTAMP_TXT).read_text())
        gap = book[student].moment - claim
        print(f"{student}: exchange record - timestamp.txt = {gap.total_seconds():.3f} s")
        assert timedelta(0) <= gap < TOLERANCE / 10


def test_receipts_live_outside_the_submissions_and_a_second_collect_keeps_them(graded):
    root = graded.cohort.root
    assert (root / "receipts" / f"{ASSIGNMENT}.json").is_file()
    assert not list((root / "submitted").rglob("receipts*"))
    book = receipts.load(root, ASSIGNMENT)
    # the second collect (other zips) kept the first download's receipts: same files
    assert book["lms-plain"].how.startswith("the TA gave")
    assert any("arrival times of" in line for line in graded.collected[0])
    # A regrade without changes skips everyone: the saved lateness is current.
    again = workflow.grade(graded.cohort, FAST)
    assert again.graded == [] and len(again.skipped) == 7
