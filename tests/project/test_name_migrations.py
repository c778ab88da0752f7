"""What the engine's old operational names left on disk still works (issue 39).

The engine's files, folders and variables were named after its first assignment; they are
neutral now (``autograder``, ``AUTOGRADER_``), and ``autograder/legacy_names.py`` keeps the
old names for these migrations: a course root's old lock file is still held, so an older
grader running there and this one exclude each other; the old uid lease directory is leased
from too, so an older grader on the machine never shares a sandbox uid with this one; a
receipts file saved under the old format name loads (and is saved under the new one); the
old debugging variable is honoured with a notice. (The formgrader block's old markers:
tests/views/test_formgrader.py; a Dask worker's old scratch folders:
tests/batch/cluster/test_submission_transfer.py.)
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from autograder import legacy_names
from autograder.batch import receipts
from autograder.batch.root_lock import LOCK_FILE, RootBusy, hold
from autograder.sandbox import uids
from autograder.sandbox import zygote as zygote_module
from autograder.sandbox.zygote import Zygote, ZygoteError, zygote_environment
from autograder.spec import REPO
from autograder.untrusted.isolation import WORKER_STDERR_ENV
from tests.support.skips import AS_ROOT, needs

OLD_LOCK = legacy_names.ROOT_LOCK_FILE

# An older grader's hold on a file, as its root_lock and uid lease took it: flock(LOCK_EX |
# LOCK_NB) on the file (created), its holder's line written in, held until stdin closes.
OLD_HOLDER = textwrap.dedent("""
    import fcntl, os, sys
    handle = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print("busy", flush=True)
        sys.exit(0)
    os.ftruncate(handle, 0)
    os.pwrite(handle, f"pid {os.getpid()}, since today: an older grader\\n".encode(), 0)
    print("held", flush=True)
    sys.stdin.read()
