"""Grade a whole cohort: parallel, resumable, and no submission can stop the batch.

Each of ``jobs`` trusted grading processes keeps a warm zygote and grades one
submission at a time, writing that student's ``results.json`` and report as
soon as they are done. A re-run skips every submission whose files and grader
are unchanged (content hashes), so an interrupted batch loses nothing already
graded. The gradebook and ``grades.csv`` are then written from all results.

With ``BatchOptions.cluster`` the submissions to grade go to a Dask cluster instead of
the local pool (``autograder.batch.cluster``); skipping, the progress bar, grades.csv and
the gradebook stay here, unchanged. Both save a result the same way (``outcome``).

The engine grades the ``Assignment`` it is given (by default, the one the course names,
from the registry); each grading process keeps it in its session.
"""

from __future__ import annotations

import errno
import multiprocessing
import multiprocessing.util
import os
import signal
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from tqdm import tqdm

from autograder.assignments import Assignment, load_assignment
from autograder.base import stages
from autograder.base.course import RESULTS_JSON, Course
from autograder.base.safe_text import shown_id
from autograder.batch import counted, interrupts, lateness, resume, version_rule, versions
from autograder.batch.cluster.executor import grade_on_cluster
from autograder.batch.isolation_probe import probe_isolation
from autograder.batch.options import BatchOptions
from autograder.batch.outcome import (
    composing,
    error_result,
    internal_error_result,
    save_result,
    save_version_result,
    write_record_files,
)
from autograder.batch.root_lock import close_inherited, hold
from autograder.grading.runner import require_consistent_spec
from autograder.grading.session import GradingSession, warm_up_checks
from autograder.grading.submission import content_hash, load_submission
from autograder.results.decisions import Decisions
from autograder.results.result import STATUS_ERROR, SubmissionResult, UnreadableRecord, load, read
from autograder.results.root_settings import due_text
from autograder.sandbox.client import IsolationError
from autograder.sandbox.uids import UidLease
from autograder.sandbox.zygote import Zygote, discard
from autograder.untrusted.lifeline import die_with_parent
from autograder.views import gradebook, grades_csv
from autograder.views.outputs import import_formgrader, with_decisions
from autograder.views.student_files import write_gradebook, write_grades_csv


@dataclass
class BatchSummary:
    """What a batch did, for the TA's summary and for tests."""

    results: list[SubmissionResult]
    graded: list[str]
    skipped: list[str]
    seconds: float
    csv_path: Path
    due: str = ""  # the due date ``late`` was decided against ("" = none: not judged)
    cohort: str = ""
    unpublished: list[str] = field(default_factory=list)  # copies not rewritten: exit non-zero

    def count(self, status: str) -> int:
        return sum(1 for result in self.results if result.status == status)


class Job(NamedTuple):
    """One thing to grade: a student's submission in ``submitted/`` (``version`` None), or
    one of their kept versions (its folder under ``versions/``), which a ``version_rule``
    other than ``newest`` may need."""

    student: str
    version: Path | None = None


# ------------------------------------------------------------ inside a grading process

_SESSION = None
MACHINE_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EROFS)  # no student's fault, nor grader's
INTERRUPT_POLL = 0.2  # seconds between the coordinator's looks for a Ctrl-C while it waits


def _quiet_interrupt(signum: int, frame: object) -> None:
    """A grading process's Ctrl-C: stop as before (a ``KeyboardInterrupt`` that unwinds the
    sandbox worker it holds), but print nothing: the coordinator says what happened in one
    line, and a traceback from an idle process of the pool before it helps nobody."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)
    raise KeyboardInterrupt


def _start_session(channels: list, slots: multiprocessing.Queue, options: BatchOptions,
                   assignment: Assignment, coordinator: int) -> None:
    """Process-pool initializer (in a process forked from the warm coordinator, so its
    arguments are inherited, never pickled): its own channel to the shared zygote, a sandbox
    user id of its own, and the assignment every submission of the batch is graded as. It
    dies with the ``coordinator`` (even a ``kill -9`` of it), and never holds the root's lock."""
    global _SESSION
    die_with_parent(coordinator)  # forked by the thread that waits on the pool: as long-lived
    close_inherited()
    for signum in interrupts.STOPPING:  # Ctrl-C, or SIGTERM and SIGHUP (systemd's to all)
        if not interrupts.ignored(signum):  # a coordinator started deaf to one: so are we
            signal.signal(signum, _quiet_interrupt)
    _SESSION = GradingSession(zygote=channels[slots.get()], lease=UidLease.acquire(),
                              assignment=assignment, limits=options.limits,
                              isolate=options.isolate, allow_weaker=options.allow_weaker)
    # The last worker of this process is reaped when the process ends (before its uid is free).
    multiprocessing.util.Finalize(None, _SESSION.zygote.settle, exitpriority=10)
    if stages.enabled():  # a benchmark's: this process's stage totals, as it ends
        multiprocessing.util.Finalize(None, stages.save, args=("grading process",),
                                      exitpriority=5)


