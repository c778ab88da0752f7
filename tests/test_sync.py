"""No silent second copy: the notebook's reference cells are exactly solutions/."""

from __future__ import annotations

import copy

import nbformat
import pytest

import solutions
from autograder.authoring import sync
from autograder.spec import SPEC


@pytest.fixture(scope="module")
def notebook() -> nbformat.NotebookNode:
    return nbformat.read(sync.SOURCE_NOTEBOOK, as_version=4)


def test_source_notebook_is_in_sync_with_solutions(notebook):
    assert sync.drift(notebook) == []


@pytest.mark.parametrize("name", solutions.__all__)
def test_every_function_has_a_solution_cell_followed_by_its_grade_cell(notebook, name):
    ids = [sync.grade_id(cell) for cell in notebook.cells]
    assert name in ids, f"no solution cell with grade_id {name!r}"
    position = ids.index(name)
    meta = notebook.cells[position].metadata["nbgrader"]
    assert meta["solution"] and not meta["grade"] and not meta["locked"]
    following = next(gid for gid in ids[position + 1 :] if gid)
    assert following == SPEC.part(name).grade_cell, f"{name} must be followed by its visible checks"
    check = notebook.cells[position + 1 + ids[position + 1 :].index(following)].metadata["nbgrader"]
    assert check["grade"] and check["locked"] and check["points"] > 0


def test_drift_is_detected_and_repaired(notebook):
    edited = copy.deepcopy(notebook)
    cell = next(c for c in edited.cells if sync.grade_id(c) == "stable_softmax")
    cell.source = cell.source.replace("axis=-1, keepdims=True", "axis=0, keepdims=True")
    assert any("stable_softmax" in line for line in sync.drift(edited))
    assert sync.sync(edited) == ["stable_softmax"]
    assert sync.drift(edited) == []


def test_missing_cell_is_reported(notebook):
    edited = copy.deepcopy(notebook)
    edited.cells = [c for c in edited.cells if sync.grade_id(c) != "evidence_helper"]
    assert "missing cell 'evidence_helper'" in sync.drift(edited)


def test_grade_ids_are_unique_and_valid(notebook):
    ids = [sync.grade_id(cell) for cell in notebook.cells if sync.grade_id(cell)]
    assert len(ids) == len(set(ids))
    assert all(gid.replace("_", "").replace("-", "").isalnum() for gid in ids)


def test_points_add_up_to_100(notebook):
    points = [
        cell.metadata["nbgrader"]["points"]
        for cell in notebook.cells
        if cell.metadata.get("nbgrader", {}).get("grade")
    ]
    assert sum(points) == 100


def test_parts_cover_every_function_and_the_evidence():
    from autograder.spec import SPEC

    assert set(SPEC.part_points) == set(SPEC.function_parts) | set(SPEC.evidence_parts)


def test_shipped_schema_is_the_one_in_schemas():
    assert sync.SHIPPED_SCHEMA.read_bytes() == sync.SCHEMA.read_bytes()
    assert sync.schema_drift() == []


def test_schema_drift_is_detected(monkeypatch, tmp_path):
    edited = tmp_path / sync.SCHEMA_NAME
    edited.write_text(sync.SCHEMA.read_text().replace('"1.0"', '"9.9"', 1))
    monkeypatch.setattr(sync, "SHIPPED_SCHEMA", edited)
    assert len(sync.schema_drift()) == 1
