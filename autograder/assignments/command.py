"""List the assignment bundles this grader can see: each one's name, parts and points, and
where it comes from (the package, or a folder named with --assignments DIR or in
AUTOGRADER_ASSIGNMENTS). A folder's bundle of a packaged name is the one graded.

    python -m autograder assignments
    python -m autograder assignments --assignments course/assignments

A bundle whose spec cannot be read is listed with its problem, and the exit status is 1.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from autograder.assignments.registry import FOLDERS_VARIABLE, PACKAGED, Found, available
from autograder.spec import SPEC_FILE, SpecError, load_spec


@dataclass(frozen=True)
class Listed:
    """One line of the listing: a bundle, what it grades (or why it cannot), its origin."""

    name: str
    grades: str  # "15 parts, 100 points" or the spec's problem
    origin: str  # "package" or the folder it is in
    readable: bool
    hides_package: bool = False  # a folder's bundle with a packaged bundle's name


def describe(found: Found) -> Listed:
    """``found``'s line, from its spec alone (no bundle code is imported)."""
    hides = found.origin != "package" and (PACKAGED / found.name / SPEC_FILE).is_file()
    try:
        spec = load_spec(found.root / SPEC_FILE)
    except SpecError as error:
        return Listed(found.name, f"cannot be read: {error}", found.origin, False, hides)
    parts = len(spec.parts)
    grades = f"{parts} part{'s' * (parts != 1)}, {spec.total_points} points"
    return Listed(found.name, grades, found.origin, True, hides)


def listing(folders: Iterable[Path | str] = ()) -> list[Listed]:
    """Every bundle the registry would grade, in name order."""
    return [describe(found) for found in available(folders)]


def render(rows: list[Listed]) -> str:
    """Aligned columns: name, parts and points, origin (an unreadable spec: its problem)."""
    if not rows:
        return "no assignment bundles (add a folder of them with --assignments DIR)"
    name_width = max(len(row.name) for row in rows)
    grades_width = max((len(row.grades) for row in rows if row.readable), default=0)
    lines = []
    for row in rows:
        origin = row.origin + (" (in place of the package's)" if row.hides_package else "")
        if row.readable:
            lines.append(f"{row.name:<{name_width}}  {row.grades:<{grades_width}}  {origin}")
        else:
            lines.append(f"{row.name:<{name_width}}  {origin}: {row.grades}")
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--assignments", metavar="DIR", type=Path, action="append", default=[],
        help=f"a folder of assignment bundles besides the package's (repeatable; also "
             f"{FOLDERS_VARIABLE}, separated by ':')")


def run(args: argparse.Namespace) -> int:
    rows = listing(args.assignments)  # a folder that does not exist: one line (autograder.cli)
    print(render(rows))
    return 0 if all(row.readable for row in rows) else 1