def _grade_and_save(
    course: Course, job: Job, cohort: str | None, due: datetime | None = None
) -> SubmissionResult:
    """Grade one submission (or kept version) in this grading process (its session's
    assignment) and save it."""
    # grading.grade_one (14 ms): not at a command's start (cohort imports this module)
    from autograder.grading.grade_one import grade_submission

    session = _SESSION
    assignment = session.assignment
    with stages.stage("grading process: the rest"):
        kept = versions.load(job.version) if job.version is not None else None
        if job.version is not None and kept is None:
            raise RuntimeError(f"the kept version {job.version} has no readable version.json")
        folder = kept.files if kept is not None else course.submitted(job.student)
        with stages.stage("load the submission (read, parse, hash)"):
            submission = load_submission(folder, job.student, assignment=assignment)
        # A kept version's folder is not laid out as submitted/: the course root is named here.
        hidden = [str(course.root.resolve())] if kept is not None else []
        result = grade_submission(submission, session, cohort=cohort, hidden_paths=hidden)
        if kept is not None:
            return save_version_result(kept, result, due=due)
        return save_result(course, assignment, result, due=due, notebook=submission.notebook)


# ------------------------------------------------------------ the trusted coordinator


def up_to_date(
    course: Course, assignment: Assignment, student: str, due: datetime | None = None,
    cohort: str | None = None,
) -> SubmissionResult | None:
    """The saved result if the submission (``timestamp.txt`` included), the assignment's
    grading key, the due date and the cohort are unchanged since it was made: a new due date
    regrades, so the saved ``late`` (in results.json, feedback.html and grades.csv) is never
    stale, and a new cohort regrades, since the evidence inputs derive from it."""
    folder = course.submitted(student)
    try:
        saved = read(course.autograded(student) / RESULTS_JSON)
    except UnreadableRecord as error:  # regraded, never silently (issue 51, item 12)
        where = shown_id((course.autograded(student) / RESULTS_JSON).relative_to(course.root)
                         .as_posix())
        print(f"{where} is unreadable ({error.why}): {shown_id(student)} is regraded",
              flush=True)
        saved = None
    return _still_current(saved, assignment, due,
                          cohort, lambda: content_hash(folder),
                          lambda: lateness.decide(folder, due).key())


def resumed_result(
    course: Course, assignment: Assignment, student: str, due: datetime | None = None,
    cohort: str | None = None,
) -> SubmissionResult | None:
    """``up_to_date`` for what a run that did not finish graded (``autograder.batch.resume``)."""
    folder = course.submitted(student)
    return _still_current(resume.load_kept(course, student), assignment, due, cohort,
                          lambda: content_hash(folder), lambda: lateness.decide(folder, due).key())


def version_up_to_date(
    kept: versions.Version, assignment: Assignment, due: datetime | None = None,
    cohort: str | None = None,
) -> SubmissionResult | None:
    """``up_to_date`` for a kept version: its own results.json, judged by its own times."""
    return _still_current(load(kept.results_json), assignment, due, cohort, lambda: kept.hash,
                          lambda: lateness.decide_kept(kept.files, kept.receipt, due).key())


def _still_current(saved: SubmissionResult | None, assignment: Assignment,
                   due: datetime | None, cohort: str | None, digest: Callable[[], str],
                   lateness_key: Callable[[], tuple]) -> SubmissionResult | None:
    """``saved`` if nothing it was graded from has changed (the cheap checks first: hashing
    and judging the time read files)."""
    if saved is None or saved.status == STATUS_ERROR:
        return None
    if saved.assignment != assignment.name or saved.grading_key != assignment.grading_key:
        return None
    if saved.due != due_text(due) or saved.cohort != (cohort or ""):
        return None
    if saved.submission_hash != digest():
        return None
    if saved.lateness_key() != lateness_key():
        return None  # a new receipt (cohort collect) or a changed one: late is decided again
    return saved


