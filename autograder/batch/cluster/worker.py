"""The Dask worker's side: one grading session per worker, and the task that grades.

``GradingSessionPlugin`` is registered by the coordinator; Dask sets it up once in every
worker process (and again in a worker that replaces a dead one), never per submission.
It carries the assignment as plain data (its name and the folders its bundle is found in,
never a pickled module) and its setup loads it from there (``load_assignment``), then starts
what a process of the local pool has: a warm zygote, a leased sandbox uid and the
assignment's collected checks (``GradingSession.start``), and forks one empty sandboxed
worker (``isolation_probe``): a worker that cannot isolate refuses every task (fail
closed). Its teardown, when the worker leaves, closes the session.

``grade_task`` gets a submission's files as plain data (``transfer``), writes them into a
private temporary course root, at the submission's place in it (``Course.submitted``: so
the paths that ``private_paths`` redacts are the copy's), grades it with
``load_submission`` and ``grade_submission``, and returns plain data:
``{"result": <results.json as a dict>}``, ``{"error": "Type: message"}`` for a grader
failure, or ``{"refused": why}`` when this worker cannot grade at all. It writes nothing the coordinator reads: results travel back.

Student files stay on a worker only while they are graded: each copy lives under the
worker's own ``<tmp>/autograder-dask-<pid>-*``, removed after each task and at teardown; a worker
that was killed cannot remove its own, so the next one set up on that machine does.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import shutil
import socket
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from distributed import Reschedule, WorkerPlugin, get_worker

from autograder.assignments import load_assignment
from autograder.assignments.registry import PACKAGED
from autograder.base.course import Course
from autograder.batch.cluster.transfer import Entry, unpack
from autograder.grading.submission import load_submission
from autograder.legacy_names import DASK_SCRATCH_PREFIX as LEGACY_SCRATCH_PREFIX
from autograder.sandbox.limits import Limits
from autograder.startup import prepare_process

if TYPE_CHECKING:
    from autograder.assignments import Assignment

PLUGIN_NAME = "autograder-grading-session"
SCRATCH_PREFIX = "autograder-dask-"


class GradingSessionPlugin(WorkerPlugin):
    """Owns this worker's ``GradingSession``; see the module docstring."""

    idempotent = False  # a new batch's options replace an earlier batch's session

    def __init__(self, assignment: str, folders: list[str], limits: dict[str, Any],
                 isolate: bool, allow_weaker: bool) -> None:
        # Plain data only: the plugin is pickled to every worker.
        self.assignment = assignment  # the bundle's name, loaded on the worker
        self.folders = list(folders)  # where to look for it besides the package's
        self.limits = dict(limits)
        self.isolate = isolate
        self.allow_weaker = allow_weaker
        self.session = None
        self.isolation: list[str] = []
        self.problem = "not set up yet"  # why this worker cannot grade ("" = it can)
        self.isolation_failed = False
        self.grading_key = ""  # the loaded assignment's, for the coordinator to compare

    async def setup(self, worker: object) -> None:
        """Start the session off the event loop (imports and the zygote take seconds)."""
        prepare_process()  # a grading process starts here, before _start's imports
        self.lock = threading.Lock()  # one session: one submission at a time
        self.problem = ""
        remove_dead_workers_folders()
        self.scratch = tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-")
        await asyncio.get_running_loop().run_in_executor(None, self._start)

    def _start(self) -> None:
        # The grader's heavy modules: imported off the event loop, once per worker process.
        from autograder.batch.isolation_probe import probe_isolation
        from autograder.grading.session import GradingSession
        from autograder.sandbox.client import IsolationError

        limits = Limits(**self.limits)
        try:
            assignment = load_assignment(self.assignment, self.folders)
            self.grading_key = assignment.grading_key
            self.session = GradingSession.start(assignment, limits, isolate=self.isolate,
                                                allow_weaker=self.allow_weaker)
            self.isolation = probe_isolation(self.session.zygote, limits, isolate=self.isolate,
                                             allow_weaker=self.allow_weaker)
        except IsolationError as error:
            self.problem, self.isolation_failed = str(error), True
        except Exception as error:  # noqa: BLE001 - reported to the coordinator as one line
            self.problem = f"the grading session did not start: {type(error).__name__}: {error}"

    def teardown(self, worker: object) -> None:
        """The worker is leaving: stop the zygote and free the uid."""
        session, self.session = self.session, None
        if session is not None:
            with self.lock:
                session.close()
        shutil.rmtree(getattr(self, "scratch", ""), ignore_errors=True)

    def state(self) -> dict[str, Any]:
        """Plain facts for the coordinator's check before it hands out work."""
        return {
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "ready": self.session is not None and not self.problem,
            "problem": self.problem,
            "isolation_failed": self.isolation_failed,
            "isolation": list(self.isolation),
            "assignment": self.assignment,
            "grading_key": self.grading_key,
            "daemon": multiprocessing.current_process().daemon,
        }


