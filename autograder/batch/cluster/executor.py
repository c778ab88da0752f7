"""The coordinator's loop for ``--cluster``: hand out submissions, record each result once.

It starts (``dask-local``, ``slurm``) or reaches (``tcp://``) a Dask cluster, registers
the grading plugin (``worker``, told which assignment as plain data: its name and where to
find its bundle) and checks every worker before anything is graded: its session started,
its sandbox isolates (or the TA allowed weaker isolation), and it grades the same
assignment with the same grader (the assignment's grading key). Then it keeps a bounded window of tasks in flight (the
files of a submission travel with its task, so the coordinator's memory stays bounded),
and as each result arrives it saves it itself (``outcome.save_result``, as the local
pool's grading processes do) and reports it. The coordinator alone writes.

Failures: a worker process that dies makes Dask re-run its tasks elsewhere; a submission
whose grading process is killed on every try (``allowed-failures``) becomes a grader
error, never a student's zero; a result that arrives twice is recorded once. A worker
that cannot isolate stops the batch (``IsolationError``); an unreachable scheduler or a
broken worker stops it with one line (``ClusterError``). On Slurm, while no result is
ready, ``SlurmJobs.check`` replaces jobs that ended (walltime, node failure), says what
the batch waits for and gives up after ``pending_timeout`` (``slurm``); whatever ends the
batch, Ctrl-C included, its jobs are cancelled on the way out.
"""

from __future__ import annotations

import logging
import sys
import tempfile
import time
import uuid
import warnings
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from autograder.base.course import Course
from autograder.batch import interrupts
from autograder.batch.cluster.choice import DASK_LOCAL, SCHEDULER, ClusterChoice, ClusterError
from autograder.batch.cluster.transfer import pack
from autograder.batch.options import BatchOptions
from autograder.batch.outcome import internal_error_result, save_result
from autograder.grading.paths import private_paths
from autograder.grading.submission import content_hash
from autograder.results.result import SubmissionResult
from autograder.sandbox.client import IsolationError

if TYPE_CHECKING:
    from autograder.assignments import Assignment

CONNECT_TIMEOUT = 10.0  # seconds to reach a scheduler given as tcp://
WORKER_TIMEOUT = 60.0  # seconds for an existing scheduler to have a worker
SETUP_TIMEOUT = 300.0  # seconds for every worker to start its grading session
LOCAL_ALLOWED_FAILURES = 1  # dask-local: a submission is tried on a second process, as the pool
WINDOW_PER_THREAD = 2  # tasks in flight per worker thread (and at least MIN_WINDOW)
MIN_WINDOW = 4
MAX_IN_FLIGHT_BYTES = 2**30  # submission bytes in flight at most (beyond the first task)
IDLE = 0.05  # seconds between looks for a finished task (as Dask's own as_completed)
WORKERS_EVERY = 1.0  # seconds between counts of the connected workers while waiting
RESULT_WAIT = 5.0  # seconds between looks at the cluster while a result is fetched
SILENCED = ("distributed", "dask_jobqueue", "tornado")


@contextmanager
def _quiet() -> Iterator[None]:
    """Dask's own warnings (a worker restarted, a slow event loop) stay off the TA's
    terminal: the progress bar and one-line errors say what matters."""
    loggers = [logging.getLogger(name) for name in SILENCED]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*large graph", category=UserWarning)
            yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


class _NoWatch:
    """A cluster whose workers this batch does not start: nothing to watch."""

    def check(self, workers: int) -> None:
        pass


def say(line: str) -> None:
    """A line beside the progress bar (on stderr, as it is)."""
    tqdm.write(line, file=sys.stderr)


@contextmanager
def connect(choice: ClusterChoice, root: Path | None = None) -> Iterator[Any]:
    """A ``distributed.Client`` on the cluster ``choice`` names; the cluster we started is
    closed on exit (its workers' plugins close their sessions). ``root``: the course root,
    whose ``slurm-logs`` folder gets the Slurm jobs' logs."""
    with _connected(choice, root) as (client, _):
        yield client