def _run_pool(
    course: Course,
    assignment: Assignment,
    students: Sequence[Job],
    options: BatchOptions,
    on_result: Callable[[Job, SubmissionResult], None],
    on_started: Callable[[], None] = lambda: None,
    launched: list[Zygote] | None = None,
) -> tuple[list[Job], list[Job]]:
    """Grade the jobs ``students`` in a pool; returns (lost, not started) when a grading
    process died.

    Only ``jobs`` submissions are in flight at a time, so a grading process killed from
    outside (the OOM killer) loses only the submissions it and its siblings were grading;
    the rest of the queue is handed back untouched. The trusted imports (the assignment's
    libraries, checks and reference) happen once here, and the grading processes are
    *forked* from this warm process; one zygote serves them all, each through its own
    channel (``launched``: one started ahead by ``launch_sandbox`` for the same assignment,
    its surplus channels closed). Threads (the
    gradebook, progress) start only after the forks (``on_started``).
    """
    jobs = max(1, min(options.jobs, len(students)))
    if launched and len(launched) >= jobs:
        channels, surplus = launched[:jobs], launched[jobs:]
        discard(surplus)  # never the owner (the first)
    else:
        if launched:
            discard(launched)
        channels = Zygote.launch(channels=jobs, preload=assignment.preload,
                                 hide=assignment.private_folders)
    with stages.stage("start-up: import the checks and reference, collect the checks"):
        warm_up_checks(assignment)
        # Before anything is graded, on the checks the warm-up just collected (no second
        # pass): a SpecError is one line from autograder.cli.
        require_consistent_spec(assignment)
    with stages.stage("start-up: wait for the zygote (it imports the preloads)"):
        for channel in channels:
            channel.wait_ready()
    context = multiprocessing.get_context("fork")
    slots: multiprocessing.Queue = context.Queue()
    for slot in range(jobs):
        slots.put(slot)
    queue = list(students)
    lost: list[Job] = []
    try:
        with stages.stage("start-up: probe the sandbox's isolation"):
            probe_isolation(channels[0], options.limits, isolate=options.isolate,
                            allow_weaker=options.allow_weaker)
        # Ctrl-C is raised here only between waits (interrupts.deferred): never inside the
        # pool's own code, whose locks it could leave held.
        with stages.stage("coordinator: wait for the grading processes"), \
                interrupts.deferred(), ProcessPoolExecutor(
                    jobs, mp_context=context, initializer=_start_session,
                    initargs=(channels, slots, options, assignment,
                              os.getpid())) as pool:
            running: dict = {}
            started = False
            while queue or running:
                while queue and len(running) < jobs:
                    job = queue.pop(0)
                    future = pool.submit(_grade_and_save, course, job, options.cohort,
                                         options.due_for(job.student))
                    running[future] = job
                if not started:
                    on_started()
                    started = True
                done, _ = wait(running, timeout=INTERRUPT_POLL, return_when=FIRST_COMPLETED)
                interrupts.raise_if_interrupted()
                for future in done:
                    job = running.pop(future)
                    try:
                        on_result(job, future.result())
                    except BrokenProcessPool:
                        lost.append(job)
                    except IsolationError:
                        raise
                    except OSError as error:  # a full disk is the machine's: the run stops
                        if error.errno in MACHINE_FULL:  # (one line from autograder.cli)
                            raise
                        on_result(job, error_result(job.student, assignment, error))
                    except Exception as error:  # noqa: BLE001 - one student's grader failure is a row
                        on_result(job, error_result(job.student, assignment, error))
                if lost:
                    lost += running.values()
                    break
    finally:
        for channel in reversed(channels):  # the owner (first) last: it waits for the zygote
            channel.close()
    return sorted(lost), queue


