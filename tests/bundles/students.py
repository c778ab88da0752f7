"""Students of the ``vectors`` test bundle: notebooks made from its release notebook.

A correct one has every stub replaced by the reference's function; a buggy one divides by
the sum of absolute values in ``normalize`` (the L1 length), a bug of that part alone. A
``norm`` that forgets its square root returns wrong values to the ``normalize`` built on it:
charged once, in ``norm`` (error carried forward, ``checks/test_vectors_normalize.py``)."""

from __future__ import annotations

import ast
from collections.abc import Collection
from pathlib import Path

import nbformat

from autograder.assignments import Assignment, load_assignment

BUNDLES = Path(__file__).resolve().parent
"""The folder of test bundles (``--assignments tests/bundles``)."""
NAME = "vectors"
BUGGY_PART = "normalize"
BUGS = {"normalize": ("/ length", "/ np.sum(np.abs(a))"),  # the L1 length: its own bug
        "norm": ("np.sqrt(dot(a, a))", "dot(a, a)")}  # no square root: wrong values onwards
BUG = BUGS[BUGGY_PART]


def assignment() -> Assignment:
    """The bundle, as the engine finds it in ``BUNDLES``."""
    return load_assignment(NAME, [BUNDLES])


def reference_functions() -> dict[str, str]:
    """Each function of the bundle's reference.py, as source text."""
    text = (BUNDLES / NAME / "reference.py").read_text(encoding="utf-8")
    return {node.name: ast.get_source_segment(text, node) or ""
            for node in ast.parse(text).body if isinstance(node, ast.FunctionDef)}


def solved_notebook(*, buggy: bool = False, bugs: Collection[str] = ()) -> nbformat.NotebookNode:
    """The release notebook with every solution cell filled in from the reference, with the
    ``BUGS`` of the parts named in ``bugs`` (``buggy``: ``normalize``'s)."""
    bugs = {*bugs, *([BUGGY_PART] if buggy else [])}
    notebook = nbformat.read(BUNDLES / NAME / "data" / f"{NAME}.ipynb", as_version=4)
    functions = reference_functions()
    for cell in notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution"):
            source = functions[meta["grade_id"]]
            if meta["grade_id"] in bugs:
                bug = BUGS[meta["grade_id"]]
                assert bug[0] in source, "the sample bug no longer applies to the reference"
                source = source.replace(*bug)
            cell.source = source
    return notebook


def write_submission(folder: Path, *, buggy: bool = False, bugs: Collection[str] = ()) -> Path:
    """``folder/vectors.ipynb`` (the folder is created); returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{NAME}.ipynb").write_text(
        nbformat.writes(solved_notebook(buggy=buggy, bugs=bugs)), encoding="utf-8")
    return folder


def add_students(root: Path, students: dict[str, bool]) -> dict[str, Path]:
    """``root/submitted/<student>/vectors/`` for each student (True = the buggy one)."""
    return {student: write_submission(root / "submitted" / student / NAME, buggy=buggy)
            for student, buggy in students.items()}