@contextmanager
def _connected(choice: ClusterChoice, root: Path | None = None) -> Iterator[tuple[Any, Any]]:
    """``connect``'s client and what watches its workers (``SlurmJobs`` for Slurm)."""
    # Dask (70-250 ms): only once a cluster is asked for
    import dask
    from distributed import Client

    with ExitStack() as stack:
        stack.enter_context(_quiet())
        # Non-daemonic workers: Dask's daemonic ones may not start multiprocessing children.
        # The sandbox's zygote is a plain subprocess (allowed either way), but nothing in a
        # grading session should depend on that. The nanny reads this whenever it (re)starts
        # a worker, so it stays set while the cluster lives.
        settings: dict[str, Any] = {"distributed.worker.daemon": False}
        if choice.kind == DASK_LOCAL:
            settings["distributed.scheduler.allowed-failures"] = LOCAL_ALLOWED_FAILURES
        stack.enter_context(dask.config.set(settings))
        watch: Any = _NoWatch()
        if choice.kind == SCHEDULER:
            try:
                client = Client(choice.address, timeout=CONNECT_TIMEOUT, set_as_default=False)
            except (OSError, TimeoutError) as error:
                why = _first_line(error)
                why = "" if why.startswith("Timed out") else f" ({why})"
                raise ClusterError(
                    f"cannot reach the Dask scheduler at {choice.address} within "
                    f"{CONNECT_TIMEOUT:g} s{why}: start one with `dask scheduler`, or check "
                    "the address and that its port is open") from None
            stack.callback(client.close)
            try:
                client.wait_for_workers(1, timeout=WORKER_TIMEOUT)
            except TimeoutError:
                raise ClusterError(
                    f"the Dask scheduler at {choice.address} has no worker after "
                    f"{WORKER_TIMEOUT:g} s: start some with `dask worker {choice.address} "
                    "--nthreads 1` (docs/cluster.md)") from None
            yield client, watch
            return
        if choice.kind == DASK_LOCAL:
            # Dask: only once a cluster is asked for
            from distributed import LocalCluster

            cluster = LocalCluster(n_workers=choice.workers, threads_per_worker=1,
                                   processes=True, host="127.0.0.1",
                                   dashboard_address="127.0.0.1:0",  # any free port, loopback
                                   silence_logs=logging.ERROR)
            stack.callback(cluster.close)
        else:
            # imports Dask (70 ms): only for --cluster slurm
            from autograder.batch.cluster.slurm import (
                SlurmJobs,
                load_slurm_spec,
                log_folder,
                slurm_cluster,
            )

            spec = load_slurm_spec(choice.config)  # type: ignore[arg-type]
            logs = log_folder(spec, root)
            cluster = slurm_cluster(spec, **({"log_directory": logs} if logs else {}))
            watch = SlurmJobs(spec, cluster, say=say, logs=logs)
            stack.callback(watch.cancel)  # every job, also on Ctrl-C; then the cluster
            watch.start()  # the progress bar moves once the first job runs
        client = Client(cluster, set_as_default=False)
        stack.callback(client.close)
        yield client, watch


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def start_sessions(client: Any, assignment: Assignment,
                   options: BatchOptions) -> dict[str, dict[str, Any]]:
    """Register the grading plugin (every worker loads ``assignment``, starts its session and
    probes its sandbox) and check each worker present; returns their states. Workers that
    join later are checked by their first task (``grade_task`` refuses to grade when they
    cannot)."""
    # Dask's own modules: only once a cluster is asked for.
    from autograder.batch.cluster.worker import (
        PLUGIN_NAME,
        GradingSessionPlugin,
        bundle_folders,
        worker_state,
    )

    plugin = GradingSessionPlugin(assignment.name, bundle_folders(assignment),
                                  options.limits.to_dict(), options.isolate, options.allow_weaker)
    try:
        client.register_plugin(plugin, name=PLUGIN_NAME)
        states = client.run(worker_state)
    except Exception as error:  # noqa: BLE001 - a worker that left, a version mismatch
        raise ClusterError("could not start the grading sessions on the Dask workers "
                           f"({type(error).__name__}: {_first_line(error)})") from None
    for address, state in states.items():
        where = f"the Dask worker {address} ({state.get('host', '?')})"
        if state.get("isolation_failed"):
            raise IsolationError(f"{state['problem']} [{where}]")
        if not state.get("ready"):
            raise ClusterError(f"{where} cannot grade: {state.get('problem', 'no session')}")
        if state.get("grading_key") != assignment.grading_key:
            raise ClusterError(
                f"{where} runs another version of the grader or of {assignment.name} "
                f"(grading key {state.get('grading_key')}, here {assignment.grading_key}): "
                "install this checkout there, with the same library versions and the same "
                "assignment bundle")
    return states


def hidden_paths(course: Course, student: str) -> list[str]:
    """The coordinator's paths that the local grader would redact from this student's
    messages (course root, submission folder, repository, home, temporary directory):
    the worker redacts them too, besides its own."""
    return [*private_paths(course.submitted(student)), tempfile.gettempdir()]


def killed_reason(times: str) -> str:
    """Why a submission has no grade when its grading process died on every try."""
    return (f"the grading process was killed {times} while grading this submission "
            "(out of memory?)")