""")


def old_grader(path: Path) -> subprocess.Popen:
    """A process that tries to take ``path`` as an older grader would (``.answer``: held or
    busy); it keeps what it took until ``release``."""
    process = subprocess.Popen([sys.executable, "-c", OLD_HOLDER, str(path)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    process.answer = process.stdout.readline().strip()
    return process


def release(process: subprocess.Popen) -> None:
    process.stdin.close()
    process.wait(timeout=30)


# ------------------------------------------------------------ the course root's lock


def test_a_root_an_older_grader_holds_is_refused_naming_it(tmp_path):
    (tmp_path / OLD_LOCK).touch()  # graded before the rename
    older = old_grader(tmp_path / OLD_LOCK)
    try:
        assert older.answer == "held"
        with pytest.raises(RootBusy, match=rf"\(pid {older.pid} of user \S+, since today: an older grader\)"):
            with hold(tmp_path):
                pass
    finally:
        release(older)
    with hold(tmp_path):  # free once it is gone; the new lock is held beside the old one
        assert (tmp_path / LOCK_FILE).is_file()
    assert (tmp_path / OLD_LOCK).is_file(), "the old file is kept: an older grader may open it"


def test_an_older_grader_started_on_a_held_root_is_kept_out(tmp_path):
    (tmp_path / OLD_LOCK).touch()
    with hold(tmp_path):
        older = old_grader(tmp_path / OLD_LOCK)
        release(older)
        assert older.answer == "busy"
        holder = (tmp_path / OLD_LOCK).read_text()
        assert holder.startswith(f"pid {os.getpid()}, ") and holder == (
            tmp_path / LOCK_FILE).read_text()  # an older grader's refusal names this run
    older = old_grader(tmp_path / OLD_LOCK)  # and takes the root once this run is done
    release(older)
    assert older.answer == "held"


def test_a_root_never_graded_before_the_rename_gets_no_old_lock_file(tmp_path):
    with hold(tmp_path):
        pass
    assert (tmp_path / LOCK_FILE).is_file() and not (tmp_path / OLD_LOCK).exists()


# ------------------------------------------------------------ the uid lease directory


def test_the_old_lease_directory_is_found_only_where_it_exists_and_is_private(tmp_path):
    assert uids.legacy_lock_dir(tmp_path) is None  # never created
    old = tmp_path / f"{legacy_names.UID_LOCK_DIR_PREFIX}{os.geteuid()}"
    old.mkdir(mode=0o700)
    assert uids.legacy_lock_dir(tmp_path) == old
    assert uids.lock_dir(tmp_path) != old and uids.lock_dir(tmp_path).name.startswith(
        uids.LOCK_DIR_PREFIX)
    old.chmod(0o777)  # anyone could plant locks in it: not trusted, not used
    assert uids.legacy_lock_dir(tmp_path) is None


def test_a_uid_an_older_grader_holds_is_not_leased_and_a_leased_one_keeps_it_out(tmp_path):
    new, old = uids.lock_dir(tmp_path), tmp_path / "old"
    old.mkdir(mode=0o700)
    older = old_grader(old / "61000.lock")
    try:
        assert older.answer == "held"
        assert uids.lock_uid([new, old], 61000) is None
        # Nothing was kept of the refused attempt: the new directory's lock is free.
        probe = old_grader(new / "61000.lock")
        release(probe)
        assert probe.answer == "held"
    finally:
        release(older)
    handles = uids.lock_uid([new, old], 61001)
    assert handles is not None and len(handles) == 2
    try:
        for directory in (old, new):  # an older grader, or another new one, is kept out
            probe = old_grader(directory / "61001.lock")
            release(probe)
            assert probe.answer == "busy"
    finally:
        for handle in handles:
            os.close(handle)


@pytest.mark.skipif(os.geteuid() != 0, reason=needs("without root nothing is leased", AS_ROOT))
def test_a_lease_holds_its_uid_in_the_old_directory_too_where_there_is_one():
    lease = uids.UidLease.acquire()
    try:
        where = [uids.lock_dir()] + ([uids.legacy_lock_dir()] if uids.legacy_lock_dir() else [])
        for directory in where:
            handle = os.open(directory / f"{lease.uid}.lock", os.O_RDWR)
            try:
                with pytest.raises(BlockingIOError):
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            finally:
                os.close(handle)
    finally:
        lease.release()


# ------------------------------------------------------------ receipts


def test_a_receipts_file_of_the_old_format_loads_and_is_saved_in_the_new(tmp_path):
    path = receipts.path_for(tmp_path, "hw1")
    path.parent.mkdir()
    path.write_text(json.dumps({
        "format": legacy_names.RECEIPTS_FORMAT, "version": 1, "assignment": "hw1",
        "submissions": {"s1": {"source": "exchange", "received_at": "2026-12-14 22:10:00.5 UTC",
                               "how": "its files reached the exchange",
                               "submission_hash": "a" * 64}}}))
    loaded = receipts.load(tmp_path, "hw1")
    assert loaded["s1"].received_at == "2026-12-14 22:10:00.5 UTC"
    receipts.save(tmp_path, "hw1", loaded)
    saved = json.loads(path.read_text())
    assert saved["format"] == receipts.FORMAT != legacy_names.RECEIPTS_FORMAT
    assert receipts.load(tmp_path, "hw1") == loaded
    path.write_text(path.read_text().replace(receipts.FORMAT, "someone-elses-receipts"))
    with pytest.raises(receipts.ReceiptsError, match="not a receipts file"):
        receipts.load(tmp_path, "hw1")


# ------------------------------------------------------------ the debugging variable


def test_the_old_debugging_variable_is_honoured_once_told(monkeypatch, capsys, tmp_path):
    log = tmp_path / "worker.log"
    monkeypatch.delenv(WORKER_STDERR_ENV, raising=False)
    monkeypatch.setenv(legacy_names.WORKER_STDERR_ENV, str(log))
    monkeypatch.setattr(zygote_module, "_told_renamed", False)
    env = zygote_environment()
    zygote_environment()
    assert env[WORKER_STDERR_ENV] == str(log) and legacy_names.WORKER_STDERR_ENV not in env
    told = capsys.readouterr().err.splitlines()
    assert told == [f"note: {legacy_names.WORKER_STDERR_ENV} is now called {WORKER_STDERR_ENV}; "
                    "honoured this time, set the new name instead"]
    # It still does its job: a zygote that cannot start says why in that file.
    (broken,) = Zygote.launch(preload=["no_module_of_this_name"])
    with pytest.raises(ZygoteError, match=WORKER_STDERR_ENV):
        broken.wait_ready(timeout=60)
    broken.close()
    assert "no_module_of_this_name" in log.read_text()
    # The new name wins, without a word.
    monkeypatch.setenv(WORKER_STDERR_ENV, str(tmp_path / "new.log"))
    assert zygote_environment()[WORKER_STDERR_ENV] == str(tmp_path / "new.log")
    assert capsys.readouterr().err == ""


def test_the_docs_name_the_new_variable():
    text = (REPO / "docs" / "development.md").read_text(encoding="utf-8")
    assert f"{WORKER_STDERR_ENV}=/tmp/worker.log" in text
