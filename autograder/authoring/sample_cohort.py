"""Build an assignment's sample cohort in an nbgrader course root (the demo, tests, benchmarks).

    python -m autograder.authoring.sample_cohort ASSIGNMENT ROOT [--size N] [--cohort NAME]

A bundle that ships a sample cohort has a ``samples`` module (or package) providing
``build_sample_cohort(root, size=None, cohort=None) -> dict[str, str]``: it writes
``submitted/<student>/<assignment>/`` for each sample student (correct, buggy, broken,
hostile...) and returns student id -> what the student is. This module holds what any
such builder needs, read from the installed package alone (the release notebook the
grader reads, the reference, the bundle's own sample files), never from a checkout, so
the demo builds after ``pip install .`` too. Nothing here is shipped to students.
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import shutil
import sys
import tokenize
from collections.abc import Callable, Collection
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.assignments import hook_modules
from autograder.assignments.arguments import add_assignment_arguments, assignment_from
from autograder.authoring.sync import grade_id, solution_cell_source
from autograder.base import closed
from autograder.base.course import SUBMITTED, TIMESTAMP_TXT, Course
from autograder.cli import Parser  # a usage mistake is one line, as in every command
from autograder.spec import SpecError

if TYPE_CHECKING:
    import nbformat

    from autograder.assignments.bundle import Assignment

SAMPLES = hook_modules.SAMPLES.name
"""The bundle's module that builds its sample cohort (``plugins.SampleCohort``)."""
SOLUTION_MARKER = re.compile(r"^[ \t]*### (BEGIN|END) SOLUTION[ \t]*\n?", flags=re.M)


class NoSamples(SpecError):
    """The assignment ships no sample cohort: one line (``autograder.cli``-style)."""


# ------------------------------------------------------------ notebooks


def set_cell(notebook: nbformat.NotebookNode, gid: str, transform: Callable[[str], str]) -> None:
    """Replace the source of the cell whose grade_id is ``gid`` by ``transform(source)``."""
    for cell in notebook.cells:
        if grade_id(cell) == gid:
            cell.source = transform(cell.source)
            return
    raise KeyError(gid)


def reference_cell(assignment: Assignment, name: str) -> str:
    """The reference's function ``name`` as its solution cell holds it in the source
    notebook (``sync-solutions`` keeps them equal), without nbgrader's solution markers:
    what a student who wrote the reference would submit."""
    return SOLUTION_MARKER.sub("", solution_cell_source(assignment, name).rstrip("\n"))


def reference_notebook(assignment: Assignment) -> nbformat.NotebookNode:
    """The release notebook (what students really get) with every function part's stub
    filled in from the reference."""
    # nbformat (70 ms) imports jsonschema: after prepare_process (the __main__ block)
    import nbformat

    notebook = nbformat.read(assignment.grader_release_notebook, as_version=4)
    functions = set(assignment.function_parts)
    for cell in notebook.cells:
        gid = grade_id(cell)
        if cell.metadata.get("nbgrader", {}).get("solution") and gid in functions:
            cell.source = reference_cell(assignment, gid)
    return notebook


def function_sources(path: Path, names: Collection[str]) -> dict[str, str]:
    """The top-level functions ``names`` of the Python file ``path``, as written there
    (a sample student's own solution, kept as a file of the bundle)."""
    text = path.read_text(encoding="utf-8")
    functions = {node.name: ast.get_source_segment(text, node) or ""
                 for node in ast.parse(text).body if isinstance(node, ast.FunctionDef)}
    missing = [name for name in names if name not in functions]
    if missing:
        raise KeyError(f"{path} defines no {', '.join(missing)}")
    return {name: functions[name] for name in names}