def bundle_folders(assignment: Assignment) -> list[str]:
    """Where a worker finds ``assignment``'s bundle, as plain data: nowhere more for one of
    the package's (the worker's installed grader holds it), else the folder it was found in
    here (the same path on the worker: this machine, a shared file system or a copy)."""
    folder = assignment.root.parent
    return [] if folder == PACKAGED else [str(folder)]


def remove_dead_workers_folders() -> None:
    """Remove the folders of this machine's workers that died without teardown (killed):
    student files must not stay behind. A folder whose worker lives (or whose pid was
    reused) is left alone. Folders of the name workers gave them before the rename
    (``autograder.legacy_names``) are swept too."""
    top = Path(tempfile.gettempdir())
    for prefix in (SCRATCH_PREFIX, LEGACY_SCRATCH_PREFIX):
        for folder in top.glob(f"{prefix}*-*"):
            _remove_if_dead(folder, folder.name.removeprefix(prefix).split("-", 1)[0])


def _remove_if_dead(folder: Path, pid: str) -> None:
    try:  # another worker's teardown may remove it between the listing and here
        owner = folder.lstat().st_uid
    except FileNotFoundError:
        return
    if not pid.isdigit() or folder.is_symlink() or owner != os.geteuid():
        return
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        shutil.rmtree(folder, ignore_errors=True)
    except PermissionError:
        return


def _plugin(worker: Any = None) -> GradingSessionPlugin | None:
    plugin = (worker or get_worker()).plugins.get(PLUGIN_NAME)
    return plugin if isinstance(plugin, GradingSessionPlugin) else None


def worker_state(dask_worker: Any) -> dict[str, Any]:
    """``Client.run`` target (Dask passes ``dask_worker``): this worker's plugin state."""
    plugin = _plugin(dask_worker)
    if plugin is None:
        return {"ready": False, "problem": "the grading plugin is not set up on this worker",
                "isolation_failed": False}
    return plugin.state()


def grade_task(
    student: str, assignment: str, entries: list[Entry], cohort: str | None,
    hidden_paths: list[str],
) -> dict[str, Any]:
    """Grade one submission of ``assignment`` (its name) in a private temporary course root;
    plain data back. A worker set up for another assignment (another batch on a shared
    scheduler replaced this one's plugin) refuses: it never grades as the wrong one."""
    # the grader (pytest, 100 ms): never in the coordinator, which imports this module
    from autograder.grading.grade_one import grade_submission
    from autograder.sandbox.client import IsolationError

    plugin = _plugin()
    if plugin is not None and plugin.problem:
        return {"refused": plugin.problem, "isolation_failed": plugin.isolation_failed}
    if plugin is None or plugin.session is None:  # a worker that is leaving: another grades it
        raise Reschedule()
    if plugin.assignment != assignment:
        return {"refused": f"this worker was set up to grade {plugin.assignment!r}, not "
                           f"{assignment!r} (another batch on the same scheduler?)"}
    base = Path(tempfile.mkdtemp(dir=plugin.scratch))
    try:
        folder = Course(base, assignment).submitted(student)
        folder.parent.mkdir(parents=True)
        unpack(entries, folder)
        with plugin.lock:
            submission = load_submission(folder, student, assignment=plugin.session.assignment)
            result = grade_submission(submission, plugin.session, cohort=cohort,
                                      hidden_paths=hidden_paths)
        return {"result": result.to_gradescope()}
    except IsolationError as error:  # fail closed, as the local pool does
        return {"refused": str(error), "isolation_failed": True}
    except Exception as error:  # noqa: BLE001 - a grader failure is that student's row
        return {"error": f"{type(error).__name__}: {error}"}
    finally:
        shutil.rmtree(base, ignore_errors=True)

