"""Gradescope: build the autograder zip an instructor uploads, for one assignment.

`gradescope build ASSIGNMENT` writes autograder.zip: setup.sh (installs pyproject.toml's
pinned dependencies and CPU-only torch into Gradescope's image, nothing else),
run_autograder (grades one submission of ASSIGNMENT with `run-autograder` and writes
Gradescope's results.json), the grader's engine and that assignment's bundle (named in
the zip's gradescope_assignment.json). ASSIGNMENT is a bundle's name (`python -m
autograder assignments` lists them; --assignments DIR adds a folder of your own); without
it, the one assignment there is. Upload the zip under the assignment's "Configure
Autograder"; choose a base image with Python 3.11 or later (Ubuntu 24.04). Students
upload the assignment's notebook (and its evidence file, if it has one); their Gradescope
student id (sid, else email) decides any per-student inputs, so it must be the STUDENT_ID
their notebook used.

examples:
  python -m autograder gradescope build
  python -m autograder gradescope build ASSIGNMENT --out dist --cohort dl-2026-fall-a
  python -m autograder gradescope build hw3 --assignments ~/course/bundles
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.assignments.arguments import add_assignment_arguments, only_assignment
from autograder.batch.command import one_line_errors

if TYPE_CHECKING:
    from autograder.assignments import Assignment



def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    one_line_errors(parser)
    steps = parser.add_subparsers(dest="step", metavar="STEP", required=True)
    build = steps.add_parser(
        "build", help="write autograder.zip (setup.sh, run_autograder, the grader)",
        description="Write autograder.zip for Gradescope's \"Configure Autograder\" page.")
    one_line_errors(build)
    add_assignment_arguments(build, optional=True)
    build.add_argument("--out", type=Path, default=Path.cwd(), metavar="DIR",
                       help="folder to write autograder.zip into (default: the current one)")
    build.add_argument("--cohort", help="cohort whose evidence inputs students were given "
                       "(named in their release by `cohort release`), if any")
    build.add_argument("--allow-weaker-isolation", action="store_true",
                       help="grade even where Gradescope's container cannot give the sandbox "
                       "full isolation (recorded in every result); without it such a "
                       "submission fails with the reason in the autograder's output")


def chosen_assignment(args: argparse.Namespace) -> Assignment:
    """The assignment named, else the one there is (a ``SpecError`` naming the choices)."""
    return only_assignment(args)


def run(args: argparse.Namespace) -> int:
    from autograder.integrations.gradescope.build import BuildError, build

    assignment = chosen_assignment(args)  # a SpecError is one line (autograder.cli)
    try:
        path = build(args.out, assignment, cohort=args.cohort,
                     allow_weaker=args.allow_weaker_isolation)
    except BuildError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {path} for {assignment.name}: upload it on the assignment's Configure "
          "Autograder page")
    return 0
