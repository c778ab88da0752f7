"""Gradescope: build the autograder zip an instructor uploads.

`gradescope build` writes autograder.zip: setup.sh (installs pyproject.toml's pinned
dependencies and CPU-only torch into Gradescope's image, nothing else), run_autograder
(grades one submission with `run-autograder` and writes Gradescope's results.json) and
the grader's own code. Upload it under the assignment's "Configure Autograder"; choose a
base image with Python 3.11 or later (Ubuntu 24.04). Students upload h2_attention.ipynb
and attention_evidence.json; their Gradescope student id (sid, else email) decides the
evidence inputs, so it must be the STUDENT_ID their notebook used.

examples:
  python -m autograder gradescope build
  python -m autograder gradescope build --out dist --cohort dl-2026-fall-a
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograder.batch.command import one_line_errors


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    one_line_errors(parser)
    steps = parser.add_subparsers(dest="step", metavar="STEP", required=True)
    build = steps.add_parser(
        "build", help="write autograder.zip (setup.sh, run_autograder, the grader)",
        description="Write autograder.zip for Gradescope's \"Configure Autograder\" page.")
    one_line_errors(build)
    build.add_argument("--out", type=Path, default=Path.cwd(), metavar="DIR",
                       help="folder to write autograder.zip into (default: the current one)")
    build.add_argument("--cohort", help="cohort whose evidence inputs students were given "
                       "(named in their release by `cohort release`), if any")
    build.add_argument("--allow-weaker-isolation", action="store_true",
                       help="grade even where Gradescope's container cannot give the sandbox "
                       "full isolation (recorded in every result); without it such a "
                       "submission fails with the reason in the autograder's output")


def run(args: argparse.Namespace) -> int:
    from autograder.integrations.gradescope.build import BuildError, build

    try:
        path = build(args.out, cohort=args.cohort, allow_weaker=args.allow_weaker_isolation)
    except BuildError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {path}: upload it on the assignment's Configure Autograder page")
    return 0
