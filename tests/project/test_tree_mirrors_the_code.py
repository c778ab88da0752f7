"""The test tree mirrors the engine (docs/development.md, "Where a test goes"): a folder of
tests for each package of ``autograder/`` (``tests/batch/cluster/`` for
``autograder/batch/cluster/``), and no folder of tests that stands for no package, beside the
few named here with what they hold."""

from __future__ import annotations

from autograder.spec import REPO

ENGINE, TESTS = REPO / "autograder", REPO / "tests"
NOT_A_PACKAGE = {
    "h2_attention": "H2's own tests, beside the engine's",
    "end_to_end": "whole courses through the commands",
    "faults": "each command hurt (kills, signals, a full disk, damaged records), every output compared",
    "project": "the repository as a whole: layers, names, docs",
    "support": "helpers for every folder",
    "bundles": "the test bundles the engine's tests grade",
    "cli": "autograder/cli.py, the command line as a whole",
    "sandbox/hostile": "the hostile submissions, one batch shared by three modules",
    "results/format_1": "results.json files an earlier version wrote",
}
"""Folders of ``tests/`` that stand for no package of the engine, and why they are there."""


def engine_packages() -> set[str]:
    """Each package of the engine (bundles aside: an assignment, not the engine), relative."""
    return {path.parent.relative_to(ENGINE).as_posix() for path in ENGINE.rglob("__init__.py")
            if path.parent != ENGINE and "bundles" not in path.relative_to(ENGINE).parts}


def folders_of_tests() -> set[str]:
    """Each folder under tests/ (its caches aside), relative."""
    return {path.relative_to(TESTS).as_posix() for path in TESTS.rglob("*")
            if path.is_dir() and "__pycache__" not in path.parts}


def _under(folder: str, names: set[str]) -> bool:
    return any(folder == name or folder.startswith(f"{name}/") for name in names)


def test_each_package_of_the_engine_has_its_folder_of_tests():
    """A package with modules of its own (``integrations`` holds only its three packages)."""
    missing = sorted(package for package in engine_packages()
                     if any(path.name != "__init__.py" for path in (ENGINE / package).glob("*.py"))
                     and not list((TESTS / package).glob("test_*.py")))
    assert not missing, f"packages with no tests/<package>/test_*.py: {missing}"


def test_each_folder_of_tests_stands_for_a_package_or_says_what_it_holds():
    packages = engine_packages()
    stray = sorted(folder for folder in folders_of_tests()
                   if folder not in packages and not _under(folder, set(NOT_A_PACKAGE))
                   and not any(package.startswith(f"{folder}/") for package in packages))
    assert not stray, (f"folders of tests/ that mirror no package of autograder/: {stray} "
                       "(move their tests beside the package they test, or name the folder "
                       "in NOT_A_PACKAGE with what it holds)")
