"""What a cohort's release tells its students before they submit: the due date and the late
policy (issue 50, item 6).

Lateness is judged against the cohort's due date (and a student's extension), yet neither
the notebook, nor ``nbgrader list``, nor the Assignment List shows it. So ``cohort release``
states it twice in what the student fetches:

* the file that names the cohort (the spec's ``cohort_file``, ``cohort.json``) gets ``due``
  (ISO 8601, UTC; null without one), ``due_text`` (as cohorts.toml wrote it, with its zone),
  ``late_policy`` and ``extensions`` in words, beside ``cohort``, which the notebook reads;
* a markdown cell at the top of the cohort root's copy of the source notebook, added before
  nbgrader's ``generate_assignment``: a plain cell (no nbgrader metadata: nbgrader records
  nothing of it, the grader runs only code cells), read-only and undeletable in Jupyter.

The repository's own ``release/`` is generated from ``source/`` without it: it belongs to no
cohort, so it has no due date.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autograder.integrations.cohorts.config import Cohort

MARKER = "cohort_due_date"  # the cell's metadata key: it is found (and replaced) by it
EXTENSIONS = ("only your course staff grant an extension (ask them, before the due date if "
              "you can); a granted extension is your own due date, and lateness is judged "
              "against it")


def late_words(cohort: Cohort) -> str:
    """The cohort's late policy as a student reads it."""
    policy = cohort.late_policy
    if not policy.active:
        return ("no points are taken off for late work, but work submitted after the due date "
                "is marked late for your course staff")
    return (f"{policy.describe()} (the share of the assignment's maximum taken off the total; "
            "the time is when your submission reached the course, not when you saved it)")


def cohort_file(cohort: Cohort) -> dict:
    """What ``cohort.json`` holds: the cohort's name, which the notebook reads, and what the
    student must know before submitting."""
    return {
        "cohort": cohort.name,
        "due": cohort.due.isoformat() if cohort.due is not None else None,
        "due_text": cohort.due_text(),
        "late_policy": late_words(cohort),
        "extensions": EXTENSIONS,
    }


def due_lines(cohort: Cohort) -> str:
    """The markdown of the cell at the top of the cohort's notebook."""
    if cohort.due is None:
        due = (f"**Due date:** none was set for cohort `{cohort.name}` when this was released; "
               "your course staff will tell you.")
    else:
        due = f"**Due: {cohort.due_text()}** (cohort `{cohort.name}`)."
    return "\n".join([
        due,
        "",
        f"* **Late work:** {late_words(cohort)}.",
        f"* **Extensions:** {EXTENSIONS}.",
    ])


def add_due_cell(notebook: Path, cohort: Cohort) -> None:
    """Put (or replace) the due-date cell at the top of ``notebook`` (the cohort root's copy
    of the source notebook), keeping every other byte of its cells."""
    data = json.loads(notebook.read_text(encoding="utf-8"))
    cells = [cell for cell in data["cells"] if MARKER not in cell.get("metadata", {})]
    cell = {
        "cell_type": "markdown",
        "metadata": {MARKER: True, "editable": False, "deletable": False},
        "source": due_lines(cohort),
    }
    if data.get("nbformat", 4) >= 4 and data.get("nbformat_minor", 0) >= 5:
        cell["id"] = "cohort-due-date"
    data["cells"] = [cell, *cells]
    notebook.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
