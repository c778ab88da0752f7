"""Check evidence files as the grader does: ``verify-evidence [ASSIGNMENT] FILE ...``.

The assignment's evidence plugin checks each file on its own (its schema, its numbers
recomputed, the limitation written in it) and this prints a readable report per file, or
JSON with --json. ASSIGNMENT (or --assignment NAME) may be left out when exactly one
assignment here has an evidence file. Exit status: 0 when every file is ok, 1 when one is
invalid, 2 when one is missing or unreadable, or when the assignment has no evidence file.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from autograder.assignments.arguments import add_assignment_arguments
from autograder.assignments.bundle import Assignment
from autograder.assignments.registry import available, load_assignment


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``python -m autograder verify-evidence``."""
    parser.usage = "%(prog)s [ASSIGNMENT] FILE [FILE ...] [options]"
    parser.add_argument(
        "files", nargs="+", metavar="FILE",
        help="the evidence file(s) to check, after the assignment's name (ASSIGNMENT) when it "
             "is not the only one with an evidence file")
    add_assignment_arguments(parser, positional=False, optional=True,
                             when_left_out="the one assignment with an evidence file")
    parser.add_argument("--student-id", help="the student the file must belong to")
    parser.add_argument("--cohort", help="the student's cohort (part of the input seed)")
    parser.add_argument("--json", action="store_true",
                        help="print the report as JSON (an object, or a list for several files)")


class _Refused(Exception):
    """What makes the command stop before any file is checked: one line."""


def _with_evidence(folders: list[Path]) -> list[Assignment]:
    loaded = (load_assignment(found.name, folders) for found in available(folders))
    return [assignment for assignment in loaded if assignment.evidence_part is not None]


def assignment_and_files(args: argparse.Namespace) -> tuple[Assignment, list[str]]:
    """The assignment the files belong to (``--assignment``, a leading ASSIGNMENT that is
    not a file, or the only assignment with an evidence file) and the files."""
    files, folders = list(args.files), list(args.assignments or ())
    name = args.assignment
    if not name and files and not Path(files[0]).is_file() and files[0] in {
            found.name for found in available(folders)}:
        name = files.pop(0)
    if not files:
        raise _Refused(f"name the evidence file(s) of {name} to check")
    if name:
        assignment = load_assignment(name, folders)
        if assignment.evidence is None:
            raise _Refused(f"assignment {name!r} has no evidence file: there is nothing to verify")
        return assignment, files
    candidates = _with_evidence(folders)
    if len(candidates) != 1:
        names = ", ".join(assignment.name for assignment in candidates) or "none"
        raise _Refused(f"name the assignment first (verify-evidence ASSIGNMENT FILE ...): the "
                       f"assignments with an evidence file here are {names}")
    return candidates[0], files


def run(args: argparse.Namespace) -> int:
    """Verify every file (one bad file never stops the others) and return the worst exit code."""
    try:
        assignment, files = assignment_and_files(args)
    except _Refused as refused:
        print(f"error: {refused}", file=sys.stderr)
        return 2
    plugin = assignment.evidence
    assert plugin is not None  # assignment_and_files refuses an assignment without one
    # A Path, as the contract says (EvidencePlugin.verify), never the command line's str.
    reports = [plugin.verify(Path(path), student_id=args.student_id, cohort=args.cohort)
               for path in files]
    if args.json:
        payload = [plugin.plain(report) for report in reports]
        print(json.dumps(payload[0] if len(payload) == 1 else payload, indent=2, allow_nan=False))
    else:
        print("\n\n".join(plugin.describe(report) for report in reports))
    return max(plugin.exit_code(report) for report in reports)
