"""The assignment argument every command shares: a bundle's name, and where else to look.

    add_assignment_arguments(parser)          # ASSIGNMENT (positional) and --assignments DIR
    assignment = assignment_from(args)        # the Assignment; UnknownAssignment is one line
"""

from __future__ import annotations

import argparse
from pathlib import Path

from autograder.assignments.bundle import Assignment
from autograder.assignments.registry import FOLDERS_VARIABLE, load_assignment


def add_assignment_arguments(parser: argparse.ArgumentParser, *, positional: bool = True,
                             default: str | None = None) -> None:
    """``ASSIGNMENT`` (or ``--assignment`` when not ``positional``) and ``--assignments``."""
    help_text = ("the assignment: a bundle's name (`python -m autograder assignments` lists them)"
                 + (f"; default: {default}" if default else ""))
    if positional:
        parser.add_argument("assignment", metavar="ASSIGNMENT", nargs="?" if default else None,
                            default=default, help=help_text)
    else:
        parser.add_argument("--assignment", metavar="NAME", default=default,
                            required=default is None, help=help_text)
    parser.add_argument(
        "--assignments", metavar="DIR", type=Path, action="append", default=[],
        help=f"a folder of assignment bundles besides the package's (repeatable; also "
             f"{FOLDERS_VARIABLE}, separated by ':')")


def assignment_from(args: argparse.Namespace) -> Assignment:
    """The assignment ``args`` name, found in the package or the named folders."""
    return load_assignment(args.assignment, getattr(args, "assignments", None) or ())
