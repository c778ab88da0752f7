"""Running a program a test needs to succeed, with its output in the failure message."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path
from typing import Any


def run_ok(command: list[str], cwd: Path, env: dict[str, str], timeout: float) -> str:
    """``command``'s stdout; a failure shows the command and the end of its output."""
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)
    assert done.returncode == 0, f"{' '.join(map(str, command))} failed:\n{(done.stdout + done.stderr)[-4000:]}"
    return done.stdout


FAST = ["--no-progress", "--jobs", "2", "--cell-timeout", "10", "--call-timeout", "5"]
"""autograde's options for a test's small root: both cores, short limits, no progress bar."""


def nbgrader_ok(cwd: Path, *args: str, timeout: float = 300) -> None:
    """``nbgrader ARGS`` in ``cwd`` as the course's cohort commands run it (their config and
    environment; ``autograder.base.nbgrader_command``), failing the test on a non-zero exit."""
    from autograder.authoring.release import nbgrader_env
    from autograder.base.nbgrader_command import nbgrader_command

    done = subprocess.run(nbgrader_command(*args), cwd=cwd, env=nbgrader_env(),
                          capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, done.stderr[-2000:]


def autograde(root: Path, assignment: str, *args: str,
              timeout: float = 900) -> subprocess.CompletedProcess:
    """``autograde`` of ``root`` (``FAST``, from the repository), as it ended."""
    import sys

    from autograder.spec import REPO

    return subprocess.run([sys.executable, "-m", "autograder", "autograde", assignment,
                           "--root", str(root), *FAST, *args], cwd=REPO, capture_output=True,
                          text=True, timeout=timeout, check=False)


def autograde_ok(root: Path, assignment: str, *args: str, timeout: float = 900) -> str:
    """``autograde`` of ``root`` (``FAST``, from the repository); its stdout, or a failure
    with the end of its stderr."""
    done = autograde(root, assignment, *args, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def grades_rows(path: Path) -> dict[str, dict[str, str]]:
    """grades.csv's rows by student."""
    import csv

    with path.open(encoding="utf-8") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


def interruptible(command: list[str], *, deaf: bool = False, **popen: Any) -> subprocess.Popen:
    """``command`` started as Ctrl-C tests need it: hearing SIGINT, whatever the test runner
    was started with (a runner started in the background of a shell ignores SIGINT, and a
    child inherits that), or ignoring it (``deaf``), as such a background job's would."""
    wanted = signal.SIG_IGN if deaf else signal.SIG_DFL
    return subprocess.Popen(command, preexec_fn=lambda: signal.signal(signal.SIGINT, wanted),
                            **popen)
