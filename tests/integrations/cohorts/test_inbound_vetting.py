"""`cohort collect` trusts nothing a student wrote in the exchange (issue 50, items 3, 8-12).

On a hub every student can create folders in the exchange's ``inbound/`` (0733 + setgid)
and write into any nbgrader-made folder there whose name they know (0777). Each test plants
what the red team planted, next to two honest students' real ``nbgrader submit`` folders
(``ann``, ``bob``), runs the real ``cohort collect`` command line, and checks that the attack
is one line naming its student and why, that nothing of it reaches ``submitted/``, that the
honest students are collected as they submitted (with their arrival receipts), and that
``submitted/`` is closed to other users. Playing "another Unix user" needs no user: as root
a test ``chown``s a folder to a uid nobody has. The assignment is the small ``vectors``
bundle; the real release and submissions are made once, each test works on a copy of that
exchange in a course root of its own (``fake_release``: no nbgrader run but collect's).
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest

from autograder.base.course import TIMESTAMP_TXT
from autograder.batch import receipts
from autograder.integrations.cohorts import workflow
from autograder.integrations.cohorts.config import get_cohort
from autograder.spec import REPO
from tests.support.cohort_config import term_config
from tests.support.commands import nbgrader_ok
from tests.support.vectors import REFERENCE, VECTORS, solved_notebook
from tests.support.vectors_source import bundles_with_source

pytestmark = pytest.mark.slow

ASSIGNMENT = VECTORS.name
NOTEBOOK = VECTORS.notebook
HONEST = ("ann", "bob")
COLLECT_WITHIN = 90  # seconds: a collect that reads /dev/zero or waits on a FIFO never ends
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="chown to another uid needs root")


def write_config(tmp: Path, bundles: Path, unix_users: str = "") -> Path:
    return term_config(tmp, "2030-01-01 00:00:00 UTC", cohort=unix_users, bundles=bundles)


@pytest.fixture(scope="module")
def submitted_exchange(tmp_path_factory) -> SimpleNamespace:
    """A real release of ``vectors`` and ``ann`` and ``bob``'s real ``nbgrader submit``."""
    tmp = tmp_path_factory.mktemp("vetting")
    bundles = bundles_with_source(tmp / "bundles")
    cohort = get_cohort("term", write_config(tmp, bundles))
    workflow.release(cohort)
    fetched = tmp / "fetched"
    fetched.mkdir()
    nbgrader_ok(fetched, "fetch_assignment", ASSIGNMENT, f"--course={cohort.course_id}",
                f"--Exchange.root={cohort.exchange}")
    for student in HONEST:
        home = tmp / "home" / student
        shutil.copytree(fetched, home)
        (home / ASSIGNMENT / NOTEBOOK).write_text(json.dumps(solved_notebook(REFERENCE)))
        nbgrader_ok(home, "submit", ASSIGNMENT, f"--course={cohort.course_id}",
                    f"--Exchange.root={cohort.exchange}", f"--student={student}",
                    f"--Exchange.cache={home / '.cache'}")
    return SimpleNamespace(exchange=cohort.exchange, bundles=bundles,
                           stub=(fetched / ASSIGNMENT / NOTEBOOK).read_bytes())


@pytest.fixture
def course(submitted_exchange, tmp_path) -> SimpleNamespace:
    """A course root of its own (as `cohort release` leaves it) and a copy of the exchange
    holding the honest submissions."""
    config = write_config(tmp_path, submitted_exchange.bundles)
    shutil.copytree(submitted_exchange.exchange, tmp_path / "exchange", symlinks=True)
    cohort = get_cohort("term", config)
    workflow.prepare_root(cohort)
    (cohort.root / "release" / ASSIGNMENT).mkdir(parents=True)
    inbound = cohort.exchange / cohort.course_id / "inbound"
    honest = {}
    for student in HONEST:
        (folder,) = inbound.glob(f"{student}+{ASSIGNMENT}+*")
        honest[student] = folder
    return SimpleNamespace(config=config, cohort=cohort, inbound=inbound, honest=honest,
                           stub=submitted_exchange.stub, tmp=tmp_path)


def now_stamp() -> str:
    return f"{datetime.now(UTC):%Y-%m-%d %H:%M:%S.%f} UTC"


