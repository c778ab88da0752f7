"""Run the course workflow for one cohort declared in cohorts.toml.

Each cohort has its own nbgrader course root (and gradebook) and its own
course id in the exchange, so grades and identical student ids never mix.

steps, in order:
  list                      the declared cohorts: due dates, roots, exchange, released?
  release COHORT            regenerate release/ if stale; release to the cohort
  collect COHORT [--zip F]  newest submissions from the exchange; LMS zip downloads
  grade COHORT              sandboxed autograde of the cohort (late ones flagged);
                            --cluster slurm grades on the [cluster] table's Slurm jobs
  feedback COHORT           reports into feedback/<student>/<assignment>/, ready for
                            `nbgrader release_feedback <assignment>` in the course root
  export COHORT             nbgrader export, grades.csv, summary.md, and canvas-grades.csv /
                            moodle-grades.csv for the LMS's gradebook import (cohorts.toml's
                            canvas_* and moodle_* keys name the columns)
  report COHORT [--out D]   the instructor's report.html: plots, item analysis, misconceptions
                            per student, review and late lists, similarity (+ CSVs)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograder.assignments import exposure
from autograder.assignments.arguments import add_assignment_arguments
from autograder.base import closed
from autograder.base.course import FEEDBACK
from autograder.batch import interrupts
from autograder.batch.cluster.choice import ClusterError
from autograder.batch.command import (
    add_grading_options,
    due_date,
    interrupted_line,
    one_line_errors,
    options_from,
    summary_line,
)
from autograder.batch.root_lock import RootBusy, hold
from autograder.integrations.cohorts import workflow
from autograder.integrations.cohorts.config import (
    CONFIG,
    Cohort,
    CohortConfigError,
    get_cohort,
    load_cohorts,
)
from autograder.publish.export import ExportFiles
from autograder.publish.export import lms_lines as export_lms_lines
from autograder.results.decisions import DecisionError
from autograder.sandbox.client import IsolationError
from autograder.sandbox.uids import UidLeaseError
from autograder.views.gradebook import GradebookError

FROM_CONFIG = "the cohort's in the cohorts file (its `assignment`, else its root's one)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    one_line_errors(parser)
    parser.add_argument("--config", type=Path, default=CONFIG,
                        help="cohorts file (default: %(default)s)")
    steps = parser.add_subparsers(dest="step", metavar="STEP", required=True)
    listed = steps.add_parser("list", help="the declared cohorts")
    one_line_errors(listed)
    _config_after_the_step(listed)
    add_assignment_arguments(listed, positional=False, optional=True, when_left_out=FROM_CONFIG)
    for name, help_text in [
        ("release", "regenerate release/ if stale, then release it to the cohort"),
        ("collect", "collect submissions (exchange, and LMS zips with --zip)"),
        ("grade", "grade the cohort's submissions (sandboxed, parallel, resumable)"),
        ("feedback", "write each student's report into feedback/ (for nbgrader "
                     "release_feedback, or an LMS upload)"),
        ("export", "nbgrader export, grades.csv, a summary of what to re-teach, and grade "
                   "files for Canvas's and Moodle's gradebook import"),
        ("report", "the instructor's report (report/report.html and CSVs) of a graded cohort"),
    ]:
        step = steps.add_parser(name, help=help_text, description=help_text)
        one_line_errors(step)
        _config_after_the_step(step)
        step.add_argument("cohort", help="cohort name from the cohorts file")
        add_assignment_arguments(step, positional=False, optional=True,
                                 when_left_out=FROM_CONFIG)
        if name == "collect":
            step.add_argument("--zip", type=Path, action="append", default=[], metavar="FILE",
                              help="an LMS download (zip); files named <student>__<file>")
            step.add_argument("--received", type=due_date, metavar="TIME",
                              help="when the LMS received the --zip submissions, with a zone "
                              "('2026-12-14 23:00 UTC'); without it, the zip's own file times "
                              "where it records them in UTC")
        if name == "grade":
            add_grading_options(step)
        if name == "report":
            step.add_argument("--out", type=Path, metavar="DIR",
                              help="folder for report.html and the CSVs (default: the "
                              "cohort's course root/report)")


def _config_after_the_step(parser: argparse.ArgumentParser) -> None:
    """``cohort release fall-a --config FILE``, as TAs type it: ``--config`` after the step
    too (left out there, the one given before the step, or the default, stands)."""
    parser.add_argument("--config", type=Path, default=argparse.SUPPRESS,
                        help="cohorts file (also before the step)")


def _chosen(args: argparse.Namespace) -> dict[str, object]:
    """``load_cohorts``'s ``assignment`` and ``folders`` from the command line."""
    named = getattr(args, "assignment", None)
    return {"assignment": named or None,
            "folders": getattr(args, "assignments", None) or ()}


