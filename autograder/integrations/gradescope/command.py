"""Gradescope: build the autograder zip an instructor uploads, for one assignment.

`gradescope build ASSIGNMENT` writes autograder.zip: setup.sh (installs Ubuntu's Python
3.11 when the image has no 3.11+, then pyproject.toml's pinned dependencies, with CPU-only
torch where the assignment preloads it and no torch where it does not, into a virtual
environment of its own, nothing else),
run_autograder (grades one submission of ASSIGNMENT with `run-autograder` and writes
Gradescope's results.json), the grader's engine and that assignment's bundle (named in
the zip's gradescope_assignment.json). ASSIGNMENT is a bundle's name (`python -m
autograder assignments` lists them; --assignments DIR adds a folder of your own); without
it, the one assignment there is. Upload the zip under the assignment's "Configure
Autograder" (setup.sh installs Python 3.11 on the default Ubuntu 22.04 image, or says to
choose Ubuntu 24.04). Students upload the assignment's notebook (and its evidence file,
if it has one), at the top or in one folder. Their student id decides any per-student
inputs, so it must be the STUDENT_ID their notebook used: Gradescope's sid when the course
has student ids, else what --student-id (email, or the part before the @) or --roster
(a CSV of Email and SID) maps; with none, each submission is flagged for a person.
--late-policy applies the course's late policy to Gradescope's submission time.
--hidden-visibility says when students see the hidden checks' results (each check's name,
points and diagnosis, and the total): after_due_date (the default), after_published,
hidden (staff only) or visible (at once, which lets a student resubmit until every hidden
check passes). Whether the notebook could be graded, and why not, shows at once whatever
is chosen.

examples:
  python -m autograder gradescope build
  python -m autograder gradescope build ASSIGNMENT --out dist --cohort dl-2026-fall-a
  python -m autograder gradescope build hw3 --assignments ~/course/bundles
  python -m autograder gradescope build --student-id email-local --late-policy "10%/day, cap 50%"
  python -m autograder gradescope build --roster roster.csv
  python -m autograder gradescope build --hidden-visibility after_published
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.assignments.arguments import add_assignment_arguments, only_assignment
from autograder.batch.command import one_line_errors
from autograder.integrations.gradescope.zip_config import (
    DEFAULT_VISIBILITY,
    FALLBACKS,
    FROM_ROSTER,
    SID_ONLY,
    VISIBILITIES,
    RosterError,
    read_roster,
)
from autograder.results.late_policy import LatePolicyError, parse

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
    ids = build.add_mutually_exclusive_group()
    ids.add_argument("--student-id", choices=FALLBACKS, metavar="{email,email-local}",
                     help="where a student's id comes from when Gradescope gives no sid: the "
                     "whole email, or its part before the @ (default: sid only; a submission "
                     "without one is flagged for a person)")
    ids.add_argument("--roster", type=Path, metavar="CSV",
                     help="a CSV with an Email and a student id column (SID, Student ID): "
                     "the id of a student without a sid, by email (copied into the zip)")
    build.add_argument("--roster-id-column", metavar="NAME",
                       help="the --roster column that holds the student ids")
    build.add_argument("--late-policy", metavar="POLICY",
                       help="the course's late policy, applied to Gradescope's submission "
                       "time against the due date, e.g. '10%%/day, cap 50%%, grace 15m' "
                       "(default: none; lateness is recorded, not penalised)")
    build.add_argument("--hidden-visibility", choices=VISIBILITIES, default=DEFAULT_VISIBILITY,
                       help="when students see the hidden checks' results (names, points, "
                       "diagnoses, the total), in Gradescope's words: after the (late) due "
                       "date, after grades are published, never (staff only), or at once "
                       "(default: %(default)s); whether the notebook could be graded shows "
                       "at once")


def chosen_assignment(args: argparse.Namespace) -> Assignment:
    """The assignment named, else the one there is (a ``SpecError`` naming the choices)."""
    return only_assignment(args)


def run(args: argparse.Namespace) -> int:
    # base.wording (markupsafe, 1.3 ms), the zip's builder (12 ms): not at a command's start
    from autograder.base.wording import plural
    from autograder.integrations.gradescope.build import ZIP_NAME, BuildError, build

    assignment = chosen_assignment(args)  # a SpecError is one line (autograder.cli)
    try:
        if args.roster_id_column and not args.roster:
            raise BuildError("--roster-id-column names a column of --roster CSV: give both")
        roster = read_roster(args.roster, args.roster_id_column) if args.roster else None
        policy = parse(args.late_policy) if args.late_policy else None
        source = FROM_ROSTER if roster else (args.student_id or SID_ONLY)
        replaced = (args.out / ZIP_NAME).exists()
        path = build(args.out, assignment, cohort=args.cohort,
                     allow_weaker=args.allow_weaker_isolation, student_id=source,
                     roster=roster, late_policy=policy,
                     hidden_visibility=args.hidden_visibility)
    except (BuildError, RosterError, LatePolicyError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    ids = {SID_ONLY: "sid only (none: flagged for a person)",
           FROM_ROSTER: f"sid, else the roster ({plural(len(roster or {}), 'student')})"}.get(
        source, f"sid, else {source}")
    print(f"{'replaced' if replaced else 'wrote'} {path} for {assignment.name} (student ids: {ids}; late policy: "
          f"{policy.describe() if policy else 'none'}; hidden checks' results: "
          f"{args.hidden_visibility}): upload it on the assignment's "
          "Configure Autograder page")
    return 0
