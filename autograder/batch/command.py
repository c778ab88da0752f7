"""Grade every submission of an assignment in an nbgrader course (TAs).

Reads submitted/<student>/<assignment>/ under the course root (default: the
current directory, as nbgrader does) and writes, per student,
autograded/<student>/<assignment>/results.json (Gradescope format) and
feedback.html; then grades.csv at the course root and the scores into
gradebook.db, so `nbgrader export` and formgrader show them.

Student code runs in sandboxed worker processes with time, memory, output and
process limits; a broken or hostile submission gets a row with a status and a
reason, never stops the batch. Re-running skips unchanged submissions (use
--force to regrade), so an interrupted batch resumes where it stopped.

examples:
  python -m autograder autograde h2_attention
  python -m autograder autograde h2_attention --root ~/courses/dl-2026-fall-a --jobs 4
  python -m autograder autograde h2_attention --student s001 --force
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from autograder.batch.course import Course
from autograder.batch.engine import BatchOptions, grade_course
from autograder.results.result import STATUS_ERROR, STATUS_UNGRADABLE
from autograder.sandbox.client import IsolationError
from autograder.sandbox.limits import Limits
from autograder.sandbox.uids import UidLeaseError
from autograder.spec import SPEC


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "assignment", nargs="?", default=SPEC.name, help="assignment name (default: %(default)s)"
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=Path.cwd(),
        help="nbgrader course root (default: the current directory)",
    )
    parser.add_argument(
        "--student", action="append", metavar="ID", help="grade only this student (repeatable)"
    )
    parser.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=os.cpu_count() or 1,
        help="submissions graded in parallel (default: all %(default)s cores)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="regrade submissions that are already graded and unchanged",
    )
    parser.add_argument("--cohort", help="cohort the evidence inputs were derived from")
    limits = parser.add_argument_group("limits per submission")
    default = Limits()
    limits.add_argument(
        "--cell-timeout",
        type=float,
        default=default.cell_timeout,
        metavar="S",
        help="seconds per notebook cell (default: %(default)s)",
    )
    limits.add_argument(
        "--call-timeout",
        type=float,
        default=default.call_timeout,
        metavar="S",
        help="seconds per call of a student function (default: %(default)s)",
    )
    limits.add_argument(
        "--memory-mb",
        type=int,
        default=default.memory_mb,
        metavar="MB",
        help="address space of the worker (default: %(default)s)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--allow-weaker-isolation",
        action="store_true",
        help="grade even where the sandbox cannot apply full isolation (PID namespace, minimal "
        "root, no network, no privileges, seccomp); what applied is recorded in every result "
        "and in grades.csv. Without it the grader refuses",
    )
    parser.add_argument(
        "--no-isolation",
        action="store_true",
        help="no namespaces, no private filesystem (only for debugging the grader itself)",
    )


def run(args: argparse.Namespace) -> int:
    course = Course(args.root.resolve(), args.assignment)
    students = args.student or course.students()
    if not students:
        print(
            f"no submissions in {course.root / 'submitted'}/<student>/{args.assignment}/",
            file=sys.stderr,
        )
        return 2
    limits = Limits(
        cell_timeout=args.cell_timeout, call_timeout=args.call_timeout, memory_mb=args.memory_mb
    )
    options = BatchOptions(
        jobs=args.jobs,
        force=args.force,
        limits=limits,
        cohort=args.cohort,
        isolate=not args.no_isolation,
        allow_weaker=args.allow_weaker_isolation,
        progress=not args.no_progress,
    )
    try:
        summary = grade_course(course, students, options)
    except (IsolationError, UidLeaseError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    scores = [r.score for r in summary.results if r.status != STATUS_ERROR]
    mean = sum(scores) / len(scores) if scores else 0.0
    print(
        f"{len(summary.graded)} graded, {len(summary.skipped)} unchanged (skipped), "
        f"{summary.count(STATUS_UNGRADABLE)} ungradable, {summary.count(STATUS_ERROR)} grader errors; "
        f"mean {mean:.1f}; {summary.seconds:.1f} s"
    )
    print(f"grades: {summary.csv_path}")
    print(
        f"per student: {course.root / 'autograded'}/<student>/{args.assignment}/results.json, feedback.html"
    )
    return 1 if summary.count(STATUS_ERROR) else 0