def plant(course: SimpleNamespace, student: str, stamp: str | None = None,
          suffix: str = "planted") -> Path:
    """A folder for ``student`` as nbgrader submit makes one (0777), holding the release's
    stubs: what a classmate can create in inbound/."""
    stamp = stamp or now_stamp()
    folder = course.inbound / f"{student}+{ASSIGNMENT}+{stamp}+{suffix}"
    folder.mkdir()
    (folder / NOTEBOOK).write_bytes(course.stub)
    (folder / TIMESTAMP_TXT).write_text(stamp)
    os.chmod(folder, 0o777)
    return folder


def unused_uid() -> int:
    uid = 54321
    while True:
        try:
            pwd.getpwuid(uid)
        except KeyError:
            return uid
        uid += 1


def collect(course: SimpleNamespace) -> subprocess.CompletedProcess:
    """The real `cohort collect term`; a run that outlives ``COLLECT_WITHIN`` is killed with
    its process group (nbgrader included) and fails the test."""
    process = subprocess.Popen(
        [sys.executable, "-m", "autograder", "cohort", "--config", str(course.config),
         "collect", "term"], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True)
    start = time.monotonic()
    try:
        out, err = process.communicate(timeout=COLLECT_WITHIN)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail(f"cohort collect still running after {COLLECT_WITHIN} s (killed)")
    done = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    done.seconds = time.monotonic() - start
    return done


def refused(done: subprocess.CompletedProcess) -> list[str]:
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    return [line for line in done.stdout.splitlines() if line.startswith("refused inbound")]


def check_honest_and_closed(course: SimpleNamespace, *absent: str) -> None:
    """The honest students are collected as they submitted, with their arrival receipts from
    their own folders; nothing of ``absent`` is collected; submitted/ is closed."""
    submitted = course.cohort.root / "submitted"
    assert sorted(p.name for p in submitted.iterdir()) == sorted(HONEST)
    assert not set(absent) & {p.name for p in submitted.iterdir()}
    found = receipts.load(course.cohort.root, ASSIGNMENT)
    for student, folder in course.honest.items():
        collected = submitted / student / ASSIGNMENT
        assert (collected / NOTEBOOK).read_bytes() == (folder / NOTEBOOK).read_bytes()
        assert found[student].received_at and found[student].detail == f"inbound/{folder.name}"
    for path in [submitted, *submitted.rglob("*")]:
        assert os.lstat(path).st_mode & 0o077 == 0, (path, oct(os.lstat(path).st_mode))


@as_root
def test_a_folder_planted_for_another_student_is_refused(course):
    """Item 8: Alice makes ``bob+...`` (newer than Bob's own): nbgrader would collect it."""
    folder = plant(course, "bob")
    uid = unused_uid()
    for path in [folder, *folder.iterdir()]:
        os.chown(path, uid, uid)
    (line,) = refused(collect(course))
    assert line.startswith(f"refused inbound folder {folder.name} of student bob: ")
    assert f"it was made by Unix user uid {uid}, not bob" in line
    check_honest_and_closed(course)


@as_root
def test_a_file_written_into_a_classmates_folder_is_refused(course):
    """A file another user put into a (0777) folder makes it not the student's alone."""
    folder = plant(course, "bob", suffix="own")
    extra = folder / "extra.py"
    extra.write_text("print('not bob')\n")
    os.chown(extra, unused_uid(), -1)
    (line,) = refused(collect(course))
    assert "of student bob" in line and "extra.py was made by Unix user uid" in line
    check_honest_and_closed(course)


def test_a_folder_dated_in_the_future_is_refused(course):
    """Item 8: a name dated 2099 is the one nbgrader collects, and every later one never."""
    folder = plant(course, "bob", "2099-01-01 00:00:00.000000 UTC")
    (line,) = refused(collect(course))
    assert f"{folder.name} of student bob" in line and "in the future" in line
    check_honest_and_closed(course)


def test_a_future_timestamp_txt_is_refused(course):
    folder = plant(course, "carol")
    (folder / TIMESTAMP_TXT).write_text("2099-01-01 00:00:00.000000 UTC")
    (line,) = refused(collect(course))
    assert "of student carol" in line and "timestamp.txt says 2099-01-01" in line
    check_honest_and_closed(course, "carol")


