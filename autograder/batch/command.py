"""Grade every submission of an assignment in an nbgrader course (TAs).

ASSIGNMENT is the name of an assignment bundle (`python -m autograder assignments` lists
them; --assignments DIR adds a folder of your own); without it, the one assignment the
course root holds. Reads submitted/<student>/<assignment>/ under the course root (default:
the current directory, as nbgrader does) and writes, per student,
autograded/<student>/<assignment>/results.json (Gradescope format) and
feedback.html; then grades.csv at the course root and the scores into
gradebook.db, so `nbgrader export` and formgrader show them.

Student code runs in sandboxed worker processes with time, memory, output and
process limits; a broken or hostile submission gets a row with a status and a
reason, never stops the batch. Re-running skips unchanged submissions (use
--force to regrade), so an interrupted batch resumes where it stopped.

On one machine the default process pool is the fastest. --cluster grades on Dask
instead: dask-local[:N] (N worker processes here), tcp://HOST:PORT (a scheduler that
is already running) or slurm (the [cluster] table of cohorts.toml); the submissions
travel with the tasks and results are written here, as with the pool.

The root remembers its cohort and due date (course.json, written by `cohort release` or
the first run given --due/--cohort); every later run in it uses them when not given, so a
late submission stays late through --student and --force. It remembers the folder of a
bundle given with --assignments too: later commands in the root need no --assignments. --due replaces the remembered
date (and says so), --no-due clears it: then lateness is not judged (late = unknown).
One run per course root at a time: a second one refuses with one line.

examples:
  python -m autograder autograde
  python -m autograder autograde --root ~/courses/dl-2026-fall-a --jobs 4
  python -m autograder autograde --student s001 --force
  python -m autograder autograde --cluster tcp://10.0.0.5:8786
  python -m autograder autograde --cluster slurm --config ~/courses/cohorts.toml
  python -m autograder autograde hw3 --assignments ~/course/bundles --root ~/courses/dl
"""

from __future__ import annotations

import argparse
import difflib
import importlib.util
import math
import os
import sys
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

# Only what parsing the command line and launching the zygote need: the grader (engine,
# checks, torch, nbgrader) is imported in ``run`` once the zygote is warming up beside it.
from autograder.assignments import Assignment, exposure, remembered
from autograder.assignments.arguments import add_assignment_arguments, assignment_in_root
from autograder.base import stages
from autograder.base.course import SUBMITTED, Course
from autograder.batch import interrupts
from autograder.batch.cluster.choice import SLURM, ClusterError, parse_cluster
from autograder.batch.options import BatchOptions, launch_sandbox
from autograder.batch.root_lock import RootBusy, hold
from autograder.batch.workdir import current_folder_problem
from autograder.results import journal
from autograder.results.root_settings import (
    RootSettings,
    RootSettingsError,
    course_name_problem,
    remember,
    settings_of_record,
)
from autograder.sandbox.limits import BASE_MEMORY_MB, PRELOAD_MEMORY_MB, Limits
from autograder.sandbox.zygote import discard
from autograder.spec import SpecError

if TYPE_CHECKING:
    from autograder.batch.engine import BatchSummary

# A worker is forked from a zygote that has numpy and torch mapped (about 0.6 GiB of address
# space) before any student code runs: a smaller limit fails every submission, not the bad ones.
MIN_MEMORY_MB = 1024


class UsageError(ValueError):
    """A TA's mistake on the command line: one line saying what is wrong and what to do."""


