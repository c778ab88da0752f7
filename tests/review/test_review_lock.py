"""`review` holds the course root as a grading run does (issue 37): a decision made while
`autograde` runs there was lost when the batch saved its own copy of decisions.json, and
attributed to formgrader. Now `set` and `clear` refuse in one line naming the run, and
record nothing; `list` and `history` still show what is saved. The lock is the engine's,
whatever the assignment: the root is named for the small `vectors` bundle."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from autograder.results.decisions import DECISIONS_JSON
from tests.support.vectors import BUNDLES, VECTORS

HOLDER = """
import sys, time
from pathlib import Path
from autograder.batch.root_lock import hold
with hold(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.read()  # until the test closes it
"""


def _review(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", "review", *args, "--root",
                           str(root), "--assignment", VECTORS.name,
                           "--assignments", str(BUNDLES)],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def busy_root(tmp_path: Path):
    """A course root that another process (standing in for `autograde`) holds."""
    root = tmp_path / "course"
    (root / "autograded").mkdir(parents=True)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(root)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        yield root
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)


def test_a_decision_while_another_run_holds_the_root_is_refused_and_nothing_recorded(busy_root):
    for args in (("set", "s016", "normalize", "3", "--note", "sound"),
                 ("clear", "s016", "normalize")):
        refused = _review(busy_root, *args)
        assert refused.returncode == 2, refused
        assert refused.stderr.count("\n") == 1, refused.stderr
        assert "another command is changing" in refused.stderr and "pid " in refused.stderr
        assert "Traceback" not in refused.stderr
    assert not (busy_root / DECISIONS_JSON).exists()


def test_list_and_history_read_what_is_saved_while_the_root_is_held(busy_root):
    listed = _review(busy_root, "list")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.strip().startswith("0 to review")
    assert listed.stderr == ""  # it only reads: it neither waits for the holder nor writes
    history = _review(busy_root, "history", "s016")
    assert history.returncode == 2 and "no graded result for s016" in history.stderr
