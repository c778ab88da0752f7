"""`autograde --cluster tcp://...` through the real command line, against a scheduler and
workers this test starts as a TA would (`dask scheduler`, `dask worker`, in another
folder: they see no course root). And fail closed: a worker whose sandbox cannot isolate
makes the batch refuse in one line, unless `--allow-weaker-isolation` is given. The batch
grades the small `vectors` bundle (`--assignments tests/bundles`, which the workers are told
as plain data): what is checked is the cluster's, not an assignment's."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from tests.support.cli import one_line_error
from tests.support.seccomp import NO_NAMESPACES, sandbox_user_cannot_read_python
from tests.support.vectors import BUNDLES, REFERENCE, VECTORS, WRONG_NORMALIZE, submit

pytestmark = pytest.mark.slow
ROSTER = ("a-correct", "b-wrong", "c-broken")


def hand_in(root: Path) -> None:
    """The roster: 10 of 10, 6 of 10 (normalize wrong) and a notebook cut off (ungradable)."""
    submit(root, "a-correct")
    submit(root, "b-wrong", REFERENCE | {"normalize": WRONG_NORMALIZE})
    notebook = submit(root, "c-broken") / VECTORS.notebook
    text = notebook.read_text(encoding="utf-8")
    notebook.write_text(text[: len(text) // 2], encoding="utf-8")


def autograde(root: Path, address: str, *extra: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "autograder", "autograde", VECTORS.name, "--root",
               str(root), "--assignments", str(BUNDLES), "--cluster", address, "--no-progress",
               *extra]
    return subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=300,
                          check=False)


def zygotes(pid: int) -> list[psutil.Process]:
    """Sandbox zygotes under the process ``pid`` (a `dask worker` and its nanny's worker)."""
    return [child for child in psutil.Process(pid).children(recursive=True)
            if "autograder.untrusted.zygote" in " ".join(child.cmdline())]


def rows(root: Path) -> dict[str, dict[str, str]]:
    with (root / "grades.csv").open(newline="") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


def test_grading_on_a_running_scheduler(tmp_path, dask_processes):
    root = tmp_path / "course"
    hand_in(root)
    address = dask_processes.scheduler()
    workers = [dask_processes.worker(), dask_processes.worker()]
    done = autograde(root, address)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 submissions: 2 graded, 1 ungradable, 0 grader errors" in done.stdout, done.stdout
    graded = rows(root)
    assert graded["a-correct"]["total"] == "10" and graded["b-wrong"]["total"] == "6"
    assert {row["isolation"] for row in graded.values()} == {"full", ""}
    assert all((root / "autograded" / s / VECTORS.name / "feedback.html").exists()
               for s in ROSTER)
    assert not list(dask_processes.workdir.rglob("*.ipynb"))  # workers kept no submission
    # The batch closed its grading sessions on the workers, which stay up for the next one.
    assert [zygotes(worker.pid) for worker in workers] == [[], []]

    again = autograde(root, address)  # everything is up to date: nothing is sent
    assert again.returncode == 0 and "0 assessed in this run, 3 unchanged" in again.stdout


def test_a_worker_that_cannot_isolate_refuses_unless_told(tmp_path, dask_processes):
    # vectors preloads NumPy alone: its workers read sysconfig's data themselves, which once
    # killed them unheard ("end of stream") when the sandbox user could not read Python
    root = tmp_path / "course"
    submit(root, "a-correct")
    address = dask_processes.scheduler()
    dask_processes.worker(prefix=("-c", NO_NAMESPACES))  # no namespaces for it or its children
    refused = autograde(root, address)
    line = one_line_error(refused)
    assert "--allow-weaker-isolation" in line and "Dask worker" in line, line
    assert not (root / "autograded").exists() and not (root / "grades.csv").exists()

    allowed = autograde(root, address, "--allow-weaker-isolation")
    if sandbox_user_cannot_read_python():  # tests/sandbox/test_python_readable.py
        assert "cannot read Python's installation" in one_line_error(allowed)
        assert not (root / "grades.csv").exists()
        return
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    row = rows(root)["a-correct"]  # graded, and the row says how
    assert row["status"] == "graded" and row["isolation"].startswith("weaker: no pid-namespace")