def one_line_errors(parser: argparse.ArgumentParser) -> None:
    """Make ``parser`` report a usage mistake (a bad value, a missing or unknown argument) as
    one line that names the mistake and where to look, instead of the usage and then the
    error. Arguments it does not know are its mistake too, not the top-level parser's."""
    command = parser.prog.removeprefix("python -m autograder ")

    def error(message: str) -> NoReturn:
        parser.exit(2, f"error: {message} (see `python -m autograder {command} --help`)\n")

    parse_known_args = parser.parse_known_args

    def parse_all_args(
        args: list[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        namespace, extras = parse_known_args(args, namespace)
        if extras:
            error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras

    parser.error = error  # type: ignore[method-assign]
    parser.parse_known_args = parse_all_args  # type: ignore[method-assign]


def bounded(kind: type, low: float, *, inclusive: bool = True, unit: str = "",
            why: str = "") -> Callable[[str], float]:
    """An argparse ``type``: a finite ``kind`` (int or float) of at least (or more than) ``low``."""

    def parse(text: str) -> float:
        value = kind(text)  # a ValueError: argparse says "invalid <kind> value: 'text'"
        if not math.isfinite(value) or value < low or (not inclusive and value == low):
            raise argparse.ArgumentTypeError(
                f"must be {'at least' if inclusive else 'more than'} {low:g}{unit} "
                f"(got {text}){why}")
        return value

    parse.__name__ = kind.__name__
    return parse


def course_name(text: str) -> str:
    """An argparse ``type``: a course's name, one line of text."""
    problem = course_name_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(f"{text[:80]!r} {problem}")
    return text.strip()


def add_grading_options(parser: argparse.ArgumentParser) -> None:
    """The options of every command that grades a batch (``autograde``, ``cohort grade``):
    parallelism, re-grading, limits per submission and isolation. Read them with
    ``options_from``."""
    parser.add_argument(
        "--jobs",
        "-j",
        type=bounded(int, 1),
        default=os.cpu_count() or 1,
        help="submissions graded in parallel (default: all %(default)s cores)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="regrade submissions that are already graded and unchanged",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--cluster",
        type=parse_cluster,
        default=None,
        metavar="WHERE",
        help="where to grade: local (default: this machine's process pool, --jobs wide, the "
        "fastest on one machine); dask-local[:N] (a Dask LocalCluster of N worker processes, "
        "default all cores); tcp://HOST:PORT (a running Dask scheduler; its workers need "
        "this grader installed, not the course files); slurm (Slurm jobs as the [cluster] "
        "table of cohorts.toml says). --jobs applies to the local pool only",
    )
    default = Limits()
    limits = parser.add_argument_group(
        "limits per submission",
        description=f"Fixed: {default.file_mb} MiB of scratch disk (and largest file), "
        f"{default.nproc} processes and threads, {default.notebook_timeout:g} s for all cells "
        f"of a notebook, {default.submission_timeout:g} s for everything of one submission.")
    limits.add_argument(
        "--cell-timeout",
        type=bounded(float, 0, inclusive=False, unit=" seconds"),
        default=default.cell_timeout,
        metavar="S",
        help="seconds per notebook cell (default: %(default)s)",
    )
    limits.add_argument(
        "--call-timeout",
        type=bounded(float, 0, inclusive=False, unit=" seconds"),
        default=default.call_timeout,
        metavar="S",
        help="seconds per call of a student function (default: %(default)s)",
    )
    extra = ", ".join(f"{mb} more where the assignment preloads {name}"
                      for name, mb in PRELOAD_MEMORY_MB.items())
    limits.add_argument(
        "--memory-mb",
        type=bounded(int, MIN_MEMORY_MB,
                     why=": the interpreter and the assignment's libraries take hundreds of MB "
                     "before student code runs"),
        default=None,
        metavar="MB",
        help=f"address space of the worker, at least {MIN_MEMORY_MB} (default: "
        f"{BASE_MEMORY_MB}, {extra})",
    )
    isolation = parser.add_argument_group("isolation")
    isolation.add_argument(
        "--allow-weaker-isolation",
        action="store_true",
        help="grade even where the sandbox cannot apply full isolation (PID namespace, minimal "
        "root, no network, no privileges, seccomp); what applied is recorded in every result "
        "and in grades.csv. Without it the grader refuses",
    )
    isolation.add_argument(
        "--no-isolation",
        action="store_true",
        help="no namespaces, no private filesystem (only for debugging the grader itself)",
    )


def options_from(args: argparse.Namespace) -> BatchOptions:
    """The ``BatchOptions`` of the options ``add_grading_options`` added (their values were
    checked when they were parsed)."""
    limits = Limits(
        cell_timeout=args.cell_timeout, call_timeout=args.call_timeout, memory_mb=args.memory_mb
    )
    cluster = args.cluster
    if cluster is not None and cluster.kind == SLURM:  # the [cluster] table of which file
        # cohorts.config (75 ms): only for --cluster slurm
        from autograder.integrations.cohorts.config import CONFIG

        cluster = replace(cluster, config=getattr(args, "config", None) or CONFIG)
    return BatchOptions(
        cluster=cluster,
        jobs=args.jobs,
        force=args.force,
        limits=limits,
        isolate=not args.no_isolation,
        allow_weaker=args.allow_weaker_isolation,
        progress=not args.no_progress,
    )


def summary_line(summary: BatchSummary) -> str:
    """One line whose counts add up: every submission is graded, ungradable or a grader
    error; separately, how many were assessed now and how many were kept unchanged; then
    how many are late against which due date (or that lateness was not judged), and the
    cohort, so a run given neither can never pass for one that judged lateness."""
    # results.result (7 ms): not before the zygote starts
    from autograder.results.result import STATUS_ERROR, STATUS_GRADED, STATUS_UNGRADABLE

    total = len(summary.results)
    errors = summary.count(STATUS_ERROR)
    scores = [r.score for r in summary.results if r.has_total]
    mean = sum(scores) / len(scores) if scores else 0.0
    out_of = max((r.max_score for r in summary.results), default=0.0)
    return (
        f"{total} submission{'' if total == 1 else 's'}: {summary.count(STATUS_GRADED)} graded, "
        f"{summary.count(STATUS_UNGRADABLE)} ungradable, "
        f"{errors} grader error{'' if errors == 1 else 's'} "
        f"({len(summary.graded)} assessed in this run, "
        f"{len(summary.skipped)} unchanged since the last run); "
        f"mean {mean:.1f}/{out_of:g} (of graded notebooks); {lateness_words(summary)}; "
        f"{'cohort ' + summary.cohort if summary.cohort else 'no cohort'}; "
        f"{summary.seconds:.1f} s"
    )


def lateness_words(summary: BatchSummary) -> str:
    """``2 late, 1 unknown (due 2026-12-14 23:59:00 UTC)``, or that nothing was judged."""
    # batch.lateness (jsonschema, 85 ms): not before the zygote starts
    from autograder.batch.lateness import NOT_JUDGED

    if not summary.due:
        return NOT_JUDGED
    late = sum(r.late for r in summary.results)
    unknown = sum(r.late_unknown for r in summary.results)
    penalised = sum(bool(r.late_penalty) for r in summary.results)
    policy = next((r.late_policy for r in summary.results if r.late_policy), "")
    return (f"{late} late" + (f", {unknown} unknown" if unknown else "") + f" (due {summary.due}"
            + (f"; {penalised} penalised: {policy}" if policy else "") + ")")


def interrupted_line(force: bool, error: KeyboardInterrupt | None = None) -> str:
    """What to do after Ctrl-C (or the SIGTERM or SIGHUP ``error`` names): the same command
    resumes, unless it was --force (which would regrade everything again)."""
    again = ("run it again without --force to resume (with --force it starts over)" if force
             else "run the same command again to resume")
    said = interrupts.stopped_by(error) if error is not None else "interrupted"
    return (f"{said}: every output of the root is as it was before this run; what was "
            f"already graded is kept; {again}")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    one_line_errors(parser)
    add_assignment_arguments(parser, optional=True,
                             when_left_out="the one assignment the course root holds")
    parser.add_argument(
        "--root",
        type=Path,
        default=Path.cwd(),
        help="nbgrader course root (default: the current directory)",
    )
    parser.add_argument(
        "--config", type=Path, default=None, metavar="FILE",
        help="the cohorts file whose [cluster] table --cluster slurm reads (default: the "
        "cohorts.toml of the grader's checkout)",
    )
    parser.add_argument(
        "--student", action="append", metavar="ID", help="grade only this student (repeatable)"
    )
    parser.add_argument("--cohort", help="cohort the evidence inputs were derived from "
                        "(remembered in the root's course.json; default: the remembered one)")
    parser.add_argument(
        "--course-name", type=course_name, metavar="NAME",
        help="the course's name, as every student's feedback page says it (remembered in the "
        "root's course.json; default: the remembered one, else the course id of the root's "
        "nbgrader_config.py, else none)")
    due = parser.add_mutually_exclusive_group()
    due.add_argument(
        "--due",
        type=due_date,
        metavar="TIME",
        help="due date with its zone, e.g. '2026-12-14 23:59 UTC', '2026-12-14 23:59 "
        "Europe/Berlin' or '2026-12-15T00:59+01:00': "
        "later submissions are late (penalised only by a --late-policy); a changed due date "
        "regrades. Remembered in the root's course.json (default: the remembered one)",
    )
    due.add_argument("--no-due", action="store_true",
                     help="forget the remembered due date: lateness is not judged (late = "
                     "unknown) until --due gives one")
    parser.add_argument(
        "--late-policy", type=late_policy, metavar="POLICY",
        help="penalty for late submissions, e.g. '10%%/day, cap 50%%, grace 15m' (per started "
        "day or hour, of the maximum), or 'none'; remembered in course.json (default: the "
        "remembered one, or none)")
    parser.add_argument(
        "--extension", type=extension, action="append", metavar="STUDENT=TIME", default=[],
        help="a student's own due date, e.g. s042='2026-12-16 23:59 UTC' (repeatable; "
        "STUDENT=none takes it back); remembered in course.json; regrades only that student")
    parser.add_argument(
        "--version-rule", type=version_rule, metavar="RULE",
        help="which kept version of a submission counts: newest (default), last_on_time (an "
        "earlier on-time one over a late resubmission) or best_after_penalty (the higher score "
        "after the late penalty); remembered in course.json (default: the remembered one)")
    add_grading_options(parser)


def chosen_assignment(args: argparse.Namespace) -> Assignment:
    """The assignment ``args`` name, or the course root's one; none or several, or an unknown
    name, is one line naming the choices (a ``SpecError``: exit 2 from autograder.cli)."""
    return assignment_in_root(args, args.root.resolve(), remember=False)  # by _grade


def _publish(course: Course, assignment: Assignment) -> tuple[str, bool]:
    """Every copy of the grades that exists in the root (feedback copies, LMS files,
    summary.md, nbgrader's export, the report) rewritten from the new results; its line, and
    whether a copy could not be (the command then exits non-zero)."""
    # publish.views (1.4 ms): not before the zygote starts
    from autograder.publish.views import publish

    published = publish(course, assignment, course.students())
    return published.line(), bool(published.stale)


def check_extensions(course: Course, extensions: dict[str, datetime | None]) -> None:
    """``UsageError`` (one line, naming the close ids) for an extension given to a student
    with no submission in the root: a mistyped id would be remembered and change nothing."""
    students = course.students()
    for student, when in extensions.items():
        if student in students or when is None:  # taking one back needs no submission
            continue
        close = difflib.get_close_matches(student, students, n=3, cutoff=0.6)
        hint = f"did you mean {' or '.join(close)}?" if close else "check the id"
        raise UsageError(f"--extension {student}: no submission from {student} in "
                         f"{course.root / SUBMITTED} ({hint}); give a student's extension once "
                         "they have submitted")


def settings_to_grade(args: argparse.Namespace, course: Course) -> tuple[RootSettings, list[str]]:
    """The root's settings with what ``args`` gives, and a line per change to course.json.
    A cohort's root grades with its cohorts.toml's (its settings of record, as `cohort grade`
    does): an option that disagrees is refused (``UsageError``, one line naming both values
    and the file to edit). A plain root's record is course.json: the options change it."""
    if settings_of_record(course.root, course.assignment) is not None:
        # integrations.cohorts (cohorts.toml's reader): only for a cohort's root
        from autograder.integrations.cohorts import record

        given = record.Given(due=args.due, no_due=args.no_due, late_policy=args.late_policy,
                             extensions=dict(args.extension), version_rule=args.version_rule,
                             cohort=args.cohort)
        try:
            cohort = record.cohort_of(course.root, course.assignment)
            if cohort is not None:
                problem = record.extension_ids_problem(cohort, course.students())
                if problem:  # as `cohort grade` refuses it
                    raise UsageError(problem)
                return record.remember(cohort, given, args.course_name)
        except record.RecordError as error:
            raise UsageError(str(error)) from None
    return remember(
        course.root, course.assignment, cohort=args.cohort, due=args.due,
        set_due=args.due is not None or args.no_due, set_cohort=args.cohort is not None,
        late_policy=args.late_policy, extensions=dict(args.extension),
        version_rule=args.version_rule, course=args.course_name)


def _require_root(root: Path) -> None:
    """``UsageError`` unless ``root`` is a folder."""
    if not root.exists():
        raise UsageError(f"course root {root} does not exist: pass --root <the folder that "
                         "holds submitted/> (default: the current directory)")
    if not root.is_dir():
        raise UsageError(f"course root {root} is not a folder: pass --root <the folder that "
                         "holds submitted/>")


def late_policy(text: str) -> object:
    """An argparse ``type``: a late policy (``autograder.results.late_policy.parse``)."""
    # here, not at the top: version_rules's parse has the same name
    from autograder.results.late_policy import LatePolicyError, parse

    try:
        return parse(text)
    except LatePolicyError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def version_rule(text: str) -> str:
    """An argparse ``type``: a version rule (``autograder.batch.version_rule.parse``)."""
    # here, not at the top: late_policy's parse has the same name
    from autograder.results.version_rules import VersionRuleError, parse

    try:
        return parse(text)
    except VersionRuleError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def extension(text: str) -> tuple[str, datetime | None]:
    """An argparse ``type``: ``STUDENT=TIME`` (``STUDENT=none`` takes it back)."""
    student, equals, when = text.partition("=")
    if not equals or not student.strip():
        raise argparse.ArgumentTypeError(
            f"{text!r} is not STUDENT=TIME (e.g. s042='2026-12-16 23:59 UTC', or s042=none)")
    if when.strip().lower() == "none":
        return student.strip(), None
    return student.strip(), due_date(when)


def due_date(text: str) -> datetime:
    """An argparse ``type``: a day, a time and an explicit zone (a bare time is ambiguous
    across a course's time zones, as in cohorts.toml; a bare day would mean midnight), as an
    aware UTC time (``autograder.batch.due_dates``)."""
    # batch.due_dates (zoneinfo, 2-6 ms): only for --due and --extension
    from autograder.batch.due_dates import DueDateError, parse_due

    try:
        return parse_due(text)
    except DueDateError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def students_to_grade(course: Course, assignment: Assignment,
                      asked: list[str] | None) -> list[str]:
    """Who to grade: every student with a submission, or those asked for (each must have one).
    ``UsageError`` when the root or a submission is missing, or when the course's release of
    ``assignment`` lacks a part it grades."""
    # authoring.release (importlib.metadata, 28 ms): not before the zygote starts
    from autograder.authoring.release import missing_parts, stale_release_message

    root = course.root
    _require_root(root)
    present = course.students()
    where = f"{root / SUBMITTED}/<student>/{course.assignment}/"
    if not present:
        raise UsageError(f"no submissions in {where}: collect them first (`nbgrader collect "
                         f"{course.assignment}`), or pass --root <the course root>")
    release_dir = course.release_dir
    missing = missing_parts(release_dir, assignment)
    if missing:
        raise UsageError(stale_release_message(release_dir, missing))
    if not asked:
        return present
    unknown = [s for s in dict.fromkeys(asked) if s not in present]
    if unknown:
        shown = ", ".join(present[:10]) + (f" and {len(present) - 10} more" if len(present) > 10
                                           else "")
        raise UsageError(f"no submission for {', '.join(unknown)} in {where} (students with one: "
                         f"{shown}); check the id or collect it first")
    return list(dict.fromkeys(asked))


def run(args: argparse.Namespace) -> int:
    """``autograde``; Ctrl-C ends it with one line saying how to resume."""
    try:
        return _run(args)
    except KeyboardInterrupt as error:  # Ctrl-C, SIGTERM, SIGHUP
        print(interrupted_line(args.force, error), file=sys.stderr)
        return interrupts.exit_status(error)


def _run(args: argparse.Namespace) -> int:
    unreachable = current_folder_problem()
    if unreachable:  # before anything starts: the checks' runner would stop halfway
        print(f"error: {unreachable}", file=sys.stderr)
        return 2
    _require_dependencies()  # before the root is locked: no lock file left by a wrong Python
    try:
        assignment = chosen_assignment(args)  # UnknownAssignment: one line from autograder.cli
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    _require_dependencies(assignment.preload)  # torch, say: only an assignment's that preloads it
    exposure.warn_once(assignment)  # on a shared machine, its hidden files must be closed
    course = Course(args.root.resolve(), assignment.name)
    with ExitStack() as held:
        # Only a course root with submissions: else students_to_grade says what is wrong,
        # and a refused run leaves no lock file in a folder it never graded.
        if course.root.is_dir() and course.students():
            try:  # first: a second run in this root refuses before it starts anything
                held.enter_context(hold(course.root))
            except RootBusy as error:
                print(f"error: {error}", file=sys.stderr)
                return 2
        return _grade(args, course, assignment)


def _require_dependencies(modules: Sequence[str] = ("tqdm", "numpy", "nbgrader", "pytest",
                                                     "jsonschema")) -> None:
    """``ModuleNotFoundError`` for the first of ``modules`` (default: the grader's own
    libraries; then the assignment's preloads) this Python lacks (``autograder.cli`` turns it
    into one line on activating the environment), found without importing them: the zygote
    must start before they are imported."""
    for module in dict.fromkeys(name.partition(".")[0] for name in modules):
        if importlib.util.find_spec(module) is None:
            raise ModuleNotFoundError(f"No module named {module!r}", name=module)


def _grade(args: argparse.Namespace, course: Course, assignment: Assignment) -> int:
    """Grade ``course`` as ``assignment`` with the root held: its remembered cohort and due
    date, unless given."""
    options = options_from(args)
    # Warms while the course is checked and the grader loads.
    sandbox = launch_sandbox(options, assignment)
    # the grader: after the zygote is launched, so both warm up at once (test_early_sandbox)
    from autograder.batch.engine import grade_course
    from autograder.results.decisions import DecisionError
    from autograder.results.result import STATUS_ERROR
    from autograder.sandbox.client import IsolationError
    from autograder.sandbox.uids import UidLeaseError
    from autograder.views.gradebook import GradebookError

    stages.add("start-up: the interpreter, imports, the course's settings", *stages.since_start())
    try:
        assignment.evidence  # noqa: B018  (its plugin checked now, a bad one in one line)
        students = students_to_grade(course, assignment, args.student)
        check_extensions(course, dict(args.extension))
        settings, changes = settings_to_grade(args, course)
        for line in [*changes, remembered.remember(course.root, assignment)]:
            if line:
                print(line, flush=True)
        options = replace(options, cohort=settings.cohort, due=settings.due,
                          late_policy=settings.late_policy, extensions=settings.extensions,
                          version_rule=settings.version_rule)
        summary = grade_course(course, students, options, sandbox, assignment=assignment)
        with stages.stage("publish: every output of the root (issue 37)"):
            published, stale = _publish(course, assignment)
        stages.save("coordinator")
    except (UsageError, IsolationError, UidLeaseError, GradebookError, ClusterError,
            RootSettingsError, RootBusy, SpecError, DecisionError) as error:
        journal.abandon(course.root)  # refused part-way: nothing of this run is kept
        print(f"error: {error}", file=sys.stderr)
        return 2
    finally:
        if sandbox:  # refused before grading: the zygote is not left importing torch
            discard(sandbox)
    print(summary_line(summary))
    if published:
        print(published)
    print(f"grades: {summary.csv_path}")
    print(f"per student: {course.autograded('<student>')}/results.json, feedback.html")
    return 1 if summary.count(STATUS_ERROR) or stale else 0  # a copy left stale: not done
