"""Run the course workflow for one cohort declared in cohorts.toml.

Each cohort has its own nbgrader course root (and gradebook) and its own
course id in the exchange, so grades and identical student ids never mix.

steps, in order:
  list                      the declared cohorts: due dates, roots, exchange, released?
  release COHORT            regenerate release/ if stale; release to the cohort
  collect COHORT [--zip F]  newest submissions from the exchange; LMS zip downloads
  grade COHORT              sandboxed autograde of the cohort (late ones flagged)
  feedback COHORT           reports into feedback/<student>/<assignment>/
  export COHORT             nbgrader export, grades.csv and summary.md
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograder.batch.command import (
    add_grading_options,
    one_line_errors,
    options_from,
    summary_line,
)
from autograder.integrations.cohorts import workflow
from autograder.integrations.cohorts.config import (
    CONFIG,
    CohortConfigError,
    get_cohort,
    load_cohorts,
)
from autograder.results.gradebook import GradebookError
from autograder.sandbox.client import IsolationError
from autograder.sandbox.uids import UidLeaseError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    one_line_errors(parser)
    parser.add_argument("--config", type=Path, default=CONFIG,
                        help="cohorts file (default: %(default)s)")
    steps = parser.add_subparsers(dest="step", metavar="STEP", required=True)
    one_line_errors(steps.add_parser("list", help="the declared cohorts"))
    for name, help_text in [
        ("release", "regenerate release/ if stale, then release it to the cohort"),
        ("collect", "collect submissions (exchange, and LMS zips with --zip)"),
        ("grade", "grade the cohort's submissions (sandboxed, parallel, resumable)"),
        ("feedback", "write each student's report into feedback/"),
        ("export", "nbgrader export, grades.csv and a summary of what to re-teach"),
    ]:
        step = steps.add_parser(name, help=help_text, description=help_text)
        one_line_errors(step)
        step.add_argument("cohort", help="cohort name from the cohorts file")
        if name == "collect":
            step.add_argument("--zip", type=Path, action="append", default=[], metavar="FILE",
                              help="an LMS download (zip); files named <student>__<file>")
        if name == "grade":
            add_grading_options(step)


def list_cohorts(config: Path) -> list[str]:
    """Each declared cohort: course id, due date with its zone, whether it was released,
    its course root and the exchange its students must use."""
    lines = []
    for cohort in load_cohorts(config).values():
        try:
            workflow.require_released(cohort)
            state = "released"
        except workflow.WorkflowError:
            state = "not released"
        lines += [
            f"{cohort.name}: course {cohort.course_id}, due {cohort.due_text()}, {state}",
            f"  root {cohort.root}",
            f"  exchange {cohort.exchange} (the Exchange.root of its students' nbgrader_config.py)",
        ]
    return lines


def run(args: argparse.Namespace) -> int:
    try:
        if args.step == "list":
            lines = list_cohorts(args.config)
            print("\n".join(lines))
            return 0
        cohort = get_cohort(args.cohort, args.config)
        if args.step == "release":
            lines = workflow.release(cohort)
        elif args.step == "collect":
            lines = workflow.collect(cohort, args.zip)
        elif args.step == "grade":
            summary = workflow.grade(cohort, options_from(args))
            late = sum(r.late for r in summary.results)
            lines = [f"{summary_line(summary)}; {late} late", f"grades: {summary.csv_path}"]
        elif args.step == "feedback":
            lines = [f"{len(workflow.feedback(cohort))} feedback reports in {cohort.root / 'feedback'}"]
        else:
            files = workflow.export(cohort)
            lines = [f"grades: {files.grades}", f"nbgrader export: {files.nbgrader}",
                     f"summary: {files.summary}", "", files.summary.read_text()]
    except workflow.NothingToCollect as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except (CohortConfigError, workflow.WorkflowError, IsolationError, UidLeaseError,
            GradebookError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0
