"""No silent second copy: the notebook's reference cells are exactly the reference's
(H2's: solutions/), its grade cells carry the spec's points, its locked helper cells are
what the bundle's authoring hooks say, and the shipped schema is schemas/'s."""

from __future__ import annotations

import copy
import shutil

import nbformat
import pytest

import solutions
from autograder.assignments.bundle import open_bundle
from autograder.authoring import sync
from tests.support.h2 import H2


@pytest.fixture(scope="module")
def notebook() -> nbformat.NotebookNode:
    return nbformat.read(H2.source_notebook, as_version=4)


def test_source_notebook_is_in_sync_with_solutions(notebook):
    assert sync.drift(notebook, H2) == []


@pytest.mark.parametrize("name", solutions.__all__)
def test_every_function_has_a_solution_cell_followed_by_its_grade_cell(notebook, name):
    ids = [sync.grade_id(cell) for cell in notebook.cells]
    assert name in ids, f"no solution cell with grade_id {name!r}"
    position = ids.index(name)
    meta = notebook.cells[position].metadata["nbgrader"]
    assert meta["solution"] and not meta["grade"] and not meta["locked"]
    following = next(gid for gid in ids[position + 1 :] if gid)
    assert following == H2.part(name).grade_cell, f"{name} must be followed by its visible checks"
    check = notebook.cells[position + 1 + ids[position + 1 :].index(following)].metadata["nbgrader"]
    assert check["grade"] and check["locked"] and check["points"] > 0


def test_the_reference_functions_and_the_bundles_locked_cells_are_what_is_synced():
    wanted = sync.expected_sources(H2)
    assert set(wanted) == {*H2.function_parts, "evidence_helper", "evidence_check_helper"}
    assert wanted["stable_softmax"].startswith("def stable_softmax(")
    assert "def build_evidence(" in wanted["evidence_helper"]


def test_drift_is_detected_and_repaired(notebook):
    edited = copy.deepcopy(notebook)
    cell = next(c for c in edited.cells if sync.grade_id(c) == "stable_softmax")
    cell.source = cell.source.replace("axis=-1, keepdims=True", "axis=0, keepdims=True")
    (line,) = sync.drift(edited, H2)
    assert "'stable_softmax' differs from solutions/" in line
    assert "python -m autograder sync-solutions h2_attention" in line
    assert sync.sync(edited, H2) == ["stable_softmax"]
    assert sync.drift(edited, H2) == []


def test_missing_cell_is_reported(notebook):
    edited = copy.deepcopy(notebook)
    edited.cells = [c for c in edited.cells if sync.grade_id(c) != "evidence_helper"]
    assert "missing cell 'evidence_helper'" in sync.drift(edited, H2)


def test_a_bundle_without_authoring_hooks_syncs_its_functions_only(tmp_path):
    """The locked cells come from the bundle's authoring.py; a bundle without one has none."""
    bundle = tmp_path / H2.name
    bundle.mkdir()
    shutil.copy(H2.root / "assignment.toml", bundle / "assignment.toml")
    plain = open_bundle(bundle, origin=str(tmp_path), package="autograder.bundles.h2_attention")
    assert sync.locked_cell_sources(plain) == {}
    assert set(sync.expected_sources(plain)) == set(H2.function_parts)


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
    assert set(H2.part_points) == set(H2.function_parts) | set(H2.evidence_parts)


def test_shipped_schema_is_the_one_in_schemas():
    assert H2.shipped_schema.read_bytes() == H2.schema_path.read_bytes()
    assert sync.schema_drift(H2) == []


def test_schema_drift_is_detected(tmp_path):
    edited = tmp_path / H2.schema
    edited.write_text(H2.schema_path.read_text().replace('"1.0"', '"9.9"', 1))
    assert len(sync.schema_drift(H2, edited)) == 1
