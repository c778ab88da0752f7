"""The ``vectors`` test bundle with an nbgrader source folder, for the cohort commands: `cohort
release` generates a cohort's release from the bundle's source notebook, which the bundle
in tests/bundles does not keep (its release notebook is enough to grade). The copy's source
notebook is the release notebook with the reference's code between nbgrader's solution
markers, so nbgrader generates exactly the bundle's ``data/vectors.ipynb`` from it."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from tests.support.vectors import VECTORS

STUB = "    # YOUR CODE HERE\n    raise NotImplementedError()"  # a solution cell's, indented


def solution_bodies() -> dict[str, str]:
    """Function name -> the reference's body after its docstring, indented as there."""
    text = (VECTORS.root / "reference.py").read_text(encoding="utf-8")
    lines = text.splitlines()
    bodies = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef):
            assert ast.get_docstring(node) is not None, node.name
            bodies[node.name] = "\n".join(lines[node.body[1].lineno - 1:node.end_lineno])
    return bodies


def source_notebook() -> dict:
    """What an instructor authors: the release notebook without nbgrader's checksums, each
    stub replaced by the reference's body between the solution markers."""
    notebook = json.loads(VECTORS.grader_release_notebook.read_text(encoding="utf-8"))
    bodies = solution_bodies()
    for cell in notebook["cells"]:
        meta = cell["metadata"].get("nbgrader")
        if meta is None:
            continue
        meta.pop("checksum", None)
        if meta.get("solution"):
            source = "".join(cell["source"])
            assert STUB in source, meta["grade_id"]
            cell["source"] = source.replace(STUB, "    ### BEGIN SOLUTION\n"
                                            f"{bodies[meta['grade_id']]}\n    ### END SOLUTION")
    return notebook


def bundles_with_source(folder: Path) -> Path:
    """``folder/vectors``: the bundle, its every file a link to the original's (a process
    imports a check module once per name, so the checks must be the same files whichever
    folder a test names), with ``source/vectors.ipynb`` added. Returns ``folder``, the
    folder of bundles to name (``--assignments``, cohorts.toml's ``assignments``)."""
    bundle = folder / VECTORS.name
    bundle.mkdir(parents=True)
    for entry in VECTORS.root.iterdir():
        if entry.name != "__pycache__":
            (bundle / entry.name).symlink_to(entry)
    (bundle / "source").mkdir()
    (bundle / "source" / VECTORS.notebook).write_text(json.dumps(source_notebook(), indent=1),
                                                      encoding="utf-8")
    return folder
