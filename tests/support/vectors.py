"""The `vectors` test bundle (tests/bundles) as the tests use it: the second assignment, with
submissions written from its reference (tests may name an assignment; the engine may not)."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

from autograder.assignments import load_assignment
from autograder.base.course import Course
from autograder.spec import REPO

BUNDLES = REPO / "tests" / "bundles"
VECTORS = load_assignment("vectors", [BUNDLES])
REFERENCE = {name: "import numpy as np\n\n" + inspect.getsource(getattr(VECTORS.reference, name))
             for name in VECTORS.function_parts}
"""Solution cell -> the reference's code: a submission that earns every point."""
WRONG_NORMALIZE = "def normalize(a):\n    return a\n"  # loses normalize's points, nothing else


def solved_notebook(functions: dict[str, str]) -> dict:
    """The bundle's release notebook with each solution cell holding ``functions[name]``."""
    notebook = json.loads(VECTORS.grader_release_notebook.read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")
        if grade_id in functions:
            cell["source"] = functions[grade_id]
    return notebook


def submit(root: Path, student: str, functions: dict[str, str] = REFERENCE) -> Path:
    """Write ``student``'s submission of ``vectors`` in the course root ``root``."""
    folder = Course(root, VECTORS.name).submitted(student)
    folder.mkdir(parents=True)
    (folder / VECTORS.notebook).write_text(json.dumps(solved_notebook(functions)),
                                           encoding="utf-8")
    return folder
