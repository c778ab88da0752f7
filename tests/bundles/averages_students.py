"""Students of the ``averages`` test bundle: its release notebook solved, and the evidence file
its save cell writes (computed here as the cell would, with the student's own ``mean``).

A correct one writes the mean its correct ``mean`` computes; a forged one has a ``mean`` that
divides by one too few but hands in the right number (the file alone checks out; the
student's function does not compute it)."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat

from tests.bundles.students import BUNDLES

NAME = "averages"
LIMITATION = ("The mean is pulled far by a single extreme value, so for skewed data such as "
              "incomes it can describe almost nobody; the median resists that.")
PLACEHOLDER = "Replace this sentence with one limitation of the mean, in your own words."
VALUES = [1.0, 2.0, 3.0, 6.0]
CORRECT = ('def mean(values):\n    if not values:\n        raise ValueError("no values")\n'
           '    return sum(values) / len(values)\n')
FORGED = CORRECT.replace("len(values)", "(len(values) - 1)")


def write_submission(folder: Path, *, forged: bool = False, limitation: str = LIMITATION,
                     release: Path | None = None) -> Path:
    """``folder/averages.ipynb`` and ``folder/averages_evidence.json``; returns the folder.
    ``release``: the notebook the student was given (default: the bundle's data/ copy)."""
    notebook = nbformat.read(release or BUNDLES / NAME / "data" / f"{NAME}.ipynb", as_version=4)
    for cell in notebook.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id == "mean":
            cell.source = FORGED if forged else CORRECT
        elif grade_id == "limitation_text":
            cell.source = f"LIMITATION = {limitation!r}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{NAME}.ipynb").write_text(nbformat.writes(notebook), encoding="utf-8")
    evidence = {"mean_example": {"values": VALUES, "mean": sum(VALUES) / len(VALUES)},
                "limitation": limitation}
    (folder / "averages_evidence.json").write_text(json.dumps(evidence), encoding="utf-8")
    return folder