def grade_on_cluster(
    course: Course,
    assignment: Assignment,
    students: Sequence[str],
    options: BatchOptions,
    on_result: Callable[[SubmissionResult], None],
    on_started: Callable[[], None] = lambda: None,
) -> None:
    """Grade ``students`` of ``course`` as ``assignment`` on ``options.cluster``;
    ``on_result`` gets each result once, after it is saved."""
    # Dask's own modules: only once a cluster is asked for.
    from distributed import as_completed

    from autograder.batch.cluster.worker import PLUGIN_NAME, grade_task

    choice = options.cluster
    if choice is None or not students:
        return
    killed_times = "twice" if choice.kind == DASK_LOCAL else "on every try"
    with _connected(choice, course.root) as (client, watch):
        start_sessions(client, assignment, options)
        on_started()
        queue = deque(students)
        in_flight: dict[Any, tuple[str, bool, int]] = {}  # future -> (student, partial, bytes)
        recorded: set[str] = set()
        completed = as_completed(loop=client.loop)
        window, checked = MIN_WINDOW, 0.0
        workers, counted = 0, 0.0
        stopping = False

        def record(result: SubmissionResult) -> None:
            if result.student in recorded:  # Dask ran it twice (a worker left): once only
                return
            recorded.add(result.student)
            on_result(result)

        def submit_more() -> None:
            nonlocal window, checked
            if time.monotonic() - checked > 2.0:  # workers come and go (Slurm jobs start)
                threads = sum(client.nthreads().values())
                window, checked = max(MIN_WINDOW, WINDOW_PER_THREAD * threads), time.monotonic()
            while queue and len(in_flight) < window and (
                    not in_flight or sum(size for *_, size in in_flight.values())
                    < MAX_IN_FLIGHT_BYTES):
                student = queue.popleft()
                try:
                    entries, partial = pack(course.submitted(student), assignment)
                except OSError as error:
                    record(internal_error_result(student, assignment,
                                                 f"{type(error).__name__}: {error}"))
                    continue
                size = sum(len(data) for _, _, data in entries if isinstance(data, bytes))
                future = client.submit(
                    grade_task, student, assignment.name, entries, options.cohort,
                    hidden_paths(course, student), key=f"autograde-{student}-{uuid.uuid4().hex}",
                    pure=False)
                in_flight[future] = (student, partial, size)
                completed.add(future)

        try:
            submit_more()
            while not completed.is_empty():
                interrupts.raise_if_interrupted()  # even one a finalizer swallowed
                if not completed.has_ready():
                    if time.monotonic() - counted > WORKERS_EVERY:
                        workers, counted = len(client.nthreads()), time.monotonic()
                    watch.check(workers)  # Slurm: lost jobs replaced, pending ones said
                    time.sleep(IDLE)
                    continue
                future = next(completed)  # ready: does not wait
                student, partial, _ = in_flight.pop(future)
                try:
                    payload, error = fetch(future, client, watch, killed_times)
                finally:
                    future.release()
                if error is not None:
                    record(internal_error_result(student, assignment, error))
                if payload is not None and student not in recorded:
                    _handle(payload, course, assignment, student, partial, options, record)
                submit_more()
        except KeyboardInterrupt:
            stopping = choice.kind != SCHEDULER  # our workers: they stop with their cluster
            raise
        finally:
            if in_flight:
                client.cancel(list(in_flight))
            try:  # close every worker's session now, not when a shared worker leaves
                if not stopping:  # (Ctrl-C: not waiting for a starting session to finish)
                    client.unregister_worker_plugin(PLUGIN_NAME)
            except Exception:  # noqa: BLE001 - the workers are gone: nothing to close
                pass


def fetch(future: Any, client: Any, watch: Any, killed_times: str) -> tuple[Any, str | None]:
    """A finished task's payload, or the grader error its student's row gets instead. What
    stops the batch passes through: the watch giving up on the cluster (a lost Slurm job with
    no replacement left: ``ClusterError``), a cancelled batch, Ctrl-C."""
    # Dask's own modules: only once a cluster is asked for (imported by then).
    from distributed.client import FutureCancelledError
    from distributed.scheduler import KilledWorker

    try:
        return _result(future, client, watch), None
    except KilledWorker:
        return None, f"RuntimeError: {killed_reason(killed_times)}"
    except FutureCancelledError:
        raise ClusterError("the Dask scheduler cancelled the batch (was it restarted?): run "
                           "the command again, graded submissions are kept") from None
    except ClusterError:
        raise
    except Exception as error:  # noqa: BLE001 - a grader failure is a row
        return None, f"{type(error).__name__}: {error}"


def _result(future: Any, client: Any, watch: Any) -> Any:
    """A finished task's result. Its data lives on the worker that computed it: if that
    worker is lost before the result is fetched (its Slurm node failed), Dask computes the
    task again, which needs a worker, so lost jobs are replaced while waiting (``watch``)
    instead of waiting for ever on a cluster left with none."""
    while True:
        try:
            return future.result(timeout=RESULT_WAIT)
        except TimeoutError:
            watch.check(len(client.nthreads()))


def _handle(payload: dict[str, Any], course: Course, assignment: Assignment, student: str,
            partial: bool, options: BatchOptions,
            record: Callable[[SubmissionResult], None]) -> None:
    """One task's plain answer: a result (saved here, then recorded), a grader error,
    or a worker's refusal (which stops the batch)."""
    if "refused" in payload:
        if payload.get("isolation_failed"):
            raise IsolationError(str(payload["refused"]))
        raise ClusterError(f"a Dask worker cannot grade: {payload['refused']}")
    if "error" in payload:
        record(internal_error_result(student, assignment, str(payload["error"])))
        return
    result = SubmissionResult.from_gradescope(payload["result"])
    if result.student != student or result.assignment != assignment.name:
        record(internal_error_result(
            student, assignment,
            f"a worker answered for {result.student!r} in {result.assignment!r}"))
        return
    if partial:  # some file travelled as its size only: hash the original
        result.submission_hash = content_hash(course.submitted(student))
    record(save_result(course, assignment, result, due=options.due_for(student)))
