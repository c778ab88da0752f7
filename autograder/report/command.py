"""Write the instructor's report of a graded course root (after `autograde`).

One self-contained page, report/report.html (plots inline, no script, no network:
it opens from disk), and the same figures as CSV beside it:
  score histogram and per-part distribution   scores.csv
  item analysis of every hidden check         items.csv
  misconceptions, counted once per student    misconceptions.csv
  needs-review, ungradable, grader errors     review.csv
  late submissions and submission times       submission_times.csv
  similar pairs of own code, copied evidence  similarity.csv, evidence_copies.csv

It reads results.json, grades.csv and (for similarity) the submitted notebooks
and evidence files as data; it runs no student code and changes no grade.

examples:
  python -m autograder report --root ~/courses/dl-2026-fall-a
  python -m autograder report h2_attention --root course/demo --out /tmp/report
  python -m autograder cohort report fall-a      (the same for a cohort of cohorts.toml)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograder.batch.command import one_line_errors
from autograder.results.wording import plural
from autograder.spec import SPEC


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    one_line_errors(parser)
    parser.add_argument(
        "assignment", nargs="?", default=SPEC.name, choices=[SPEC.name],
        help="assignment name (default: %(default)s; the one this grader knows)"
    )
    parser.add_argument("--root", type=Path, default=Path.cwd(),
                        help="graded nbgrader course root (default: the current directory)")
    parser.add_argument("--cohort", help="cohort the evidence inputs were derived from, as "
                        "given to autograde (default: the cohort each evidence file names)")
    parser.add_argument("--out", type=Path, metavar="DIR",
                        help="folder for report.html and the CSVs (default: ROOT/report)")


def report_lines(root: Path, assignment: str, cohort: str | None, out: Path | None) -> list[str]:
    """Write the report; the lines to print (``ReportError`` when nothing was graded)."""
    from autograder.report.build import REPORT_DIR, build_report, save_report
    from autograder.report.loading import load_course

    report = build_report(load_course(root, assignment), cohort)
    files = save_report(report, out if out is not None else root / REPORT_DIR)
    found = report.similarity
    return [
        f"report: {files.html}",
        f"figures: {plural(len(files.csv), 'CSV file')} in {files.html.parent}",
        f"{plural(report.counts['students'], 'student')}: {report.counts['needs_review']} to "
        f"review, {report.counts['late']} late, {plural(len(report.misconceptions), 'misconception')} "
        f"diagnosed; {plural(len(found.flagged), 'similar pair')} and "
        f"{plural(len(found.copies), 'evidence file')} with another student's inputs flagged "
        "for a person (no grade changed)",
    ]


def run(args: argparse.Namespace) -> int:
    from autograder.report.loading import ReportError

    try:
        lines = report_lines(args.root.resolve(), args.assignment, args.cohort, args.out)
    except ReportError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"error: cannot write the report: {error.strerror or error} "
              f"({error.filename or args.out or args.root}); pass --out <a writable folder>",
              file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0
