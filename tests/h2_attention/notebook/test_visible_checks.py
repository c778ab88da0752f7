"""No visible check passes vacuously: each fails when only its own function is a stub.

The source notebook's code runs in this (trusted) test process: it is our own code.
"""

from __future__ import annotations

import nbformat
import pytest

from autograder.authoring.sync import grade_id
from tests.support.h2 import SPEC, predicted
from tests.support.skips import install

FUNCTION_PARTS = SPEC.function_parts
NOTEBOOK, RELEASE_DIR, SOURCE_DIR = SPEC.notebook, SPEC.release_dir, SPEC.source_dir


def code_by_id(folder) -> tuple[list[str], dict[str, str]]:
    notebook = nbformat.read(folder / NOTEBOOK, as_version=4)
    cells = [c for c in notebook.cells if c.cell_type == "code"]
    return [c.source for c in cells], {grade_id(c): c.source for c in cells if grade_id(c)}


@pytest.fixture(scope="module")
def solved_namespace(tmp_path_factory) -> dict:
    """Globals after running the source notebook up to its evidence section."""
    matplotlib = pytest.importorskip(
        "matplotlib", reason=install("matplotlib not installed", "make setup"))
    matplotlib.use("Agg")
    sources, _ = code_by_id(SOURCE_DIR)
    namespace: dict = {"__name__": "__main__"}
    for source in sources:
        if source.startswith("STUDENT_ID"):
            break
        exec(compile(predicted(source), "<source notebook>", "exec"), namespace)
    return namespace


@pytest.mark.parametrize("name", FUNCTION_PARTS)
def test_visible_check_fails_on_its_own_stub(solved_namespace, name):
    _, source_cells = code_by_id(SOURCE_DIR)
    _, release_cells = code_by_id(RELEASE_DIR)
    namespace = dict(solved_namespace)
    exec(release_cells[name], namespace)  # the student's starting point for this function only
    with pytest.raises(NotImplementedError):
        exec(source_cells[SPEC.part(name).grade_cell], namespace)


@pytest.mark.parametrize("name", FUNCTION_PARTS)
def test_visible_check_passes_on_the_reference(solved_namespace, name):
    _, source_cells = code_by_id(SOURCE_DIR)
    exec(source_cells[SPEC.part(name).grade_cell], dict(solved_namespace))
