"""The root's journal (issue 51): a change stands whole, or is undone whole, however it ends.

Each test changes a small root the way the grader's writers do (``write_atomically``, a folder
kept before nbgrader writes into it, the gradebook), ends the change one way (commit, an
exception, a process killed part-way), and compares every byte of the root with before."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from autograder.batch.root_lock import LOCK_FILE, hold
from autograder.results import journal
from autograder.results.result import write_atomically


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the root by relative path (the lock file, whose text names its holder,
    left out), and an SQLite database as its rows."""
    found = {}
    for path in sorted(root.rglob("*")):
        name = path.relative_to(root).as_posix()
        if path.is_dir() or name == LOCK_FILE:
            continue
        if path.suffix == ".db":
            with closing(sqlite3.connect(path)) as db:
                found[name] = repr(db.execute("SELECT * FROM t ORDER BY k").fetchall()).encode()
        else:
            found[name] = path.read_bytes()
    return found


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "course"
    (root / "autograded" / "s1").mkdir(parents=True)
    (root / "autograded" / "s1" / "results.json").write_text("old s1\n")
    (root / "grades.csv").write_text("old grades\n")
    (root / "submitted" / "s1").mkdir(parents=True)
    (root / "submitted" / "s1" / "notebook.ipynb").write_text("old notebook\n")
    with closing(sqlite3.connect(root / "gradebook.db")) as db:
        db.execute("CREATE TABLE t (k TEXT PRIMARY KEY, v REAL)")
        db.execute("INSERT INTO t VALUES ('s1', 7)")
        db.commit()
    return root


def change_everything(root: Path) -> None:
    """What a command does to a root: replace files, add a student, write the gradebook,
    replace a submitted folder (as nbgrader's collect does: remove, then copy anew)."""
    write_atomically(root / "autograded" / "s1" / "results.json", "new s1\n")
    write_atomically(root / "autograded" / "s2" / "results.json", "new s2\n")
    write_atomically(root / "grades.csv", "new grades\n")
    journal.before_database(root / "gradebook.db")
    with closing(sqlite3.connect(root / "gradebook.db")) as db:
        db.execute("UPDATE t SET v = 5 WHERE k = 's1'")
        db.execute("INSERT INTO t VALUES ('s2', 9)")
        db.commit()
    journal.before_tree(root / "submitted")
    (root / "submitted" / "s1" / "notebook.ipynb").unlink()
    (root / "submitted" / "s1" / "notebook.ipynb").write_text("resubmitted\n")
    (root / "submitted" / "s2").mkdir()
    (root / "submitted" / "s2" / "notebook.ipynb").write_text("new student\n")


def test_a_change_that_ends_well_stands_whole(root: Path):
    with hold(root):
        change_everything(root)
    after = snapshot(root)
    assert after["autograded/s1/results.json"] == b"new s1\n"
    assert after["autograded/s2/results.json"] == b"new s2\n"
    assert after["gradebook.db"] == repr([("s1", 5.0), ("s2", 9.0)]).encode()
    assert after["submitted/s1/notebook.ipynb"] == b"resubmitted\n"
    assert not (root / journal.JOURNAL).exists()
    assert [p.name for p in root.iterdir() if p.name.startswith(".autograder-journal")] == []


def test_an_exception_part_way_undoes_every_write(root: Path):
    before = snapshot(root)
    with pytest.raises(KeyboardInterrupt), hold(root):
        change_everything(root)
        raise KeyboardInterrupt  # Ctrl-C, after every kind of write
    assert snapshot(root) == before
    assert not (root / "autograded" / "s2").exists()  # a folder it made is gone too
    assert not (root / journal.JOURNAL).exists()


def test_an_abandoned_change_is_undone_though_the_command_returns(root: Path):
    before = snapshot(root)
    with hold(root):
        write_atomically(root / "grades.csv", "half a refusal\n")
        journal.abandon(root)
    assert snapshot(root) == before


