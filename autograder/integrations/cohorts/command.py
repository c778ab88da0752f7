"""Run the course workflow for one cohort declared in cohorts.toml.

Each cohort has its own nbgrader course root (and gradebook) and its own
course id in the exchange, so grades and identical student ids never mix.

steps, in order:
  list                      the declared cohorts, their roots and due dates
  release COHORT            regenerate release/ if stale; release to the cohort
  collect COHORT [--zip F]  newest submissions from the exchange; LMS zip downloads
  grade COHORT              sandboxed autograde of the cohort (late ones flagged)
  feedback COHORT           reports into feedback/<student>/<assignment>/
  export COHORT             nbgrader export, grades.csv and summary.md
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from autograder.batch.engine import BatchOptions
from autograder.integrations.cohorts import workflow
from autograder.integrations.cohorts.config import (
    CONFIG,
    CohortConfigError,
    get_cohort,
    load_cohorts,
)
from autograder.sandbox.client import IsolationError
from autograder.sandbox.uids import UidLeaseError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--config", type=Path, default=CONFIG,
                        help="cohorts file (default: %(default)s)")
    steps = parser.add_subparsers(dest="step", metavar="STEP", required=True)
    steps.add_parser("list", help="the declared cohorts")
    for name, help_text in [
        ("release", "regenerate release/ if stale, then release it to the cohort"),
        ("collect", "collect submissions (exchange, and LMS zips with --zip)"),
        ("grade", "grade the cohort's submissions (sandboxed, parallel, resumable)"),
        ("feedback", "write each student's report into feedback/"),
        ("export", "nbgrader export, grades.csv and a summary of what to re-teach"),
    ]:
        step = steps.add_parser(name, help=help_text)
        step.add_argument("cohort", help="cohort name from the cohorts file")
        if name == "collect":
            step.add_argument("--zip", type=Path, action="append", default=[], metavar="FILE",
                              help="an LMS download (zip); files named <student>__<file>")
        if name == "grade":
            step.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1)
            step.add_argument("--force", action="store_true", help="regrade unchanged submissions")
            step.add_argument("--no-progress", action="store_true")
            step.add_argument("--allow-weaker-isolation", action="store_true",
                              help="grade even where full isolation cannot be applied (recorded)")


def run(args: argparse.Namespace) -> int:
    try:
        if args.step == "list":
            for cohort in load_cohorts(args.config).values():
                due = f"{cohort.due:%Y-%m-%d %H:%M} UTC" if cohort.due else "no due date"
                print(f"{cohort.name:24s} course {cohort.course_id:24s} {due:22s} {cohort.root}")
            return 0
        cohort = get_cohort(args.cohort, args.config)
        if args.step == "release":
            lines = workflow.release(cohort)
        elif args.step == "collect":
            lines = workflow.collect(cohort, args.zip)
        elif args.step == "grade":
            summary = workflow.grade(cohort, BatchOptions(
                jobs=args.jobs, force=args.force, progress=not args.no_progress,
                allow_weaker=args.allow_weaker_isolation))
            late = sum(r.late for r in summary.results)
            lines = [f"{len(summary.graded)} graded, {len(summary.skipped)} unchanged, "
                     f"{late} late; {summary.csv_path}"]
        elif args.step == "feedback":
            lines = [f"{len(workflow.feedback(cohort))} feedback reports in {cohort.root / 'feedback'}"]
        else:
            files = workflow.export(cohort)
            lines = [f"grades: {files.grades}", f"nbgrader export: {files.nbgrader}",
                     f"summary: {files.summary}", "", files.summary.read_text()]
    except (CohortConfigError, workflow.WorkflowError, IsolationError, UidLeaseError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0
