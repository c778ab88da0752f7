"""Copy the reference solution and the spec's points into the source notebook (instructors).

`solutions/` is the single source of truth for code, the assignment spec
(``autograder/spec/h2_attention.toml``) for points. The source notebook holds a
copy of each reference function in the solution cell whose ``grade_id`` is the
function's name, a copy of ``solutions/evidence.py`` in the locked
``evidence_helper`` cell, and each part's points on its grade cell (nbgrader
needs them there). This command rewrites those cells, copies the evidence
schema next to the notebook (students validate against it) and writes the
student's ``requirements.txt`` there from pyproject.toml's pins
(``autograder.authoring.student_env``); ``--check`` only reports drift (exit 1),
which is what the test suite does.
"""

from __future__ import annotations

import argparse
import inspect
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.authoring import student_env
from autograder.spec import SPEC
from solutions import attention, evidence, evidence_check

if TYPE_CHECKING:  # nbformat costs ~1 s to import; only the commands below need it
    import nbformat

SOURCE_NOTEBOOK = SPEC.source_notebook
EVIDENCE_CELL_ID = "evidence_helper"
EVIDENCE_CHECK_CELL_ID = "evidence_check_helper"
SCHEMA_NAME = SPEC.schema
SCHEMA = SPEC.schema_path
SHIPPED_SCHEMA = SPEC.shipped_schema
EVIDENCE_CELL_HEADER = (
    f"# Locked helper (do not edit): builds {SPEC.evidence_file} from YOUR functions above.\n"
    "# It runs them on the lecture's hand example and on inputs derived from your student id.\n"
)


def solution_cell_source(name: str) -> str:
    """The exact text the solution cell ``name`` must hold: the reference function."""
    return inspect.getsource(getattr(attention, name)).rstrip() + "\n"


def evidence_cell_source() -> str:
    """The exact text of the locked evidence cell: solutions/evidence.py minus its
    module docstring and ``__future__`` import (a notebook cell needs neither)."""
    text = inspect.getsource(evidence)
    body = text.split('"""', 2)[2].replace("from __future__ import annotations\n", "")
    return EVIDENCE_CELL_HEADER + body.strip() + "\n"


def evidence_check_cell_source() -> str:
    """The locked cell that validates the student's file against the shipped schema."""
    return (
        "# Locked helper (do not edit): checks your evidence file against the schema shipped\n"
        "# next to this notebook, as the grader's first step does.\n"
        + inspect.getsource(evidence_check.validate_evidence_file).rstrip() + "\n"
    )


def expected_sources() -> dict[str, str]:
    """grade_id -> the source text that cell must have."""
    wanted = {name: solution_cell_source(name) for name in SPEC.function_parts}
    wanted[EVIDENCE_CELL_ID] = evidence_cell_source()
    wanted[EVIDENCE_CHECK_CELL_ID] = evidence_check_cell_source()
    return wanted


def schema_drift() -> list[str]:
    """Whether the schema shipped next to the notebook is exactly schemas/'s."""
    if not SHIPPED_SCHEMA.exists() or SHIPPED_SCHEMA.read_bytes() != SCHEMA.read_bytes():
        return [f"{SHIPPED_SCHEMA.name} next to the notebook differs from schemas/ "
                "(run: python -m autograder sync-solutions)"]
    return []


def grade_id(cell: nbformat.NotebookNode) -> str | None:
    """The cell's nbgrader ``grade_id``, or None for a plain cell."""
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def expected_points() -> dict[str, int]:
    """grade_id of each grade cell -> the points the spec gives its part."""
    return {part.grade_cell: part.points for part in SPEC.parts}


def _points(cell: nbformat.NotebookNode) -> object:
    return cell.get("metadata", {}).get("nbgrader", {}).get("points")


def drift(notebook: nbformat.NotebookNode) -> list[str]:
    """Human-readable list of cells that differ from the reference or the spec (empty = in sync)."""
    wanted = expected_sources()
    points = expected_points()
    found = {grade_id(cell): cell for cell in notebook.cells if grade_id(cell)}
    problems = [f"missing cell {gid!r}" for gid in [*wanted, *points] if gid not in found]
    problems += [
        f"cell {gid!r} differs from solutions/ (run: python -m autograder sync-solutions)"
        for gid, text in wanted.items()
        if gid in found and found[gid].source.rstrip() + "\n" != text
    ]
    problems += [
        f"grade cell {gid!r} has {_points(found[gid])} points, the spec says {want} "
        "(run: python -m autograder sync-solutions)"
        for gid, want in points.items()
        if gid in found and _points(found[gid]) != want
    ]
    problems += [
        f"grade cell {gid!r} grades no part of the spec"
        for gid, cell in found.items()
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade") and gid not in points
    ]
    return problems


def sync(notebook: nbformat.NotebookNode) -> list[str]:
    """Rewrite the reference cells and grade-cell points in place; returns the grade_ids
    that changed."""
    wanted = expected_sources()
    points = expected_points()
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
    parser.add_argument(
        "--notebook",
        type=Path,
        default=SOURCE_NOTEBOOK,
        help="source notebook to update (default: %(default)s)",
    )
    parser.add_argument(
        "--check", action="store_true", help="only report drift; exit 1 if any cell differs"
    )


def run(args: argparse.Namespace) -> int:
    import nbformat

    from autograder.grading.check_points import require_consistent_spec

    require_consistent_spec()  # before a point is copied (a SpecError is one line: autograder.cli)
    notebook = nbformat.read(args.notebook, as_version=4)
    if args.check:
        problems = drift(notebook) + schema_drift() + student_env.drift()
        for line in problems:
            print(line)
        print("in sync" if not problems else f"{len(problems)} cell(s) or file(s) out of sync")
        return 1 if problems else 0
    changed = sync(notebook)
    if changed:
        nbformat.write(notebook, args.notebook)
    if schema_drift():
        SHIPPED_SCHEMA.write_bytes(SCHEMA.read_bytes())
        changed.append(SCHEMA_NAME)
    try:
        if student_env.write():
            changed.append(student_env.REQUIREMENTS_NAME)
    except student_env.StudentEnvError as error:
        print(f"cannot write {student_env.REQUIREMENTS_NAME}: {error}")
        return 1
    missing = [p for p in drift(notebook) if p.startswith("missing") or "grades no part" in p]
    print(f"updated {len(changed)} cell(s) or file(s): {', '.join(changed) or 'none'}")
    for line in missing:
        print(line)
    return 1 if missing else 0
