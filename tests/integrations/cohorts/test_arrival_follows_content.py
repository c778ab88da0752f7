"""Arrival times that follow the content (issue 50, items 15 and 13).

* The same files collected again keep their first receipt: a TA who downloads the whole
  assignment from the LMS again (``--received`` after the due date) must not make a student
  late whose identical files the first download (on time) already held; a student whose
  files changed is judged by the new download's time.
* One ``cohort collect --zip`` that takes a late exchange submission and an LMS upload of the
  same student keeps the exchange version with its own receipt; a kept version without one,
  in a course whose collects record them, is never on time (``unknown``: judged by what is
  known, the newest counts).

Through the real command line and nbgrader's exchange, on the small ``vectors`` bundle (with
a source folder: ``tests/support/vectors_source.py``)."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from autograder.base.course import RESULTS_JSON, TIMESTAMP_TXT, Course
from autograder.batch import lateness, receipts, version_rule, versions
from autograder.grading.submission import content_hash
from autograder.integrations.cohorts import arrival
from autograder.integrations.cohorts.config import get_cohort
from autograder.results.result import load
from autograder.spec import REPO
from tests.support.cohort_config import term_config
from tests.support.commands import nbgrader_ok
from tests.support.vectors import REFERENCE, VECTORS, WRONG_NORMALIZE, solved_notebook
from tests.support.vectors_source import bundles_with_source

ASSIGNMENT = VECTORS.name
NOTEBOOK = VECTORS.notebook
BUGGY = REFERENCE | {"normalize": WRONG_NORMALIZE}  # 6 of 10


def write_config(tmp: Path, due: str, rule: str = "newest") -> Path:
    return term_config(tmp, due, cohort=f'version_rule = "{rule}"\n\n'
                       '[cohorts.term.late_policy]\npercent = 20\nper = "day"')


def cohort_cli(config: Path, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "cohort", "--config", str(config), *args],
        cwd=REPO, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def notebook_bytes(functions: dict[str, str]) -> bytes:
    return json.dumps(solved_notebook(functions)).encode()


def write_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def rows(path: Path) -> dict[str, dict[str, str]]:
    with path.open(newline="") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


# ------------------------------------------------------------------ item 15, end to end


@pytest.mark.slow
def test_a_second_download_of_unchanged_files_keeps_them_on_time(tmp_path):
    bundles_with_source(tmp_path / "bundles")
    config = write_config(tmp_path, "2026-12-14 23:59:00 UTC")
    cohort_cli(config, "release", "term")
    first = write_zip(tmp_path / "download-1.zip", {
        f"same__{NOTEBOOK}": notebook_bytes(REFERENCE),
        f"changed__{NOTEBOOK}": notebook_bytes(BUGGY)})
    cohort_cli(config, "collect", "term", "--zip", str(first),
               "--received", "2026-12-14 20:00 UTC")
    # The whole assignment downloaded again after accepting late work: "same" unchanged,
    # "changed" uploaded a new notebook after the due date.
    second = write_zip(tmp_path / "download-2.zip", {
        f"same__{NOTEBOOK}": notebook_bytes(REFERENCE),
        f"changed__{NOTEBOOK}": notebook_bytes(REFERENCE)})
    done = cohort_cli(config, "collect", "term", "--zip", str(second),
                      "--received", "2026-12-16 09:00 UTC")

    cohort = get_cohort("term", config)
    cohort_cli(config, "grade", "term", "--jobs", "1", "--no-progress")
    graded = rows(cohort.root / "grades.csv")
    assert graded["same"]["late"] == "no", graded["same"]
    assert float(graded["same"]["total"]) == VECTORS.total_points
    assert graded["same"]["submitted_at"] == "2026-12-14 20:00:00 UTC"
    assert graded["changed"]["late"] == "yes"  # new files: the new download's time
    assert float(graded["changed"]["late_penalty"]) > 0

    book = receipts.load(cohort.root, ASSIGNMENT)
    assert book["same"].received_at.startswith("2026-12-14 20:00:00")
    assert book["changed"].received_at.startswith("2026-12-16 09:00:00")
    (kept,) = versions.kept(Course(cohort.root, ASSIGNMENT), "same")
    assert kept.receipt == book["same"]  # the version's own receipt and the course's agree
    assert "keep their first arrival time (same" in done.stdout, done.stdout


# ------------------------------------------------------------------ item 15, the record


def submission(course: Course, student: str, text: str) -> str:
    folder = course.submitted(student)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / NOTEBOOK).write_text(text)
    return content_hash(folder)


def lms_receipt(when: str) -> receipts.Receipt:
    return receipts.Receipt(receipts.SOURCE_LMS, when, arrival.GIVEN, "", detail="d.zip")


def collect(course: Course, when: str) -> receipts.Receipt:
    """What `cohort collect` records for an LMS download received ``when``, and keeps."""
    arrival.record(course, receipts.load(course.root, ASSIGNMENT), {"s1": lms_receipt(when)})
    versions.keep_all(course)
    return receipts.load(course.root, ASSIGNMENT)["s1"]


def test_content_collected_again_keeps_its_first_receipt_even_after_another_version(tmp_path):
    course = Course(tmp_path / "root", ASSIGNMENT)
    submission(course, "s1", "A")
    assert collect(course, "2026-12-14 20:00:00.000000 UTC").received_at.startswith("2026-12-14")
    submission(course, "s1", "B")  # a late upload...
    assert collect(course, "2026-12-15 10:00:00.000000 UTC").received_at.startswith("2026-12-15")
    submission(course, "s1", "A")  # ...taken back: the files the course has had since the 14th
    again = collect(course, "2026-12-17 10:00:00.000000 UTC")
    assert again.received_at.startswith("2026-12-14 20:00") and again.detail == "d.zip"
    # a download with no time at all never takes the first one's away
    untimed = receipts.Receipt(receipts.SOURCE_LMS, None, "no zone", "")
    arrival.record(course, receipts.load(course.root, ASSIGNMENT), {"s1": untimed})
    assert receipts.load(course.root, ASSIGNMENT)["s1"].received_at.startswith("2026-12-14")


# ------------------------------------------------------------------ item 13


def test_a_version_kept_without_a_receipt_is_never_on_time_where_collects_record_them(tmp_path):
    """A version's timestamp.txt says on time, and nothing confirms it: in a course whose
    collects record receipts it is `unknown` (its reason says why), so `last_on_time` does not
    count it over the late newest; in a root collected by hand it is judged as before."""
    course = Course(tmp_path / "root", ASSIGNMENT)
    due = datetime(2026, 12, 14, 23, 59, tzinfo=UTC)
    folder = course.submitted("s1")
    folder.mkdir(parents=True)
    (folder / NOTEBOOK).write_text("forged")
    (folder / TIMESTAMP_TXT).write_text("2026-12-14 20:00:00.000000 UTC")
    (unconfirmed,) = [versions.keep(course, "s1")]
    assert unconfirmed.receipt is None
    by_hand = lateness.decide_kept(unconfirmed.files, None, due)
    assert not by_hand.late and not by_hand.unknown  # no receipts anywhere: as before

    newest = submission(course, "s1", "late upload")  # the LMS's, late, with its receipt
    arrival.record(course, {}, {"s1": lms_receipt("2026-12-16 09:00:00.000000 UTC")})
    versions.keep_all(course)
    judged = lateness.decide_kept(unconfirmed.files, None, due)
    assert judged.unknown and not judged.late and judged.note == lateness.NO_RECEIPT
    chosen = version_rule.plan(course, "s1", version_rule.LAST_ON_TIME, due)
    assert chosen.on_time is None and chosen.newest.hash == newest  # the late newest counts


def back_date(inbound: Path, student: str, to: datetime) -> None:
    """What a student can do to their own exchange folder after submitting late."""
    (folder,) = inbound.glob(f"{student}+{ASSIGNMENT}+*")
    (folder / TIMESTAMP_TXT).write_text(f"{to:%Y-%m-%d %H:%M:%S.%f} UTC")
    for path in [*folder.rglob("*"), folder]:
        os.utime(path, (to.timestamp(), to.timestamp()), follow_symlinks=False)


@pytest.mark.slow
def test_a_mixed_collect_keeps_the_exchange_versions_receipt(tmp_path):
    """Late exchange work (its timestamp.txt back-dated) and an LMS upload of the same student
    in one `cohort collect --zip`, under last_on_time: the exchange version is kept with its
    exchange receipt, so it is not on time, and the late LMS upload counts, penalised."""
    bundles_with_source(tmp_path / "bundles")
    config = write_config(tmp_path, "2030-01-01 00:00:00 UTC", "last_on_time")
    cohort_cli(config, "release", "term")
    cohort = get_cohort("term", config)
    home = tmp_path / "home"
    home.mkdir()
    nbgrader_ok(home, "fetch_assignment", ASSIGNMENT, f"--course={cohort.course_id}",
                f"--Exchange.root={cohort.exchange}")
    due = datetime.now(UTC)
    time.sleep(1.2)
    (home / ASSIGNMENT / NOTEBOOK).write_bytes(notebook_bytes(REFERENCE))
    nbgrader_ok(home, "submit", ASSIGNMENT, f"--course={cohort.course_id}",
                f"--Exchange.root={cohort.exchange}", "--student=s1",
                f"--Exchange.cache={home / '.cache'}")
    back_date(cohort.exchange / cohort.course_id / "inbound", "s1", due - timedelta(hours=1))
    config = write_config(tmp_path, f"{due:%Y-%m-%d %H:%M:%S.%f} UTC", "last_on_time")
    upload = write_zip(tmp_path / "upload.zip", {f"s1__{NOTEBOOK}": notebook_bytes(BUGGY)})
    received = due + timedelta(hours=2)
    cohort_cli(config, "collect", "term", "--zip", str(upload),
               "--received", f"{received:%Y-%m-%d %H:%M:%S} UTC")

    course = Course(cohort.root, ASSIGNMENT)
    kept = versions.kept(course, "s1")
    assert len(kept) == 2
    current = content_hash(course.submitted("s1"))
    (exchange,) = [v for v in kept if v.hash != current]

    cohort_cli(config, "grade", "term", "--jobs", "1", "--no-progress")
    version = load(course.autograded("s1") / RESULTS_JSON).version
    assert version["counted"] == current[:16], version  # not the back-dated exchange one
    listed = {v["hash"]: v["late"] for v in version["versions"]}
    assert listed == {exchange.short: "unknown", current[:16]: "yes"}
    row = rows(cohort.root / "grades.csv")["s1"]
    assert row["late"] == "yes" and float(row["late_penalty"]) > 0
    exchange = versions.find(course, "s1", exchange.hash)
    assert exchange.receipt is not None and exchange.receipt.source == receipts.SOURCE_EXCHANGE
    assert exchange.receipt.received_at and exchange.receipt.moment > due