def test_a_notebook_that_is_a_symbolic_link_is_refused(course):
    """Item 9: a link to the course root's source notebook (the reference) is never read."""
    folder = plant(course, "carol")
    (folder / NOTEBOOK).unlink()
    source = course.cohort.root / "source" / ASSIGNMENT / NOTEBOOK
    assert source.is_file()
    (folder / NOTEBOOK).symlink_to(source)
    (line,) = refused(collect(course))
    assert "of student carol" in line and f"{NOTEBOOK} is a symbolic link" in line
    check_honest_and_closed(course, "carol")


def test_a_link_to_dev_zero_is_refused_fast(course):
    """Item 10: nbgrader would copy /dev/zero until the disk is full."""
    folder = plant(course, "dave")
    (folder / "data.bin").symlink_to("/dev/zero")
    done = collect(course)
    (line,) = refused(done)
    assert "of student dave" in line and "data.bin is a symbolic link (to /dev/zero)" in line
    assert done.seconds < 60
    check_honest_and_closed(course, "dave")


def test_a_fifo_is_refused(course):
    folder = plant(course, "gina")
    os.mkfifo(folder / "pipe")
    (line,) = refused(collect(course))
    assert "of student gina" in line and "pipe is a FIFO" in line
    check_honest_and_closed(course, "gina")


def test_hard_links_are_refused(course):
    """Item 11: hard-linked copies of one big file cost every collect its full size each
    time; a file with several links is refused (nbgrader submit never links)."""
    folder = plant(course, "erin")
    (folder / "big.bin").write_bytes(b"x" * 100_000)
    for copy in range(20):
        os.link(folder / "big.bin", folder / f"copy{copy}.bin")
    (line,) = refused(collect(course))
    assert "of student erin" in line and "is a hard link (21 names for one file" in line
    check_honest_and_closed(course, "erin")


def test_a_file_over_nbgraders_bound_is_refused_before_it_is_read(course):
    """Item 8: a 101 MB (sparse) file in a newer folder of Bob's made every collect exit 2,
    and nbgrader deleted Bob's submitted/ folder; now it is refused and Bob's own is taken."""
    folder = plant(course, "bob", suffix="big")
    with open(folder / "big.bin", "wb") as handle:
        handle.truncate(101_000_000)
    (line,) = refused(collect(course))
    assert f"{folder.name} of student bob" in line
    assert "big.bin has 101000000 bytes, over nbgrader's bound of 100000000" in line
    check_honest_and_closed(course)


def test_a_name_that_is_not_utf8_is_refused_alone(course):
    """Item 12: one 0xff byte in a folder name crashed every collect."""
    stamp = now_stamp()
    name = os.fsencode(course.inbound) + f"/frank+{ASSIGNMENT}+{stamp}+".encode() + b"\xff"
    os.mkdir(name, 0o777)
    with open(name + b"/" + NOTEBOOK.encode(), "wb") as handle:
        handle.write(course.stub)
    (line,) = refused(collect(course))
    assert "of student frank" in line and "its name is not UTF-8" in line
    assert "\ufffd" in line  # the byte shown as a replacement character, never raw
    check_honest_and_closed(course, "frank")


def test_the_unix_user_of_a_student_is_the_course_mapping(course):
    """A folder owned by the student's own Unix user (cohorts.toml's unix_users, else the
    id) is accepted; owned by anyone else it is refused, naming that user."""
    from autograder.integrations.cohorts import inbound

    nobody = pwd.getpwnam("nobody").pw_uid
    if os.geteuid() != 0:
        pytest.skip("chown to another uid needs root")
    folder = plant(course, "zed")
    for path in [folder, *folder.iterdir()]:
        os.chown(path, nobody, -1)
    vetted = inbound.vet(course.inbound, ASSIGNMENT, None)
    assert sorted(vetted.accepted) == sorted(f.name for f in course.honest.values())
    (line,) = vetted.refused
    assert "of student zed: it was made by Unix user nobody, not zed" in line
    config = write_config(course.tmp, course.cohort.assignment_folders[0],
                          '[cohorts.term.unix_users]\nzed = "nobody"\n')
    mapped = get_cohort("term", config).unix_users
    assert mapped == {"zed": "nobody"}
    vetted = inbound.vet(course.inbound, ASSIGNMENT, None, mapped)
    assert folder.name in vetted.accepted and not vetted.refused
