"""The averages bundle's sample students: its release notebook solved, with the evidence file
its save cell writes (computed as the cell would, with the student's own ``mean``)."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat

NOTEBOOK = Path(__file__).with_name("data") / "averages.ipynb"
LIMITATION = ("The mean is pulled far by a single extreme value, so for skewed data such as "
              "incomes it can describe almost nobody; the median resists that.")
PLACEHOLDER = "Replace this sentence with one limitation of the mean, in your own words."
VALUES = [1.0, 2.0, 3.0, 6.0]
CORRECT = ('def mean(values):\n    if not values:\n        raise ValueError("no values")\n'
           '    return sum(values) / len(values)\n')
FORGED = CORRECT.replace("len(values)", "(len(values) - 1)")  # the file's number is not its own
KINDS = {"correct": {}, "forged": {"forged": True}, "blank": {"limitation": PLACEHOLDER}}


def write_submission(folder: Path, *, forged: bool = False, limitation: str = LIMITATION,
                     release: Path = NOTEBOOK) -> Path:
    """``folder/averages.ipynb`` and ``folder/averages_evidence.json``, filled in from the
    notebook the student was given (``release``); returns the folder."""
    notebook = nbformat.read(release, as_version=4)
    for cell in notebook.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id == "mean":
            cell.source = FORGED if forged else CORRECT
        elif grade_id == "limitation_text":
            cell.source = f"LIMITATION = {limitation!r}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / NOTEBOOK.name).write_text(nbformat.writes(notebook), encoding="utf-8")
    evidence = {"mean_example": {"values": VALUES, "mean": sum(VALUES) / len(VALUES)},
                "limitation": limitation}
    (folder / "averages_evidence.json").write_text(json.dumps(evidence), encoding="utf-8")
    return folder


def build_sample_cohort(root: Path, size: int | None, cohort: str | None) -> dict[str, str]:
    """``size`` students (None: one of each kind) in ``root/submitted/``; returns student id
    -> kind. The evidence file states no cohort: ``cohort`` changes nothing here."""
    kinds = list(KINDS)
    roster = {f"a{number + 1}-{kinds[number % len(kinds)]}": kinds[number % len(kinds)]
              for number in range(len(kinds) if size is None else size)}
    for student, kind in roster.items():
        write_submission(root / "submitted" / student / "averages", **KINDS[kind])
    return roster
