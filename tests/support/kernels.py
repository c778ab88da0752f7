"""Notebooks run in real Jupyter kernels, each run under a hard wall-clock limit.

A notebook executed without a front end (nbclient, ``jupyter nbconvert --execute``,
nbgrader) can stall: the kernel idle, the client waiting for a reply that never comes, and
nbclient's own per-cell timeout not ending it (issue 36; ../shared/NOTES-kernel.md). In CI a
stall is worse than a failure: the run waits until CI's limit and nothing lands. So every
test that starts a kernel does it through this module, in a child process that is killed,
kernel and all, at ``WALL_SECONDS``: a stall fails its test with one line naming the
notebook and the limit.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import nbformat

# A Run All of the assignment takes about 5 s on 2 cores (the student's fresh venv about
# 20 s). Four minutes is a stall, not a slow machine.
WALL_SECONDS = 240
RUNNER = Path(__file__).with_name("run_notebook.py")


class KernelStalled(AssertionError):
    """A notebook run did not end within its wall-clock limit."""


@dataclass(frozen=True)
class RunAll:
    """An executed notebook, and what the client sent the kernel besides the cells."""

    notebook: nbformat.NotebookNode
    # shell message types sent besides the cells' execute_request and the opening kernel_info
    other_requests: list[str]


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _wait(process: subprocess.Popen, wall: float, what: str, kernel_pgid: Path | None) -> None:
    """Wait for ``process``; at ``wall`` seconds kill it, its group and the kernel's group."""
    try:
        process.wait(timeout=wall)
    except subprocess.TimeoutExpired:
        _kill_group(process.pid)  # started in a session of its own: pid == pgid
        if kernel_pgid is not None and kernel_pgid.exists():
            _kill_group(int(kernel_pgid.read_text()))
        process.wait()
        raise KernelStalled(f"{what} stalled: no end within {wall:.0f} s (a kernel "
                            "waiting forever; see issue 36)") from None


def run_all(notebook: nbformat.NotebookNode, workdir: Path, *, allow_errors: bool = True,
            cell_timeout: int = 120, wall: float = WALL_SECONDS,
            python: str = sys.executable) -> RunAll:
    """Run every cell of ``notebook`` top to bottom in a fresh kernel (nbclient, as
    ``nbconvert --execute`` does), in ``workdir``; raise ``KernelStalled`` past ``wall``."""
    with tempfile.TemporaryDirectory(prefix="run-all-") as scratch:
        scratch_dir = Path(scratch)
        source, executed = scratch_dir / "in.ipynb", scratch_dir / "out.ipynb"
        requests, pgid = scratch_dir / "requests.json", scratch_dir / "kernel.pgid"
        nbformat.write(notebook, source)
        with open(scratch_dir / "log.txt", "w+b") as log:
            process = subprocess.Popen(
                [python, str(RUNNER), str(source), str(executed), str(workdir),
                 str(cell_timeout), "1" if allow_errors else "0", str(requests), str(pgid)],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            _wait(process, wall, f"Run All of {workdir}", pgid)
            log.seek(0)
            output = log.read().decode(errors="replace")
        if process.returncode != 0:
            raise AssertionError(f"Run All of {workdir} failed:\n{output[-3000:]}")
        return RunAll(nbformat.read(executed, as_version=4), json.loads(requests.read_text()))


def nbconvert_execute(folder: Path, notebook: str, *, jupyter: str | None = None,
                      env: dict[str, str] | None = None, cell_timeout: int = 120,
                      wall: float = WALL_SECONDS) -> subprocess.CompletedProcess:
    """``jupyter nbconvert --to notebook --execute`` (as a student or TA types it) in
    ``folder``, writing ``executed.ipynb``; raise ``KernelStalled`` past ``wall``."""
    jupyter = jupyter or str(Path(sys.executable).parent / "jupyter")
    command = [jupyter, "nbconvert", "--to", "notebook", "--execute",
               f"--ExecutePreprocessor.timeout={cell_timeout}", "--output", "executed.ipynb",
               notebook]
    with tempfile.TemporaryFile("w+b") as out, tempfile.TemporaryFile("w+b") as err:
        process = subprocess.Popen(command, cwd=folder, env=env, stdout=out, stderr=err,
                                   start_new_session=True)
        _wait(process, wall, f"jupyter nbconvert --execute {folder / notebook}", None)
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(command, process.returncode,
                                           out.read().decode(errors="replace"),
                                           err.read().decode(errors="replace"))
