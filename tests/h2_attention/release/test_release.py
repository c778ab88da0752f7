"""release/<assignment>/ is exactly what nbgrader makes of source/<assignment>/, and holds
nothing trusted (H2's, the checkout's assignment)."""

from __future__ import annotations

import shutil
from types import SimpleNamespace

import nbformat
import pytest

from autograder.authoring import release
from tests.support.h2 import H2

RELEASE_DIR, NOTEBOOK = H2.release_dir, H2.notebook


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """A fresh release, made by the real nbgrader from the committed source/ (plus the
    evidence file an instructor's run of the source notebook leaves, which is not released)."""
    source = tmp_path_factory.mktemp("instructor") / H2.name
    shutil.copytree(H2.source_dir, source)
    (source / H2.evidence_file).write_text("{}")
    where = SimpleNamespace(name=H2.name, notebook=H2.notebook, evidence_file=H2.evidence_file,
                            source_dir=source)
    return release.generate_into(tmp_path_factory.mktemp("generated"), where)


@pytest.mark.slow
def test_committed_release_is_what_nbgrader_generates(generated):
    assert release.differences(generated, RELEASE_DIR) == []


def test_committed_release_has_no_leaks():
    assert release.leaks(RELEASE_DIR, H2) == []


def test_the_reference_package_is_forbidden_only_when_it_lives_outside_the_bundle(tmp_path):
    """H2's reference is the importable solutions/: naming it is a leak. A reference inside
    its bundle is reached only through the engine's name (banned anyway), so a word like
    "reference." in a notebook's prose is not taken for one."""
    assert release.forbidden(H2)[r"\bsolutions[/.]"] == "a reference to the trusted solutions/ package"
    inside = SimpleNamespace(spec=SimpleNamespace(reference="reference"), root=tmp_path)
    (tmp_path / "reference.py").write_text("")
    assert release.forbidden(inside) == {**release.MARKERS, **release.ENGINE}


def test_release_ships_no_reference_code():
    text = (RELEASE_DIR / NOTEBOOK).read_text(encoding="utf-8")
    for telltale in (
        "np.swapaxes(K, -1, -2)) * scale",
        "exps / exps.sum",
        "V_after = V.copy()",
        "A heatmap of attention weights is not an explanation",
        "X @ W_q, X @ W_k, X @ W_v, mask=mask",
        "X_dec @ W_q, X_enc @ W_k, X_enc @ W_v",
    ):
        assert telltale not in text
    notebook = nbformat.read(RELEASE_DIR / NOTEBOOK, as_version=4)
    stubs = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("solution")]
    # One stub per graded function, plus the limitation.
    assert len(stubs) == len(H2.function_parts) + 1
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
    shutil.copytree(RELEASE_DIR, copy)
    notebook = nbformat.read(copy / NOTEBOOK, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(planted))
    nbformat.write(notebook, copy / NOTEBOOK)
    assert any(reason in problem for problem in release.leaks(copy, H2))


def test_leak_detector_catches_a_solution_cell_that_is_not_a_stub(tmp_path):
    copy = tmp_path / "release"
    shutil.copytree(RELEASE_DIR, copy)
    notebook = nbformat.read(copy / NOTEBOOK, as_version=4)
    cell = next(
        c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "causal_mask"
    )
    cell.source = cell.source.replace(
        "raise NotImplementedError()", "return np.tril(np.ones((n_q, n_k), bool))"
    )
    nbformat.write(notebook, copy / NOTEBOOK)
    assert release.leaks(copy, H2) == ["solution cell 'causal_mask' is not a stub"]


@pytest.mark.slow
def test_drift_is_detected(tmp_path, generated):
    stale = tmp_path / "release"
    shutil.copytree(RELEASE_DIR, stale)
    notebook = nbformat.read(stale / NOTEBOOK, as_version=4)
    notebook.cells[0].source += "\nAn edit made in release/ instead of source/."
    nbformat.write(notebook, stale / NOTEBOOK)
    assert release.differences(generated, stale) == [f"differs: {H2.notebook}"]
