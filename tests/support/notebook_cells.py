"""The code cells of a notebook as Python, for tests that run a notebook in-process."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from autograder.untrusted.notebook_code import to_python


def code_cells(notebook: str | Path | Mapping[str, Any], *, skip_grade_cells: bool = False) -> list[str]:
    """Source of every code cell, in order, ready to ``exec``.

    ``skip_grade_cells`` leaves out nbgrader grade cells (the visible tests),
    which the hidden checks do not need.
    """
    nb = _load(notebook)
    sources = []
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if skip_grade_cells and meta.get("grade") and not meta.get("solution"):
            continue
        source = cell.get("source", "")
        sources.append(to_python("".join(source) if isinstance(source, list) else source))
    return sources


def _load(notebook: str | Path | Mapping[str, Any]) -> Mapping[str, Any]:
    if isinstance(notebook, Mapping):
        return notebook
    return json.loads(Path(notebook).read_text(encoding="utf-8"))