def grade_course(
    course: Course,
    students: Sequence[str] | None = None,
    options: BatchOptions | None = None,
    sandbox: list[Zygote] | None = None,
    *,
    assignment: Assignment | None = None,
) -> BatchSummary:
    """Grade every (or the named) submissions of ``course``; see the module docstring.
    ``sandbox``: a zygote from ``launch_sandbox``, now owned here (used or discarded).
    ``assignment``: what to grade them as (by default the registry's bundle of the course's
    assignment name; a command passes the one it loaded, from the folders it was told of)."""
    options = options or BatchOptions()
    started = time.monotonic()
    try:
        if assignment is None:
            assignment = load_assignment(course.assignment)
        elif assignment.name != course.assignment:
            raise ValueError(f"asked to grade {course.assignment!r} submissions as the "
                             f"assignment {assignment.name!r}")
        with hold(course.root):  # RootBusy: another run grades here
            return _grade_course(course, assignment, students, options, sandbox, started)
    finally:
        if sandbox:  # unused (nothing to grade here, or an error before the pool): ended now
            discard(sandbox)


def _grade_course(
    course: Course,
    assignment: Assignment,
    students: Sequence[str] | None,
    options: BatchOptions,
    sandbox: list[Zygote] | None,
    started: float,
) -> BatchSummary:
    students = list(students) if students else course.students()
    with stages.stage("scan: decisions and formgrader's scores"):
        decisions = Decisions.load(course.root)  # and what was scored in formgrader since
        if options.write_gradebook:
            import_formgrader(course, decisions, assignment=assignment)
    with stages.stage("scan: versions kept, version rule"):
        versions.keep_all(course, students)  # a root collected by hand keeps its versions too
        plans = {student: version_rule.plan(course, student, options.version_rule,
                                            options.due_for(student)) for student in students}
    results: dict[str, SubmissionResult] = {}
    kept_results: dict[Path, SubmissionResult] = {}  # by kept version's folder
    resumed: list[SubmissionResult] = []
    with stages.stage("scan: what changed (hash each submission, its lateness)"):
        todo = _jobs(course, assignment, students, plans, options, results, kept_results,
                     resumed)
    with stages.stage("write: what a run that did not finish graded"):
        for result in resumed:
            write_record_files(course, assignment, result)
    if sandbox and not any(options.cluster is None or job.version is not None for job in todo):
        discard(sandbox)  # nothing for a local pool: the zygote stops importing torch now
        sandbox = None
    pending = {job.student for job in todo}
    skipped = [s for s in students if s not in pending and s not in
               {result.student for result in resumed}]
    preparing: list = []

    def after_fork() -> None:  # the grading processes exist: threads are safe now
        if options.write_gradebook and not preparing:
            preparing.append(gradebook.prepare(course, assignment=assignment))

    tqdm.monitor_interval = 0  # no monitor thread: grading processes are forked from this one
    bar = tqdm(
        total=len(todo),
        unit="submission",
        desc=f"grading {course.assignment}",
        disable=not options.progress or not todo,
        dynamic_ncols=True,
    )

    def on_result(job: Job, result: SubmissionResult) -> None:
        if job.version is None:
            results[result.student] = result
        else:
            kept_results[job.version] = result
        bar.set_postfix_str(
            f"{shown_id(result.student)}: {result.score:g}/{result.max_score:g}", refresh=False
        )
        bar.update()

    try:
        with interrupts.watched(), composing(decisions, options.late_policy):
            if options.cluster is not None:  # Dask (autograder.batch.cluster), imported only then
                require_consistent_spec(assignment)  # here, as the local pool does after its warm-up
                grade_on_cluster(course, assignment, [j.student for j in todo if j.version is None],
                                 options, lambda result: on_result(Job(result.student), result),
                                 after_fork)
            # Kept versions (a version_rule's) are graded here, on a cluster run too.
            queue: list[Job] = [j for j in todo if options.cluster is None or j.version is not None]
            suspects: list[Job] = []
            while queue:  # a crash hands back the rest of the queue, and who was in flight
                launched, sandbox = sandbox, None  # the first pool takes it
                lost, queue = _run_pool(course, assignment, queue, options, on_result, after_fork,
                                        launched)
                suspects += lost
                interrupts.raise_if_interrupted()  # the pool died of Ctrl-C: not regraded
            for job in suspects:  # each alone, once more: a crash now is that submission's
                interrupts.raise_if_interrupted()
                lost, _ = _run_pool(course, assignment, [job], replace(options, jobs=1), on_result)
                for crashed in lost:
                    on_result(crashed, error_result(crashed.student, assignment, RuntimeError(
                        "the grading process was killed twice while grading this submission "
                        "(out of memory?)")))
    except BaseException:
        # Stopped (Ctrl-C, SIGTERM, an error): the gradebook thread ends before the root's
        # change is rolled back, which puts the gradebook back as it was under it.
        for thread in preparing:
            thread.join(timeout=60)
        raise
    finally:
        bar.close()
    # Which version counts (autograder.batch.version_rule): its result is the student's.
    with stages.stage("end: versions counted, decisions and late policy applied"):
        for student in students:
            composed = counted.compose(course, assignment, plans[student],
                                       results.get(student), kept_results, options.late_policy,
                                       options.due_for(student))
            if composed is not None:
                results[student] = composed
        # The grade of record: what a person decided (autograder.results.decisions) and the
        # late policy, applied once.
        ordered = with_decisions(course, [results[s] for s in students if s in results],
                                 decisions, options.late_policy, options.due_for,
                                 assignment=assignment)
    # Every student of the root, not only this run's (--student): the others as last saved.
    # First: a gradebook error must not lose it.
    with stages.stage("end: grades.csv"):
        write_grades_csv(course, assignment,
                         every_result(course, assignment, {r.student: r for r in ordered}))
    if options.write_gradebook:
        with stages.stage("end: wait for the gradebook thread"):
            for thread in preparing:
                thread.join()
        with stages.stage("end: gradebook (nbgrader's database)"):
            write_gradebook(course, assignment, ordered, decisions)
    pending |= {result.student for result in resumed}
    return BatchSummary(
        ordered,
        [s for s in students if s in pending and s in results],
        skipped,
        time.monotonic() - started,
        course.grades_csv(),
        due_text(options.due),
        options.cohort or "",
    )


