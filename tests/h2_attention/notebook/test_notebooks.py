"""The notebooks as students and instructors run them: real Jupyter kernels (nbclient)."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from autograder.authoring.sync import grade_id
from tests.support.h2 import H2 as SPEC
from tests.support.h2 import predicted
from tests.support.kernels import run_all

FUNCTION_PARTS = SPEC.function_parts
NOTEBOOK, RELEASE_DIR, SOURCE_DIR = SPEC.notebook, SPEC.release_dir, SPEC.source_dir
# The explorer's rankings as a student who predicted them right writes them (Step 5).
RANKINGS = {"[1, 0]": "A = C > B", "[0, 1]": "B = C > A", "[1, 1]": "C > A = B", "[-1, 0]": "B > A = C"}


def execute(folder: Path, tmp_path: Path) -> nbformat.NotebookNode:
    """Run a copy of ``folder``'s notebook top to bottom in a fresh kernel, errors kept."""
    workdir = tmp_path / folder.name
    shutil.copytree(folder, workdir)
    notebook = nbformat.read(workdir / NOTEBOOK, as_version=4)
    for cell in notebook.cells:  # as a student does (the evidence check refuses the placeholder)
        if cell.source.startswith("STUDENT_ID = "):
            cell.source = 'STUDENT_ID = "s-notebook-test"'
        elif cell.cell_type == "code":
            cell.source = predicted(cell.source, rankings=RANKINGS)
    return run_all(notebook, workdir).notebook


def outputs(cell: nbformat.NotebookNode, kind: str) -> list[dict]:
    return [out for out in cell.get("outputs", []) if out["output_type"] == kind]


def grade_cells(notebook: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade")]


@pytest.fixture(scope="module")
def executed_source(tmp_path_factory) -> nbformat.NotebookNode:
    return execute(SOURCE_DIR, tmp_path_factory.mktemp("source"))


@pytest.fixture(scope="module")
def executed_release(tmp_path_factory) -> nbformat.NotebookNode:
    return execute(RELEASE_DIR, tmp_path_factory.mktemp("release"))


@pytest.mark.slow
def test_source_notebook_runs_without_errors(executed_source):
    failed = [
        (grade_id(cell) or cell.source[:60], out["ename"], out["evalue"][:200])
        for cell in executed_source.cells
        for out in outputs(cell, "error")
    ]
    assert failed == []


@pytest.mark.slow
def test_every_visible_check_passes_on_the_source(executed_source):
    cells = grade_cells(executed_source)
    assert len(cells) == len(FUNCTION_PARTS) + 2
    for cell in cells:
        printed = "".join(out["text"] for out in outputs(cell, "stream") if out["name"] == "stdout")
        assert printed.strip(), f"{grade_id(cell)} printed no confirmation"
        assert not any(out["name"] == "stderr" for out in outputs(cell, "stream")), (
            f"{grade_id(cell)} wrote to stderr (nbgrader would score that cell 0)"
        )


@pytest.mark.slow
def test_release_stops_at_the_stubs(executed_release):
    by_id = {grade_id(cell): cell for cell in executed_release.cells if grade_id(cell)}
    for name in FUNCTION_PARTS:
        errors = outputs(by_id[SPEC.part(name).grade_cell], "error")
        assert [e["ename"] for e in errors] == ["NotImplementedError"], (
            f"{SPEC.part(name).grade_cell} should fail with NotImplementedError on the stub, got {errors}"
        )
    limitation = outputs(by_id["limitation_text"], "error")
    assert [e["ename"] for e in limitation] == ["NotImplementedError"]


@pytest.mark.slow
def test_no_visible_check_passes_on_the_release(executed_release):
    passed = [grade_id(c) for c in grade_cells(executed_release) if not outputs(c, "error")]
    assert passed == []


@pytest.mark.slow
def test_a_student_who_predicted_sees_the_numbers_and_the_verdicts(executed_source):
    """The other side of tests/h2_attention/notebook/test_predict_first.py: with the predictions entered (right
    ones), Step 1 confirms them and shows the exact numbers, Step 4's check shows the
    functions' own weights, and the explorer confirms every ranking."""
    by_id = {grade_id(cell): cell for cell in executed_source.cells if grade_id(cell)}

    def printed(gid: str) -> str:
        return "".join(out["text"] for out in outputs(by_id[gid], "stream") if out["name"] == "stdout")

    assert "Both rows are right" in printed("reveal_hand_example")
    assert "0.4011" in printed("reveal_hand_example")
    assert "your hand example: weights [[0.4011 0.1978 0.4011]]" in printed(
        "check_scaled_dot_product_attention")
    table = [line for line in printed("routing_explorer").splitlines() if line.startswith("q=")]
    assert len(table) >= 12 and all(line.endswith("(as you predicted)") for line in table), table
