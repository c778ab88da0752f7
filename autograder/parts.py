"""The graded parts and their points, read from the source notebook's grade cells.

The notebook is where an instructor sets points (``check_<part>`` grade cells), so
it is the one place they live; the hidden checks and the grader read them here.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import solutions
from autograder.sync import SOURCE_NOTEBOOK

FUNCTION_PARTS: tuple[str, ...] = tuple(solutions.__all__)
EVIDENCE_PARTS: tuple[str, ...] = ("evidence", "limitation")
GRADE_CELL_PREFIX = "check_"


@cache
def part_points(notebook: Path = SOURCE_NOTEBOOK) -> dict[str, float]:
    """part -> points, in notebook order, from every ``check_<part>`` grade cell."""
    cells = json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]
    points = {}
    for cell in cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        gid = meta.get("grade_id", "")
        if meta.get("grade") and gid.startswith(GRADE_CELL_PREFIX):
            points[gid.removeprefix(GRADE_CELL_PREFIX)] = meta["points"]
    return points


def total_points() -> float:
    """The assignment's maximum score."""
    return sum(part_points().values())