def _jobs(course: Course, assignment: Assignment, students: Sequence[str],
          plans: dict[str, version_rule.Plan], options: BatchOptions,
          results: dict[str, SubmissionResult],
          kept_results: dict[Path, SubmissionResult],
          resumed: list[SubmissionResult]) -> list[Job]:
    """What to grade: each student's submission, or, where the version rule falls back on an
    earlier on-time version, that one and the newest (each a kept version); what is up to
    date is not graded again but put in ``results`` or ``kept_results`` (and in ``resumed``
    when it comes from a run that did not finish: its files are not written yet)."""
    todo = []
    for student in students:
        due, chosen = options.due_for(student), plans[student]
        if chosen.on_time is None or chosen.newest is None:
            if options.force:  # regraded, but a newer grader's record refused (NewerRecord)
                load(course.autograded(student) / RESULTS_JSON)
            saved = None if options.force else up_to_date(course, assignment, student, due,
                                                          options.cohort)
            if saved is None and not options.force:  # graded by a run that did not finish
                saved = resumed_result(course, assignment, student, due, options.cohort)
                if saved is not None:
                    resumed.append(saved)
            if saved is None:
                todo.append(Job(student))
            else:
                results[student] = saved
            continue
        for kept in (chosen.on_time, chosen.newest):
            saved = None if options.force else version_up_to_date(kept, assignment, due,
                                                                  options.cohort)
            if saved is None:
                todo.append(Job(student, kept.folder))
            else:
                kept_results[kept.folder] = saved
    return todo


def every_result(course: Course, assignment: Assignment,
                 fresh: dict[str, SubmissionResult]) -> list[SubmissionResult]:
    """The result of every student of ``course``: ``fresh`` (this run's) first, else the one
    saved in results.json, else a grader error the last grades.csv recorded (never saved, so
    it is kept from there). A run for a few students (``--student``) then updates their rows
    and keeps everybody else's, as the gradebook does."""
    previous = grades_csv.read_rows(course.grades_csv(), assignment.name)
    out = []
    for student in course.students():
        result = fresh.get(student) or load(course.autograded(student) / RESULTS_JSON)
        row = previous.get(student, {})
        if result is None and row.get("status") == STATUS_ERROR:
            result = internal_error_result(student, assignment, "")
            result.reason = row.get("reason", "") or result.reason
        if result is not None:
            out.append(result)
    return out
