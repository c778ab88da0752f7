"""For the cluster tests: real Dask processes started as the `dask` command line starts
them (``dask scheduler``, ``dask worker``) on 127.0.0.1 and a free port, sample course
roots, and a saved result read back for comparison."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from autograder.base.course import FEEDBACK_HTML, RESULTS_JSON
from tests.support.courses import FAST_LIMITS, make_course
from tests.support.h2 import SPEC

__all__ = ["FAST_LIMITS", "make_course"]  # the cluster tests' names for them
WORKER_ENV = {"DASK_DISTRIBUTED__WORKER__DAEMON": "False"}  # what the README tells TAs


def saved(root: Path, student: str, assignment: str = SPEC.name) -> tuple[dict, bytes]:
    """A student's results.json of ``assignment`` (H2's by default) without its timings, and
    their feedback.html."""
    folder = root / "autograded" / student / assignment
    data = json.loads((folder / RESULTS_JSON).read_text())
    data["extra_data"].pop("seconds")
    return data, (folder / FEEDBACK_HTML).read_bytes()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _reachable(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


class DaskProcesses:
    """``dask scheduler`` / ``dask worker`` processes this test started, stopped at the end
    (each in a session of its own, so its nanny's worker processes stop with it)."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.started: list[subprocess.Popen] = []
        self.address = ""

    def _start(self, args: list[str], prefix: tuple[str, ...] = ()) -> subprocess.Popen:
        log = (self.workdir / f"dask-{len(self.started)}.log").open("w")
        process = subprocess.Popen([sys.executable, *prefix, "-m", *args], cwd=self.workdir,
                                   env={**os.environ, **WORKER_ENV}, stdout=log, stderr=log,
                                   start_new_session=True)
        self.started.append(process)
        return process

    def scheduler(self) -> str:
        port = free_port()
        self._start(["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port",
                     str(port), "--dashboard-address", "127.0.0.1:0"])
        deadline = time.monotonic() + 60
        while not _reachable(port):
            assert time.monotonic() < deadline, "the Dask scheduler did not start"
            time.sleep(0.2)
        self.address = f"tcp://127.0.0.1:{port}"
        return self.address

    def worker(self, *, prefix: tuple[str, ...] = ()) -> subprocess.Popen:
        """One worker process with one thread (as the README says), under ``prefix``
        (``-c`` and a launcher script) when given."""
        return self._start(["distributed.cli.dask_worker", self.address, "--nthreads", "1",
                            "--nworkers", "1", "--no-dashboard", "--host", "127.0.0.1"], prefix)

    def stop(self, process: subprocess.Popen) -> None:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()

    def stop_all(self) -> None:
        for process in reversed(self.started):
            self.stop(process)
