"""release/ is exactly what nbgrader makes of source/, and holds nothing trusted."""

from __future__ import annotations

import shutil

import nbformat
import pytest

from autograder.authoring import release
from autograder.spec import SPEC


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """A fresh release, made by the real nbgrader from the committed source/."""
    return release.generate_into(tmp_path_factory.mktemp("generated"))


@pytest.mark.slow
def test_committed_release_is_what_nbgrader_generates(generated):
    assert release.differences(generated, release.RELEASE_DIR) == []


def test_committed_release_has_no_leaks():
    assert release.leaks(release.RELEASE_DIR) == []


def test_release_ships_no_reference_code():
    text = (release.RELEASE_DIR / release.NOTEBOOK).read_text(encoding="utf-8")
    for telltale in (
        "np.swapaxes(K, -1, -2)) * scale",
        "exps / exps.sum",
        "V_after = V.copy()",
        "A heatmap of attention weights is not an explanation",
        "X @ W_q, X @ W_k, X @ W_v, mask=mask",
        "X_dec @ W_q, X_enc @ W_k, X_enc @ W_v",
    ):
        assert telltale not in text
    notebook = nbformat.read(release.RELEASE_DIR / release.NOTEBOOK, as_version=4)
    stubs = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("solution")]
    # One stub per graded function, plus the limitation.
    assert len(stubs) == len(SPEC.function_parts) + 1
    assert all("raise NotImplementedError()" in c.source for c in stubs)


@pytest.mark.parametrize(
    "planted, reason",
    [
        ("    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION", "solution marker"),
        ("### BEGIN HIDDEN TESTS", "hidden-test marker"),
        ("from solutions.attention import stable_softmax", "solutions/"),
        ("import autograder", "autograder/"),
    ],
)
def test_leak_detector_catches_planted_material(tmp_path, planted, reason):
    copy = tmp_path / "release"
    shutil.copytree(release.RELEASE_DIR, copy)
    notebook = nbformat.read(copy / release.NOTEBOOK, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(planted))
    nbformat.write(notebook, copy / release.NOTEBOOK)
    assert any(reason in problem for problem in release.leaks(copy))


def test_leak_detector_catches_a_solution_cell_that_is_not_a_stub(tmp_path):
    copy = tmp_path / "release"
    shutil.copytree(release.RELEASE_DIR, copy)
    notebook = nbformat.read(copy / release.NOTEBOOK, as_version=4)
    cell = next(
        c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "causal_mask"
    )
    cell.source = cell.source.replace(
        "raise NotImplementedError()", "return np.tril(np.ones((n_q, n_k), bool))"
    )
    nbformat.write(notebook, copy / release.NOTEBOOK)
    assert release.leaks(copy) == ["solution cell 'causal_mask' is not a stub"]


@pytest.mark.slow
def test_drift_is_detected(tmp_path, generated):
    stale = tmp_path / "release"
    shutil.copytree(release.RELEASE_DIR, stale)
    notebook = nbformat.read(stale / release.NOTEBOOK, as_version=4)
    notebook.cells[0].source += "\nAn edit made in release/ instead of source/."
    nbformat.write(notebook, stale / release.NOTEBOOK)
    assert release.differences(generated, stale) == [f"differs: {SPEC.notebook}"]
