"""SIGTERM (a scheduler, systemd) and SIGHUP (a closed ssh session) stop `autograde` as Ctrl-C
does, and a SIGKILL leaves nothing behind (issue 51, item 10). The signal goes to the
coordinator's pid alone, not to its process group: one line on stderr and exit 128 + the
signal (none for SIGKILL, which nothing hears), every process of the run (grading processes,
the sandbox's zygote, its workers) gone within a bounded wait, and the next `autograde` on
the root grades (the lock is free). Real processes, on the small `vectors` bundle."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

import pytest

from autograder.base.course import RESULTS_JSON
from autograder.batch.root_lock import LOCK_FILE
from autograder.integrations.cohorts import workflow
from autograder.integrations.cohorts.config import get_cohort
from tests.support.cohort_config import term_config
from tests.support.vectors import BUNDLES, REFERENCE, VECTORS, submit
from tests.support.vectors_source import bundles_with_source

pytestmark = pytest.mark.slow
STUDENTS = 6
# Each submission takes a second to run its notebook: grading is still under way when the
# first results.json appears, with the rest in flight or queued.
SLOW = {**REFERENCE, VECTORS.function_parts[0]:
        REFERENCE[VECTORS.function_parts[0]] + "\nimport time\ntime.sleep(1)\n"}


def _command(root: Path) -> list[str]:
    return [sys.executable, "-m", "autograder", "autograde", VECTORS.name, "--root", str(root),
            "--assignments", str(BUNDLES), "--no-progress", "--jobs", "2"]


def _descendants(pid: int) -> set[int]:
    """Every process below ``pid``, from /proc (each thread's children)."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        for task in Path(f"/proc/{todo.pop()}/task").glob("*"):
            try:
                children = {int(child) for child in (task / "children").read_text().split()}
            except OSError:
                continue
            todo += children - found
            found |= children
    return found


def _alive(pid: int) -> bool:
    """The process exists and is not a zombie (an adopted one nobody reaped yet)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _command_line(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _of_this_run(pid: int, coordinator: bytes) -> bool:
    """Still a process of this run (a grading process has the coordinator's command line,
    the zygote its own module's), not another that took a freed pid."""
    command = _command_line(pid)
    return command == coordinator or b"autograder.untrusted.zygote" in command


def _open_files(pid: int) -> set[str]:
    opened = set()
    for entry in Path(f"/proc/{pid}/fd").glob("*"):
        try:
            opened.add(os.readlink(entry))
        except OSError:
            continue
    return opened


def _graded(root: Path) -> int:
    return sum(1 for _ in root.glob(f"autograded/*/{VECTORS.name}/{RESULTS_JSON}"))


class AfterTheSignal(NamedTuple):
    """What a run stopped by a signal left: its exit code and stderr, the processes of the run
    still alive after a bounded wait, and those that had the root's lock file open."""

    code: int
    said: str
    left: list[int]
    holding_the_lock: list[int]


def stop_midway(command: list[str], root: Path, signum: int, folder: Path) -> AfterTheSignal:
    """Start ``command`` grading ``root``, send ``signum`` to its pid alone once the first
    submission is graded (the rest in flight or queued), and see what is left."""
    stderr = folder / "stderr"
    # Files, not pipes: a process left behind would hold a pipe open and hang the test.
    with stderr.open("w") as err:
        run = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err)
    of_the_run: set[int] = set()
    coordinator = b""
    try:
        deadline = time.monotonic() + 180
        while not _graded(root) and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert run.poll() is None and 0 < _graded(root) < STUDENTS, stderr.read_text()
        of_the_run = _descendants(run.pid)
        coordinator = _command_line(run.pid)
        assert len(of_the_run) >= 3, of_the_run  # the zygote, two grading processes
        lock = str((root / LOCK_FILE).resolve())
        holding_the_lock = [pid for pid in of_the_run if lock in _open_files(pid)]
        os.kill(run.pid, signum)
        code = run.wait(timeout=120)
        deadline = time.monotonic() + 30
        while any(_alive(pid) for pid in of_the_run) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = [pid for pid in of_the_run if _alive(pid)]
    finally:  # nothing left to the next test, whatever failed
        for pid in of_the_run:
            if _alive(pid) and _of_this_run(pid, coordinator):
                os.kill(pid, signal.SIGKILL)
        if run.poll() is None:
            run.kill()
        run.wait()
    return AfterTheSignal(code, stderr.read_text(), left, holding_the_lock)


def assert_stopped_as_ctrl_c(stopped: AfterTheSignal, signum: int) -> None:
    assert not stopped.left, f"processes of the run still alive 30 s after it stopped: " \
        f"{stopped.left}"
    assert not stopped.holding_the_lock, "a grading process kept the root's lock file open"
    if signum == signal.SIGKILL:
        assert stopped.code == -signal.SIGKILL
        return
    assert stopped.code == 128 + signum, stopped.said
    assert stopped.said.count("\n") == 1, stopped.said
    name = signal.Signals(signum).name
    assert stopped.said.startswith(f"stopped by {name}: "), stopped.said
    assert "run the same command again" in stopped.said


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL],
                         ids=lambda signum: signal.Signals(signum).name)
def test_a_signal_to_the_coordinator_alone_stops_the_whole_run(tmp_path: Path,
                                                              signum: int) -> None:
    root = tmp_path / "course"
    for n in range(STUDENTS):
        submit(root, f"s{n}", SLOW)
    assert_stopped_as_ctrl_c(stop_midway(_command(root), root, signum, tmp_path), signum)
    again = subprocess.run(_command(root), capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert _graded(root) == STUDENTS


def test_cohort_grade_stops_on_sigterm_as_autograde_does(tmp_path: Path) -> None:
    """The cohort's long command: the same line, nothing left, and it resumes."""
    bundles_with_source(tmp_path / "bundles")
    config = term_config(tmp_path, "2030-01-01 00:00:00 UTC")
    cohort = get_cohort("term", config)
    workflow.release(cohort)
    for n in range(STUDENTS):  # collected by hand into the cohort's root
        submit(cohort.root, f"s{n}", SLOW)
    command = [sys.executable, "-m", "autograder", "cohort", "grade", "term", "--config",
               str(config), "--no-progress", "--jobs", "2"]
    stopped = stop_midway(command, cohort.root, signal.SIGTERM, tmp_path)
    assert_stopped_as_ctrl_c(stopped, signal.SIGTERM)
    again = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert _graded(cohort.root) == STUDENTS


def test_a_run_started_under_nohup_goes_on_after_a_sighup(tmp_path: Path) -> None:
    """SIGHUP ignored from the start (``nohup``) stays ignored: the run grades to the end."""
    root = tmp_path / "course"
    for n in range(2):
        submit(root, f"s{n}")
    run = subprocess.Popen(["nohup", *_command(root)], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 180
    while not _descendants(run.pid) and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(run.pid, signal.SIGHUP)
    _, said = run.communicate(timeout=300)
    assert run.returncode == 0, said
    assert _graded(root) == 2
