"""Write the instructor's report of a graded course root (after `autograde`).

ASSIGNMENT is the bundle graded (`python -m autograder assignments` lists them;
--assignments DIR adds a folder of your own); without it, the one assignment the course
root holds. One self-contained page, report/report.html (plots inline, no script, no network:
it opens from disk), and the same figures as CSV beside it:
  score histogram and per-part distribution   scores.csv
  item analysis of every hidden check         items.csv
  misconceptions, counted once per student    misconceptions.csv
  needs-review, ungradable, grader errors     review.csv
  late submissions and submission times       submission_times.csv
  similar pairs of own code, copied evidence  similarity.csv, evidence_copies.csv
                                              (an assignment with per-student evidence inputs)

It reads results.json, grades.csv and (for similarity) the submitted notebooks
and evidence files as data; it runs no student code and changes no grade.

examples:
  python -m autograder report --root ~/courses/dl-2026-fall-a
  python -m autograder report --root course/demo --out /tmp/report
  python -m autograder report hw3 --assignments ~/course/bundles --root ~/courses/dl
  python -m autograder cohort report fall-a      (the same for a cohort of cohorts.toml)
"""

from __future__ import annotations

import argparse
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.assignments.arguments import add_assignment_arguments, assignment_in_root
from autograder.base.wording import plural
from autograder.batch.command import one_line_errors
from autograder.batch.root_lock import RootBusy, hold
from autograder.report.build import REPORT_DIR, build_report, save_report
from autograder.report.loading import ReportError, load_course

if TYPE_CHECKING:
    from autograder.assignments import Assignment

ROOTS_ONE = "the course root's one assignment"


def add_root_assignment_arguments(parser: argparse.ArgumentParser, *,
                                  positional: bool = True) -> None:
    """``ASSIGNMENT`` (or ``--assignment``) and ``--assignments DIR``, the assignment being
    optional: ``assignment_in_root`` then takes the course root's one."""
    add_assignment_arguments(parser, positional=positional, optional=True,
                             when_left_out=ROOTS_ONE)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    one_line_errors(parser)
    add_root_assignment_arguments(parser)
    parser.add_argument("--root", type=Path, default=Path.cwd(),
                        help="graded nbgrader course root (default: the current directory)")
    parser.add_argument("--cohort", help="cohort the evidence inputs were derived from, as "
                        "given to autograde (default: the cohort each evidence file names)")
    parser.add_argument("--out", type=Path, metavar="DIR",
                        help="folder for report.html and the CSVs (default: ROOT/report)")


def report_lines(root: Path, assignment: Assignment, cohort: str | None,
                 out: Path | None) -> list[str]:
    """Write the report of ``assignment`` in ``root``; the lines to print (``ReportError``
    when nothing was graded)."""
    report = build_report(load_course(root, assignment.name), assignment, cohort)
    files = save_report(report, out if out is not None else root / REPORT_DIR)
    found = report.similarity
    copies = (f" and {plural(len(found.copies), 'evidence file')} with another student's "
              "inputs" if report.compares_inputs else "")
    return [
        f"report: {files.html}",
        f"figures: {plural(len(files.csv), 'CSV file')} in {files.html.parent}",
        f"{plural(report.counts['students'], 'student')}: {report.counts['needs_review']} to "
        f"review, {report.counts['late']} late, {plural(len(report.misconceptions), 'misconception')} "
        f"diagnosed; {plural(len(found.flagged), 'similar pair')}{copies} flagged for a person "
        "(no grade changed)",
    ]


def run(args: argparse.Namespace) -> int:
    root = args.root.resolve()
    try:
        assignment = assignment_in_root(args, root)
        with hold(root) if root.is_dir() else nullcontext():  # never beside a grading run
            lines = report_lines(root, assignment, args.cohort, args.out)
    except (ReportError, RootBusy) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"error: cannot write the report: {error.strerror or error} "
              f"({error.filename or args.out or args.root}); pass --out <a writable folder>",
              file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0