def renamed_copy(source: str, note: str) -> str:
    """A copier's version of one function: its local variables renamed (parameters and
    keyword arguments kept: the checks pass them by keyword; names an f-string quotes kept
    too), every comment replaced by ``note`` at the top of the body, the layout otherwise as
    it was."""
    (function,) = ast.parse(source).body
    assert isinstance(function, ast.FunctionDef)
    arguments = {node.arg for node in ast.walk(function) if isinstance(node, ast.arg)}
    taken = arguments | {node.id for node in ast.walk(function) if isinstance(node, ast.Name)}
    # Names inside f-strings stay: before Python 3.12 an f-string is one token.
    quoted = {node.id for text in ast.walk(function) if isinstance(text, ast.JoinedStr)
              for node in ast.walk(text) if isinstance(node, ast.Name)}
    local = sorted({node.id for node in ast.walk(function)
                    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
                   - arguments - quoted)
    names = {}
    for name in local:
        new = f"my_{name.lstrip('_')}"
        while new in taken:
            new += "_"
        names[name] = new
        taken.add(new)
    lines = source.splitlines()
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    edits = []  # (line, start column, end column, new text), applied from the end
    brackets: list[str] = []
    for index, token in enumerate(tokens):
        before = tokens[index - 1].string if index else ""
        after = tokens[index + 1].string if index + 1 < len(tokens) else ""
        if token.type == tokenize.OP and token.string in "([{":
            brackets.append(token.string)
        elif token.type == tokenize.OP and token.string in ")]}" and brackets:
            brackets.pop()
        keyword_argument = (brackets[-1:] == ["("] and after == "=" and before in ("(", ","))
        if token.type == tokenize.COMMENT:
            edits.append((token.start[0], token.start[1], token.end[1], ""))
        elif (token.type == tokenize.NAME and token.string in names and before != "."
              and not keyword_argument):
            edits.append((token.start[0], token.start[1], token.end[1], names[token.string]))
    for row, first, last, text in sorted(edits, reverse=True):
        lines[row - 1] = lines[row - 1][:first] + text + lines[row - 1][last:]
    body = function.body[0].lineno - 1  # the note goes before the first statement
    return "\n".join([*lines[:body], f"    # {note}", *(line.rstrip() for line in lines[body:])])


# ------------------------------------------------------------ the course root


def timestamp_text(moment: datetime) -> str:
    """A time as nbgrader writes it in ``timestamp.txt``."""
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M:%S.%f} UTC"


def submission_folder(root: Path, student: str, assignment: Assignment) -> Path:
    """``submitted/<student>/<assignment>/`` in ``root``, created empty."""
    folder = Course(root, assignment.name).submitted(student)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


def write_timestamp(folder: Path, moment: datetime) -> None:
    """The ``timestamp.txt`` ``nbgrader collect`` writes beside a submission."""
    (folder / TIMESTAMP_TXT).write_text(timestamp_text(moment) + "\n")


def copy_source(assignment: Assignment, root: Path) -> None:
    """``source/<assignment>/`` in ``root`` for nbgrader's instructor views, from this
    checkout's when it has one (an installed grader has none; grading does not need it)."""
    target = Course(root, assignment.name).source_dir
    if not target.exists() and assignment.source_dir.is_dir():
        shutil.copytree(assignment.source_dir, target)


# ------------------------------------------------------------ the command


def has_samples(assignment: Assignment) -> bool:
    """Whether the bundle ships a sample cohort."""
    return hook_modules.bundle_has(assignment.root, SAMPLES)


def build(assignment: Assignment, root: Path, size: int | None = None,
          cohort: str | None = None) -> dict[str, str]:
    """The bundle's sample cohort in ``root``: student id -> what the student is."""
    if not has_samples(assignment):
        raise NoSamples(f"assignment {assignment.name!r} ships no sample cohort (no "
                        f"{SAMPLES}/ in {assignment.root})")
    samples = hook_modules.load(assignment, hook_modules.SAMPLES)
    closed.make_root(root)  # as a real course's: other users of the machine never enter it
    return dict(samples.call("build_sample_cohort", root, size, cohort))


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="python -m autograder.authoring.sample_cohort", description=__doc__,
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    add_assignment_arguments(parser)
    parser.add_argument("root", type=Path, help="course root to create or refresh")
    parser.add_argument("--size", type=int,
                        help="number of submissions (default: one per kind of sample student)")
    parser.add_argument("--cohort", help="cohort the evidence files are made for (pass the same "
                        "to autograde)")
    args = parser.parse_args(argv)
    try:
        roster = build(assignment_from(args), args.root, args.size, args.cohort)
    except SpecError as error:  # an unknown assignment, or one without samples: one line
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"{len(roster)} sample submissions in {args.root / SUBMITTED}")
    return 0


if __name__ == "__main__":
    from autograder.startup import prepare_process

    prepare_process()  # as a grader command starts (nbformat's jsonschema, fast)
    raise SystemExit(main())
