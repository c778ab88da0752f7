"""A grading run killed right after any kind of write leaves nothing half-done (issue 51,
item 9).

Before: a kill right after chosen writes of `autograde` lost a newly graded student's
feedback.html for good (the next run found results.json current and skipped it), and left
the report's CSVs stale while `status` said current. Now the run is one change of the root
(autograder.results.journal): the next run rolls the killed one back, resumes what it had
graded (autograder.batch.resume), and every output equals an uninterrupted run's."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.base.course import Course
from autograder.results import journal
from autograder.spec import REPO
from tests.support.cohort_outputs import without
from tests.support.commands import FAST
from tests.support.vectors import BUNDLES, REFERENCE, VECTORS, WRONG_NORMALIZE, submit

pytestmark = pytest.mark.slow

BUGGY = REFERENCE | {"normalize": WRONG_NORMALIZE}
NOT_THE_GRADE = ("seconds", "graded_on", "grading_key")
# The report's page names its root's path and when it was written (its CSVs, compared, hold
# its figures; `status` says whether the page is current), and its inputs digest the path.
PLACE_AND_TIME = ("report/report.html", "report/.inputs")


def _command(root: Path, *args: str) -> list[str]:
    named = [VECTORS.name] if args[0] in ("autograde", "report") else ["--assignment", VECTORS.name]
    return [sys.executable, "-m", "autograder", *args, *named, "--root", str(root),
            "--assignments", str(BUNDLES)]


def _run(root: Path, *args: str, env: dict[str, str] | None = None
         ) -> subprocess.CompletedProcess:
    extra = [*FAST] if args[0] == "autograde" else []
    return subprocess.run(_command(root, *args) + extra, cwd=REPO, capture_output=True,
                          text=True, timeout=600, env={**os.environ, **(env or {})},
                          check=False)


def outputs(root: Path) -> dict[str, str]:
    """Every grade file of the root, as digests (results.json without what is not the grade;
    the feedback page without its grading day)."""
    found = {}
    for path in sorted(root.rglob("*")):
        name = path.relative_to(root).as_posix()
        if not path.is_file() or name.startswith((".autograder", "submitted/", "versions/")) \
                or name.endswith((".db", ".lock")) or name in PLACE_AND_TIME:
            continue
        data = path.read_bytes()
        if path.name == "results.json":
            data = json.dumps(without(json.loads(data), NOT_THE_GRADE), sort_keys=True).encode()
        if path.name == "feedback.html":
            day = json.loads(path.with_name("results.json").read_text())["extra_data"]["graded_on"]
            data = data.replace(day.encode(), b"<day>")
        found[name] = hashlib.sha256(data).hexdigest()
    return found


@pytest.fixture(scope="module")
def changed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A root graded once (with its report), then resubmitted and joined by a new student;
    and what an uninterrupted regrade makes of it."""
    root = tmp_path_factory.mktemp("graded") / "course"
    submit(root, "s1")
    submit(root, "s2", BUGGY)
    assert _run(root, "autograde").returncode == 0
    assert _run(root, "report").returncode == 0
    shutil.rmtree(Course(root, VECTORS.name).submitted("s2"))
    submit(root, "s2")  # fixed
    submit(root, "s3", BUGGY)  # new
    clean = root.parent / "clean"
    shutil.copytree(root, clean, symlinks=True)
    done = _run(clean, "autograde")
    assert done.returncode == 0, done.stderr[-2000:]
    return root, outputs(clean)


@pytest.mark.parametrize("after", ["*/results.json:1", "*/feedback.html:1",
                                   "*/feedback.html:2", "grades.csv:1", "report/*:1"])
def test_a_run_killed_after_any_write_is_rolled_back_and_the_next_completes_it(
        changed, tmp_path, after):
    graded, expected = changed
    root = tmp_path / "course"
    shutil.copytree(graded, root, symlinks=True)
    killed = _run(root, "autograde", env={journal.FAULT_ENV: after})
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    status = _run(root, "status")
    assert "UNFINISHED: python -m autograder autograde" in status.stdout, status.stdout
    again = _run(root, "autograde")
    assert again.returncode == 0, again.stderr[-2000:]
    assert "rolled back an unfinished change" in again.stderr
    assert outputs(root) == expected
    status = _run(root, "status")
    assert "STALE" not in status.stdout and "UNFINISHED" not in status.stdout, status.stdout


def test_a_run_refused_part_way_keeps_nothing_of_it(changed, tmp_path):
    """A gradebook nbgrader cannot open (here: not a database) stops the run after the
    grading processes wrote their students' files: they are rolled back with the rest."""
    graded, _ = changed
    root = tmp_path / "course"
    shutil.copytree(graded, root, symlinks=True)
    (root / "gradebook.db").write_bytes(b"not a database")
    before = outputs(root)
    refused = _run(root, "autograde")
    assert refused.returncode == 2, refused.stderr[-2000:]
    errors = [line for line in refused.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in refused.stderr, refused.stderr
    assert outputs(root) == before
    assert journal.pending(root) is None
