"""Copy the reference solution and the spec's points into the source notebook (instructors).

An assignment's reference (its spec's ``reference``) is the single source of truth for
code, its spec (the bundle's ``assignment.toml``) for points. The source notebook (in the
bundle's source folder: the spec's ``source``, by default its ``source/``) holds a copy
of each reference function in the solution cell whose ``grade_id`` is the function's
name, the locked cells the bundle's optional ``authoring.py`` names (``locked_cells()``:
grade_id -> exact text, e.g. a helper copied from the reference), and each part's points
on its grade cell (nbgrader needs them there). This command rewrites those cells, copies
the evidence schema (the bundle's ``data/`` copy) next to the notebook when the
assignment has one (students validate against it) and writes the student's
``requirements.txt`` there from pyproject.toml's pins
(``autograder.authoring.student_env``); ``--check`` only reports drift (exit 1), which
is what the test suite does.
"""

from __future__ import annotations

import argparse
import inspect
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.assignments import hook_modules
from autograder.authoring import student_env
from autograder.authoring.authored import add_authoring_arguments, authoring_assignment

if TYPE_CHECKING:  # nbformat costs ~1 s to import; only the commands below need it
    import nbformat

    from autograder.assignments.bundle import Assignment

AUTHORING_HOOKS = hook_modules.AUTHORING.name
"""The bundle's optional module of authoring hooks (``plugins.AuthoringHooks``)."""


def fix_command(assignment: Assignment) -> str:
    """The command that repairs drift, as the drift lines print it."""
    return f"run: python -m autograder sync-solutions {assignment.name}"


def solution_cell_source(assignment: Assignment, name: str) -> str:
    """The exact text the solution cell ``name`` must hold: the reference function."""
    return inspect.getsource(getattr(assignment.reference, name)).rstrip() + "\n"


def locked_cell_sources(assignment: Assignment) -> dict[str, str]:
    """grade_id -> text of the locked cells the bundle's ``authoring.locked_cells`` names
    (checked: a mapping of str to str)."""
    hooks = hook_modules.load(assignment, hook_modules.AUTHORING)
    return dict(hooks.call("locked_cells")) if hooks.get("locked_cells") is not None else {}


def expected_sources(assignment: Assignment) -> dict[str, str]:
    """grade_id -> the source text that cell must have."""
    wanted = {name: solution_cell_source(assignment, name) for name in assignment.function_parts}
    wanted.update(locked_cell_sources(assignment))
    return wanted


def schema_drift(assignment: Assignment, shipped: Path | None = None) -> list[str]:
    """Whether the schema shipped next to the notebook is exactly the bundle's (its data/
    copy; nothing to compare for an assignment without an evidence file)."""
    if not assignment.spec.schema:
        return []
    shipped = shipped or assignment.shipped_schema
    if not shipped.exists() or shipped.read_bytes() != assignment.schema_path.read_bytes():
        return [f"{shipped.name} next to the notebook differs from the bundle's "
                f"{assignment.schema_path} ({fix_command(assignment)})"]
    return []


def grade_id(cell: nbformat.NotebookNode) -> str | None:
    """The cell's nbgrader ``grade_id``, or None for a plain cell."""
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def expected_points(assignment: Assignment) -> dict[str, int]:
    """grade_id of each grade cell -> the points the spec gives its part."""
    return {part.grade_cell: part.points for part in assignment.parts}


def _points(cell: nbformat.NotebookNode) -> object:
    return cell.get("metadata", {}).get("nbgrader", {}).get("points")


def drift(notebook: nbformat.NotebookNode, assignment: Assignment) -> list[str]:
    """Human-readable list of cells that differ from the reference or the spec (empty = in sync)."""
    wanted = expected_sources(assignment)
    points = expected_points(assignment)
    fix = fix_command(assignment)
    reference = assignment.spec.reference.partition(".")[0]
    found = {grade_id(cell): cell for cell in notebook.cells if grade_id(cell)}
    problems = [f"missing cell {gid!r}" for gid in [*wanted, *points] if gid not in found]
    problems += [
        f"cell {gid!r} differs from {reference}/ ({fix})"
        for gid, text in wanted.items()
        if gid in found and found[gid].source.rstrip() + "\n" != text
    ]
    problems += [
        f"grade cell {gid!r} has {_points(found[gid])} points, the spec says {want} ({fix})"
        for gid, want in points.items()
        if gid in found and _points(found[gid]) != want
    ]
    problems += [
        f"grade cell {gid!r} grades no part of the spec"
        for gid, cell in found.items()
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade") and gid not in points
    ]
    return problems


def sync(notebook: nbformat.NotebookNode, assignment: Assignment) -> list[str]:
    """Rewrite the reference cells and grade-cell points in place; returns the grade_ids
    that changed."""
    wanted = expected_sources(assignment)
    points = expected_points(assignment)
    changed = []
    for cell in notebook.cells:
        gid = grade_id(cell)
        if gid in wanted and cell.source.rstrip() + "\n" != wanted[gid]:
            cell.source = wanted[gid].rstrip("\n")
            changed.append(gid)
        if gid in points and _points(cell) != points[gid]:
            cell.metadata["nbgrader"]["points"] = points[gid]
            changed.append(gid)
    return changed


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_authoring_arguments(parser)
    parser.add_argument(
        "--notebook",
        type=Path,
        help="source notebook to update (default: the one in the bundle's source folder)",
    )
    parser.add_argument(
        "--check", action="store_true", help="only report drift; exit 1 if any cell differs"
    )


def run(args: argparse.Namespace) -> int:
    # nbformat (70 ms) and pytest, via the checks' runner (110 ms): not at a command's start
    import nbformat

    from autograder.grading.runner import require_consistent_spec

    assignment = authoring_assignment(args)  # one line if unknown or without a source folder
    require_consistent_spec(assignment)  # before a point is copied (one line: autograder.cli)
    path = args.notebook or assignment.source_notebook
    notebook = nbformat.read(path, as_version=4)
    if args.check:
        problems = (drift(notebook, assignment) + schema_drift(assignment)
                    + student_env.drift(assignment))
        for line in problems:
            print(line)
        print("in sync" if not problems else f"{len(problems)} cell(s) or file(s) out of sync")
        return 1 if problems else 0
    changed = sync(notebook, assignment)
    if changed:
        nbformat.write(notebook, path)
    if schema_drift(assignment):
        assignment.shipped_schema.write_bytes(assignment.schema_path.read_bytes())
        changed.append(assignment.spec.schema)
    try:
        if student_env.write(assignment):
            changed.append(student_env.REQUIREMENTS_NAME)
    except student_env.StudentEnvError as error:
        print(f"cannot write {student_env.REQUIREMENTS_NAME}: {error}")
        return 1
    missing = [p for p in drift(notebook, assignment)
               if p.startswith("missing") or "grades no part" in p]
    print(f"updated {len(changed)} cell(s) or file(s): {', '.join(changed) or 'none'}")
    for line in missing:
        print(line)
    return 1 if missing else 0