def list_cohorts(config: Path, **chosen: object) -> list[str]:
    """Each declared cohort: its assignment, course id, due date with its zone, whether it
    was released, its course root and the exchange its students must use."""
    lines = []
    for cohort in load_cohorts(config, **chosen).values():
        try:
            workflow.require_released(cohort)
            state = "released"
        except workflow.WorkflowError:
            state = "not released"
        lines += [
            f"{cohort.name}: {cohort.assignment}, course {cohort.course_id}, due "
            f"{cohort.due_text()}, {state}",
            f"  root {cohort.root}",
            f"  exchange {cohort.exchange} (the Exchange.root of its students' nbgrader_config.py)"
            if cohort.exchange is not None else
            "  no exchange (LMS only: its submissions come in with `collect --zip`)",
        ]
    return lines


def lms_lines(cohort: Cohort, files: ExportFiles) -> list[str]:
    """Where the LMS files are, how to import them, and who is not in them (and why)."""
    return export_lms_lines(cohort.canvas, cohort.moodle, files)


def run(args: argparse.Namespace) -> int:
    """One step; Ctrl-C while grading ends with one line saying how to resume."""
    try:
        return _run(args)
    except KeyboardInterrupt as error:  # Ctrl-C, SIGTERM, SIGHUP
        if args.step != "grade":
            raise  # autograder.cli's line
        print(interrupted_line(args.force, error), file=sys.stderr)
        return interrupts.exit_status(error)


def summary_counts(cohort: Cohort) -> str:
    """summary.md's one line of counts (the file says the rest: averages, misconceptions)."""
    # report.summary (440 ms): only for the export step
    from autograder.base.course import Course
    from autograder.report.summary import counts_line
    from autograder.results.result import saved_results

    return counts_line(saved_results(Course(cohort.root, cohort.assignment)))


def said_when_interrupted(args: argparse.Namespace) -> str:
    """Ctrl-C in a step that grades nothing (``grade`` says its own): that step's words."""
    return (f"interrupted: `cohort {args.step}` stopped before it finished; nothing was "
            "graded; run the same command again to finish it")


def _run(args: argparse.Namespace) -> int:
    try:
        if args.step == "list":
            lines = list_cohorts(args.config, **_chosen(args))
            print("\n".join(lines))
            return 0
        cohort = get_cohort(args.cohort, args.config, **_chosen(args))
        opened = closed.open_root_line(cohort.root)
        if opened:
            print(f"warning: {opened}", file=sys.stderr)
        if args.step in ("release", "collect", "grade"):  # a course running: students near
            exposure.warn_once(cohort.bundle())
        if args.step == "release":
            lines = workflow.release(cohort)
        elif args.step == "collect":
            lines = workflow.collect(cohort, args.zip, args.received)
        elif args.step == "grade":
            summary = workflow.grade(cohort, options_from(args),
                                     say=lambda line: print(line, flush=True))
            lines = [summary_line(summary), f"grades: {summary.csv_path}"]
        elif args.step == "feedback":
            lines = [f"{len(workflow.feedback(cohort))} feedback reports in "
                     f"{cohort.root / FEEDBACK}",
                     f"release them: cd {cohort.root} && nbgrader release_feedback "
                     f"{cohort.assignment}; students then run `nbgrader fetch_feedback "
                     f"{cohort.assignment} --course={cohort.course_id}`"]
        elif args.step == "report":
            # the report (matplotlib, 380 ms): only for the report step
            from autograder.report import ReportError
            from autograder.report.command import report_lines

            course = workflow.require_graded(cohort)  # one line when it was never graded
            try:
                with hold(course.root):  # never beside a grading run
                    lines = report_lines(course.root, cohort.bundle(), cohort.name, args.out)
            except ReportError as error:
                raise workflow.WorkflowError(str(error)) from None
        else:
            files = workflow.export(cohort)
            lines = [f"grades: {files.grades}", f"nbgrader export: {files.nbgrader}",
                     *lms_lines(cohort, files), f"summary: {files.summary} (what to re-teach)",
                     f"  {summary_counts(cohort)}"]
    except workflow.NothingToCollect as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except (CohortConfigError, workflow.WorkflowError, IsolationError, UidLeaseError,
            GradebookError, ClusterError, RootBusy, DecisionError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    if args.step == "grade" and summary.unpublished:  # a copy left stale (said above)
        return 1
    return 0
