"""Code a bundle's checks share lives in a helper module of its ``checks/`` folder, imported by
name (``tests/bundles/vectors/checks/vectors_helpers.py``: ``from vectors_helpers import
number``). A process imports a module once per name, so a check or helper module named like
one it already imported from another file is refused before the checks are collected, in one
line naming the file and the fix (``autograder.grading.check_modules``), never run as that
other module."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from autograder.assignments import load_assignment
from autograder.grading.check_modules import check_module_names, module_files
from autograder.grading.runner import collect_checks
from autograder.spec import REPO, SpecError
from tests.bundles import students
from tests.support.bundle_copies import copy_bundle
from tests.support.cli import one_line_error
from tests.support.commands import autograde

BUNDLES = students.BUNDLES


def test_the_vectors_checks_share_their_helper_module():
    checks = BUNDLES / students.NAME / "checks"
    assert set(module_files(checks)) == {"test_vectors_dot", "test_vectors_norm",
                                         "test_vectors_normalize", "vectors_helpers"}
    assert len(collect_checks(students.assignment())) == 3
    helpers = sys.modules["vectors_helpers"]
    # the file itself (another test may have collected it through a folder of links to it)
    assert Path(helpers.__file__).resolve() == (checks / "vectors_helpers.py").resolve()
    for check in ("test_vectors_dot", "test_vectors_norm"):
        assert sys.modules[check].number is helpers.number  # one helper, not a copy each


def test_a_package_checks_folder_is_imported_under_its_bundle(tmp_path):
    assert module_files(REPO / "autograder" / "bundles" / "h2_attention" / "checks") == {}


def copy(tmp_path: Path, label: str, helper: str) -> tuple[Path, str]:
    """A copy of the vectors bundle named ``vectors_<label>``, its check modules renamed after
    it and its helper module renamed ``helper``; its folder of bundles and its name."""
    name = f"vectors_{label}"
    imports = ("from vectors_helpers import", f"from {helper} import")
    root = copy_bundle("vectors", tmp_path / "bundles", name, own_check_names=True, edits={
        "checks/test_vectors_dot.py": imports, "checks/test_vectors_norm.py": imports})
    (root / "checks" / "vectors_helpers.py").rename(root / "checks" / f"{helper}.py")
    return tmp_path / "bundles", name


def test_a_helper_named_like_another_bundle_s_is_refused(tmp_path):
    suffix = tmp_path.name[-10:].replace("-", "_")
    folder, first = copy(tmp_path, f"a{suffix}", f"shared{suffix}")
    _, second = copy(tmp_path, f"b{suffix}", f"shared{suffix}")
    assert len(collect_checks(load_assignment(first, [folder]))) == 3
    with pytest.raises(SpecError) as raised:
        check_module_names(load_assignment(second, [folder]).checks_dir, second)
    line = str(raised.value)
    assert "\n" not in line and line.startswith(
        f"assignment {second!r}: checks/shared{suffix}.py would be imported as `shared{suffix}`, "
        f"a module this process already imported from {folder / first / 'checks'}")
    assert line.endswith(f"name it after the bundle (`{second}_shared{suffix}`); "
                         "see docs/adding-an-assignment.md")


def test_autograde_says_it_in_one_line(tmp_path):
    """A helper named like a library the grader imports (``json``) would be that library."""
    folder, name = copy(tmp_path, "json", "json")
    root = tmp_path / "course"
    students.write_submission(root / "submitted" / "s1" / name)
    line = one_line_error(autograde(root, name, "--assignments", str(folder)))
    assert line.startswith(f"error: assignment {name!r}: checks/json.py would be imported as "
                           "`json`, a module this process already imported from")
    assert not (root / "autograded").exists()
