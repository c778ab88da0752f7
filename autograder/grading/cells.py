"""What each of a student's notebook cells is, decided by the release, never by the student.

A submitted notebook's cell metadata is the student's to edit: a cell can be
marked locked, lose its metadata, or claim to be a grade cell. So a cell's
role comes from the trusted side, as nbgrader's own ``OverwriteCells`` does:

1. A cell whose text is a locked cell of the release (metadata or not) is that
   cell.
2. Else a cell whose ``grade_id`` names a locked cell of the release that no
   other cell is (by text, or by an earlier claim) is that cell, as released: a
   cell the grader skips stays skipped, a cell it runs runs with the release's
   text (the student's edit of a locked cell is discarded, as in nbgrader).
3. Everything else is the student's own code and runs as written, whatever its
   metadata says (locked, grade, solution or none); a second cell claiming an
   id is student code too, as nbgrader's ``DeduplicateIds`` makes it.

Which locked cells run (an assignment's setup: imports, data) and which are skipped
(visible checks, demos, helpers) is the spec's ``[cells]`` table; a test
proves it matches the release notebook.

``cell_name`` names a cell as the student finds it, for the notes on cells that raised.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from autograder.assignments import Assignment
    from autograder.spec import AssignmentSpec

Role = Literal["run", "skip", "student"]


@dataclass(frozen=True)
class LockedCell:
    """A locked cell of the release: its id, whether the grader runs it, its text."""

    grade_id: str
    role: Role
    source: str


@dataclass(frozen=True)
class CellRole:
    """The verdict on one submitted cell: its identity, role and the text to run."""

    grade_id: str  # the release's grade_id, or the student's own claim for student code
    role: Role
    source: str | None  # what runs (None = not run)


class ReleaseMismatch(RuntimeError):
    """The release notebook and the spec disagree about a locked cell (a grader bug)."""


def _normalise(source: str) -> str:
    return "\n".join(line.rstrip() for line in source.strip().splitlines())


def _text(source: object) -> str:
    return "".join(source) if isinstance(source, list) else str(source)


def locked_cells_of(notebook: dict, spec: AssignmentSpec | Assignment) -> dict[str, LockedCell]:
    """grade_id -> LockedCell for every locked code cell of ``spec``'s release notebook."""
    cells: dict[str, LockedCell] = {}
    for cell in notebook.get("cells", []):
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.get("cell_type") != "code" or not meta.get("locked") or meta.get("solution"):
            continue
        gid = meta.get("grade_id", "")
        if gid in spec.run_cells:
            role: Role = "run"
        elif gid in spec.skip_cells or spec.grade_cell_part(gid):
            role = "skip"
        else:
            raise ReleaseMismatch(f"locked cell {gid!r} of the release has no role in the spec")
        cells[gid] = LockedCell(gid, role, _text(cell.get("source", "")))
    return cells


@cache
def release_locked_cells(assignment: Assignment, path: Path | None = None) -> dict[str, LockedCell]:
    """The locked cells of ``assignment``'s release notebook (the bundle's copy unless
    ``path`` names another; read once per process)."""
    path = path or assignment.grader_release_notebook
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ReleaseMismatch(
            f"cannot read the release notebook {path} ({error}); the grader takes cell roles "
            "from it: reinstall the grader (`pip install .` ships it), or in a checkout "
            "run `make release`"
        ) from None
    return locked_cells_of(notebook, assignment)


def assign_roles(
    cells: Sequence[tuple[str, str]], locked: dict[str, LockedCell]
) -> list[CellRole]:
    """The role of each submitted code cell, given as ``(source, claimed grade_id)`` in
    notebook order, against the release's ``locked`` cells (``release_locked_cells``); see
    the module docstring."""
    by_text = _by_text(tuple(locked.values()))
    matches = [by_text.get(_normalise(source)) for source, _ in cells]
    taken = {match.grade_id for match in matches if match is not None}
    roles = []
    for (source, claimed), match in zip(cells, matches, strict=True):
        if match is None and claimed in locked and claimed not in taken:
            match = locked[claimed]
            taken.add(claimed)
        if match is None:
            roles.append(CellRole(claimed, "student", source))
        else:
            roles.append(CellRole(match.grade_id, match.role, match.source if match.role == "run" else None))
    return roles


@cache
def _by_text(cells: tuple[LockedCell, ...]) -> dict[str, LockedCell]:
    return {_normalise(cell.source): cell for cell in cells if cell.source.strip()}


def cell_name(source: str, grade_id: str = "", function_parts: Collection[str] = ()) -> str:
    """A code cell as a student finds it in Jupyter, which numbers no cells: the solution
    cell of a graded function (one of ``function_parts``), or the cell by its first line."""
    if grade_id and grade_id in function_parts:
        return f"the solution cell of `{grade_id}`"
    first = next((line.strip() for line in source.splitlines() if line.strip()), "")
    first = first.replace("`", "'")
    if not first:
        return "an empty code cell"
    return f"the code cell that starts `{first if len(first) <= 50 else first[:47] + '...'}`"