KILLED = """
import os, signal, sys
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from autograder.batch.root_lock import hold
from tests.results.test_journal import change_everything
with hold(Path(sys.argv[1])):
    change_everything(Path(sys.argv[1]))
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_killed_change_is_rolled_back_by_the_next_command_which_says_so(root: Path):
    before = snapshot(root)
    repository = Path(__file__).resolve().parents[2]
    killed = subprocess.run([sys.executable, "-c", KILLED, str(root), str(repository)],
                            capture_output=True, text=True, timeout=120)
    assert killed.returncode == -signal.SIGKILL
    assert snapshot(root) != before  # the kill left it between
    left = journal.pending(root)
    assert left is not None and left["pid"] > 0  # what `status` names, without writing
    assert snapshot(root) != before  # reading it changed nothing
    said = journal.recover(root)
    assert said.startswith(f"rolled back an unfinished change of {root}")
    assert f"pid {left['pid']}" in said
    assert snapshot(root) == before
    assert journal.recover(root) == ""  # once


def test_recovery_finishes_a_rollback_that_was_itself_interrupted(root: Path):
    """A rollback stopped part-way (a second kill) is finished by the next one: an entry
    already put back is skipped, the rest is undone."""
    before = snapshot(root)
    change = journal.begin(root, "a test")
    change_everything(root)
    lines = (change.folder / "entries").read_text().splitlines()
    # The last entries undone first, as a rollback does, then "killed": the journal stays.
    journal._changes.pop(change.root, None)
    for line in reversed(lines[-2:]):
        kind, name, kept = json.loads(line)[:3]
        if kind == "tree":
            shutil.rmtree(root / name)
            os.replace(change.folder / "kept" / kept, root / name)
    assert journal.recover(root).startswith("rolled back")
    assert snapshot(root) == before


def test_a_second_write_of_one_file_in_a_forked_process_is_undone_too(root: Path):
    """Grading processes are forked inside the change and write into it: their writes and
    the coordinator's later ones of the same file are all undone, in order."""
    before = snapshot(root)
    with pytest.raises(RuntimeError), hold(root):
        pid = os.fork()
        if pid == 0:  # the grading process
            try:
                write_atomically(root / "autograded" / "s1" / "results.json", "child\n")
                write_atomically(root / "autograded" / "s3" / "results.json", "child s3\n")
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        write_atomically(root / "autograded" / "s1" / "results.json", "coordinator\n")
        assert (root / "autograded" / "s3" / "results.json").read_text() == "child s3\n"
        raise RuntimeError("a later step failed")
    assert snapshot(root) == before


def test_paths_outside_the_root_are_not_journaled(root: Path, tmp_path: Path):
    outside = tmp_path / "elsewhere.txt"
    with pytest.raises(KeyboardInterrupt), hold(root):
        write_atomically(outside, "kept\n")
        raise KeyboardInterrupt
    assert outside.read_text() == "kept\n"


def test_the_fault_hook_kills_right_after_the_chosen_write(root: Path, tmp_path: Path):
    script = tmp_path / "writes.py"
    script.write_text(
        "import sys\nsys.path.insert(0, sys.argv[2])\nfrom pathlib import Path\n"
        "from autograder.batch.root_lock import hold\n"
        "from autograder.results.result import write_atomically\n"
        "root = Path(sys.argv[1])\n"
        "with hold(root):\n"
        "    write_atomically(root / 'a.txt', 'a')\n"
        "    write_atomically(root / 'grades.csv', 'b')\n"
        "    write_atomically(root / 'c.txt', 'c')\n")
    repository = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, str(script), str(root), str(repository)],
                          env={**os.environ, journal.FAULT_ENV: "grades.csv:1"},
                          capture_output=True, timeout=120)
    assert done.returncode == -signal.SIGKILL
    assert (root / "grades.csv").read_text() == "b" and not (root / "c.txt").exists()
    assert journal.recover(root)
    assert (root / "grades.csv").read_text() == "old grades\n"
    assert not (root / "a.txt").exists()


def test_a_gradebook_kept_but_never_written_keeps_its_bytes(root: Path):
    """Rolling back a change that kept the gradebook and never wrote it (a command refused
    before grading) leaves every byte of it: SQLite's backup would rewrite its pages."""
    before = (root / "gradebook.db").read_bytes()
    with pytest.raises(RuntimeError), hold(root):
        journal.before_database(root / "gradebook.db")
        raise RuntimeError("refused before anything was written")
    assert (root / "gradebook.db").read_bytes() == before
