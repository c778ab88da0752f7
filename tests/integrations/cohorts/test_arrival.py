"""Arrival records from the exchange (``autograder.integrations.cohorts.arrival``), on
folders laid out as ``nbgrader submit`` and ``collect`` leave them: the time is the last
change the file system recorded, which ``os.utime`` cannot take back; a folder that does not
hold the collected files, or holds a link, gives no time (and so a review)."""

from __future__ import annotations

import os
import shutil
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from autograder.base.course import TIMESTAMP_TXT, Course
from autograder.batch import receipts
from autograder.integrations.cohorts import arrival
from tests.support.vectors import VECTORS as SPEC

NOTEBOOK = SPEC.notebook

CLAIM = "2026-12-14 20:00:00.000000 UTC"


def exchange_and_course(tmp_path: Path) -> tuple[Course, Path, Path]:
    """One submission in the exchange, and its copy in submitted/ (as collect makes it)."""
    inbound = tmp_path / "exchange" / "course" / "inbound"
    folder = inbound / f"s1+{SPEC.name}+{CLAIM}+abcdef"
    folder.mkdir(parents=True)
    (folder / NOTEBOOK).write_text('{"cells": []}')
    (folder / TIMESTAMP_TXT).write_text(CLAIM)
    (folder / "submission_secret.txt").write_text("f" * 128)
    course = Course(tmp_path / "root", SPEC.name)
    shutil.copytree(folder, course.submitted("s1"))
    return course, inbound, folder


def test_the_time_is_the_last_change_even_after_utime(tmp_path):
    course, inbound, folder = exchange_and_course(tmp_path)
    time.sleep(0.05)
    before = datetime.now(UTC)
    old = datetime(2026, 12, 14, 20, tzinfo=UTC).timestamp()
    for path in [*folder.iterdir(), folder]:
        os.utime(path, (old, old))  # what a student can do: the mtimes say 20:00
    found = arrival.from_exchange(course, inbound, {})
    moment = found["s1"].moment
    assert moment is not None and moment >= before - timedelta(seconds=1)
    assert found["s1"].how == arrival.REACHED_EXCHANGE
    assert found["s1"].detail == f"inbound/{folder.name}"
    lines = arrival.record(course, {}, found)
    assert "arrival times of 1 submission(s)" in lines[0]
    assert receipts.load(course.root, SPEC.name)["s1"].received_at == found["s1"].received_at


def test_a_folder_changed_after_collect_or_holding_a_link_gives_no_time(tmp_path):
    course, inbound, folder = exchange_and_course(tmp_path)
    (folder / NOTEBOOK).write_text('{"cells": [1]}')  # not what was collected
    found = arrival.from_exchange(course, inbound, {})
    assert found["s1"].received_at is None and "no folder of the exchange" in found["s1"].how
    # ...unless the collected files were confirmed by an earlier collect
    confirmed = receipts.Receipt("exchange", receipts.time_text(datetime.now(UTC)),
                                 arrival.REACHED_EXCHANGE, found["s1"].submission_hash)
    assert arrival.from_exchange(course, inbound, {"s1": confirmed}) == {}

    course, inbound, folder = exchange_and_course(tmp_path / "link")
    target = tmp_path / "link" / "home-notebook.ipynb"
    target.write_text('{"cells": []}')
    (folder / NOTEBOOK).unlink()
    (folder / NOTEBOOK).symlink_to(target)  # content that changes unrecorded
    found = arrival.from_exchange(course, inbound, {})
    assert found["s1"].received_at is None and "symbolic link" in found["s1"].how


def test_students_not_in_the_exchange_get_no_exchange_receipt(tmp_path):
    course, inbound, _ = exchange_and_course(tmp_path)
    other = course.submitted("lms-only")
    other.mkdir(parents=True)
    (other / NOTEBOOK).write_text("{}")
    assert set(arrival.from_exchange(course, inbound, {})) == {"s1"}


# ------------------------------------------------------------------ the command line


def test_received_needs_a_zone_and_a_zip(tmp_path):
    from tests.integrations.cohorts.test_cohort_cli import cohort_cli, fake_release, write_config
    from tests.support.cli import one_line_error

    config = write_config(tmp_path)
    fake_release(config)
    line = one_line_error(cohort_cli(config, "collect", "fall-a", "--received",
                                     "2026-12-14 23:00 UTC"))
    assert "--received is when the LMS received a download" in line and "--zip" in line
    line = one_line_error(cohort_cli(config, "collect", "fall-a", "--zip", "x.zip",
                                     "--received", "2026-12-14 23:00"))
    assert "has no time zone" in line


def test_collect_refuses_a_damaged_receipts_file(tmp_path):
    from tests.integrations.cohorts.test_cohort_cli import cohort_cli, fake_release, write_config
    from tests.support.cli import one_line_error
    from tests.support.h2 import H2  # the cohort configuration those helpers write is H2's

    config = write_config(tmp_path)
    cohort = fake_release(config)
    path = receipts.path_for(cohort.root, H2.name)
    path.parent.mkdir()
    path.write_text('{"format": "something else"}')
    line = one_line_error(cohort_cli(config, "collect", "fall-a"))
    assert f"{path} is not a receipts file" in line and "delete it and collect again" in line


def test_only_accepted_folders_and_never_an_odd_name_give_a_time(tmp_path):
    """Item 12: a folder name with a byte that is not UTF-8 crashed writing receipts; and a
    folder `cohort collect` refused (``inbound.vet``) is never a student's arrival."""
    course, inbound, folder = exchange_and_course(tmp_path)
    odd = os.fsencode(inbound) + f"/s1+{SPEC.name}+{CLAIM}+".encode() + b"\xff"
    shutil.copytree(folder, os.fsdecode(odd))
    found = arrival.from_exchange(course, inbound, {})
    assert found["s1"].detail == f"inbound/{folder.name}"
    arrival.record(course, {}, found)  # writes receipts without UnicodeEncodeError
    assert arrival.from_exchange(course, inbound, {}, accepted=set()) == {}
    assert arrival.from_exchange(course, inbound, {}, accepted={folder.name}) == found
