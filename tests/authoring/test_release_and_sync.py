"""``autograder.authoring`` on a small bundle of ``tests/bundles``: ``averages``, whose source
notebook lives in its own ``source/``. The release generated from the source is current and
leak-free; an edited reference is drift that ``sync`` repairs; a solution left in the release
is a leak; and no release replaces the bundle's own folders. (H2's release, through the same
functions, is tested in ``tests/h2_attention/release/``.)"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.assignments import Assignment, load_assignment
from autograder.assignments.bundle import open_bundle
from autograder.authoring import release, sync
from autograder.authoring.release import ReleaseError
from tests.bundles.averages_students import NAME
from tests.bundles.students import BUNDLES

pytestmark = pytest.mark.slow  # nbgrader generates each release

SOLUTION = "return float(sum(values)) / len(values)"


@pytest.fixture
def bundle(tmp_path: Path) -> Assignment:
    """A copy of the bundle without a release, in a folder of bundles of its own."""
    shutil.copytree(BUNDLES / NAME, tmp_path / "bundles" / NAME,
                    ignore=shutil.ignore_patterns("__pycache__", "release"))
    return load_assignment(NAME, [tmp_path / "bundles"])


def test_a_release_generated_from_the_source_is_current_and_leak_free(bundle):
    assert release.check(bundle) == [f"no release at {bundle.release_dir}: "
                                     f"{release.fix_command(bundle)}"]
    assert release.regenerate(bundle) == ["(new release)"]
    assert release.check(bundle) == [] and release.regenerate(bundle) == []
    text = (bundle.release_dir / bundle.notebook).read_text(encoding="utf-8")
    assert "raise NotImplementedError()" in text and SOLUTION not in text


def test_an_edited_reference_is_drift_that_sync_repairs(bundle, monkeypatch):
    source = nbformat.read(bundle.source_notebook, as_version=4)
    assert sync.drift(source, bundle) == []
    reference = bundle.root / "reference.py"
    reference.write_text(reference.read_text(encoding="utf-8").replace(
        SOLUTION, "return sum(values) / float(len(values))"), encoding="utf-8")
    for name in [name for name in sys.modules if name.startswith(f"_assignment_bundle_{NAME}")]:
        monkeypatch.delitem(sys.modules, name)  # the bundle opened afresh, as a new command does
    edited = open_bundle(bundle.root, origin="test")
    problems = sync.drift(source, edited)
    assert problems and all("differs from reference/" in line for line in problems), problems
    assert sync.sync(source, edited) == ["mean"] and sync.drift(source, edited) == []


def test_a_solution_left_in_the_release_is_a_leak(bundle):
    release.regenerate(bundle)
    notebook = bundle.release_dir / bundle.notebook
    text = notebook.read_text(encoding="utf-8")
    notebook.write_text(text.replace("raise NotImplementedError()", SOLUTION), encoding="utf-8")
    found = release.leaks(bundle.release_dir, bundle)
    assert any("is not a stub" in line for line in found), found
    assert release.check(bundle)  # drift from the source too


@pytest.mark.parametrize("folder", ["root", "source", "data"])
def test_no_release_replaces_the_bundles_own_folders(bundle, folder):
    target = {"root": bundle.root, "source": bundle.source_dir, "data": bundle.root / "data"}
    with pytest.raises(ReleaseError, match="cannot write the release into"):
        release.require_replaceable(target[folder], bundle)
