"""One typed contract for what a bundle's code may provide (``autograder.assignments.plugins``:
``Hooks``, ``AuthoringHooks``, ``SampleCohort``), checked by one loader when a module is first
imported (``autograder.assignments.hook_modules``): the bundles here keep it; a misspelt,
missing or mistyped member is refused in one line naming the bundle, the member and the fix,
by the library and by a command; the engine reads a bundle's modules nowhere else."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import nbformat
import pytest

from autograder.assignments import hook_modules, load_assignment
from autograder.assignments.hook_modules import AUTHORING, DECLARATIONS, HOOKS, SAMPLES
from autograder.assignments.plugins import EvidencePlugin
from autograder.authoring.sync import drift, locked_cell_sources
from autograder.spec import REPO, SpecError
from tests.bundles import students
from tests.support.bundle_copies import copy_bundle, unique_name
from tests.support.cli import one_line_error
from tests.support.commands import autograde

BUNDLES = students.BUNDLES
DOCS = "see docs/adding-an-assignment.md"


def bundle_with(tmp_path: Path, files: dict[str, str], like: str = "vectors") -> tuple[Path, str]:
    """A copy of the test bundle ``like`` with ``files`` (name -> text) added, in a folder of
    bundles, and its name."""
    name = unique_name(like, tmp_path)
    copy_bundle(like, tmp_path / "bundles", name, files=files)
    return tmp_path / "bundles", name


def refusal(tmp_path: Path, files: dict[str, str], load=lambda a: a.misconceptions) -> str:  # noqa: ANN001
    folder, name = bundle_with(tmp_path, files)
    with pytest.raises(SpecError) as raised:
        load(load_assignment(name, [folder]))
    line = str(raised.value)
    assert "\n" not in line and line.startswith(f"assignment {name!r}: ") and line.endswith(DOCS)
    return line


# ------------------------------------------------------------------ the bundles keep it


def test_h2_s_modules_keep_their_declarations():
    h2 = load_assignment("h2_attention")
    assert h2.hooks.module is not None and h2.evidence is not None
    assert len(h2.misconceptions) > 10  # read when first asked (its table imports NumPy)
    assert set(locked_cell_sources(h2)) == {"evidence_helper", "evidence_check_helper"}
    samples = hook_modules.load(h2, SAMPLES)
    assert callable(samples.get("build_sample_cohort"))


def test_the_test_bundles_keep_them():
    averages = load_assignment("averages", [BUNDLES])
    assert averages.evidence is not None and averages.misconceptions
    notebook = nbformat.read(averages.grader_release_notebook, as_version=4)
    assert not [line for line in drift(notebook, averages) if "save_evidence" in line]
    assert locked_cell_sources(averages) == {"save_evidence": next(
        cell.source + "\n" for cell in notebook.cells
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "save_evidence")}
    assert callable(hook_modules.load(averages, SAMPLES).get("build_sample_cohort"))
    vectors = students.assignment()
    assert vectors.hooks.module is None and vectors.misconceptions == {}
    assert locked_cell_sources(vectors) == {}


def test_every_member_is_declared_with_its_type_and_every_value_has_its_check():
    assert HOOKS.values == {"evidence": EvidencePlugin[Any, Any],
                            "misconceptions": Mapping[str, str]}
    assert [str(sig) for sig in AUTHORING.functions.values()] == ["() -> 'Mapping[str, str]'"]
    assert list(SAMPLES.functions) == ["build_sample_cohort"] and SAMPLES.required
    assert {name for d in DECLARATIONS for name in d.values} == set(hook_modules.VALUE_CHECKS)


def test_helpers_private_constants_classes_and_imports_are_not_members(tmp_path):
    folder, name = bundle_with(tmp_path, {"hooks.py": (
        "from pathlib import Path\nfrom dataclasses import dataclass\nimport json\n\n"
        "TABLE = {'a': 'b'}\nCodes = dict[str, str]\n\n\n@dataclass\nclass Helper:\n    x: int\n\n\n"
        "def _shared():\n    return {'too_small': 'Your result is too small.'}\n\n\n"
        "misconceptions = _shared()\n")})
    assert load_assignment(name, [folder]).misconceptions == {"too_small": "Your result is too small."}


# ------------------------------------------------------------------ what is refused


def test_a_misspelt_member_is_refused_naming_it_and_the_members(tmp_path):
    line = refusal(tmp_path, {"hooks.py": "misconception = {'a': 'An explanation.'}\n"})
    assert "hooks.py defines `misconception`, which is not a member the engine reads" in line
    assert "(hooks.py's: evidence, misconceptions)" in line
    assert line.endswith("rename it `misconceptions`; " + DOCS)


def test_a_member_in_capitals_is_taken_as_misspelt(tmp_path):
    line = refusal(tmp_path, {"hooks.py": "MISCONCEPTIONS = {'a': 'An explanation.'}\n"})
    assert "defines `MISCONCEPTIONS`" in line and "rename it `misconceptions`" in line


def test_a_public_value_or_function_of_its_own_is_refused(tmp_path):
    line = refusal(tmp_path, {"hooks.py": "def explain(code):\n    return code\n"})
    assert "defines `explain`, which is not a member" in line and "rename it" not in line
    assert line.endswith("a helper of your own: start its name with `_`; " + DOCS)


def test_a_member_of_the_wrong_type_is_refused(tmp_path):
    line = refusal(tmp_path, {"hooks.py": "misconceptions = ['too_small']\n"})
    assert "hooks.py `misconceptions` must map each diagnosis code (a str)" in line
    assert "not a list" in line


def test_a_member_given_lazily_is_checked_when_first_read(tmp_path):
    line = refusal(tmp_path, {"hooks.py": (
        "def __getattr__(name):\n    if name == 'misconceptions':\n        return {'a': ''}\n"
        "    raise AttributeError(name)\n")})
    assert "`misconceptions` must map" in line


def test_an_authoring_hook_that_cannot_take_the_call_or_returns_the_wrong_type(tmp_path):
    line = refusal(tmp_path / "call", {"authoring.py": "def locked_cells(notebook):\n    return {}\n"},
                   locked_cell_sources)
    assert re.search(r"authoring\.py `locked_cells` cannot be called as the engine calls it, "
                     r"`locked_cells\(\)`", line), line
    line = refusal(tmp_path / "type", {"authoring.py": "def locked_cells():\n    return ['x']\n"},
                   locked_cell_sources)
    assert "`locked_cells` returned a list, not the Mapping[str, str] it must return" in line
    line = refusal(tmp_path / "name", {"authoring.py": "def locked_cell():\n    return {}\n"},
                   locked_cell_sources)
    assert "defines `locked_cell`" in line and "rename it `locked_cells`" in line


def test_samples_without_their_builder_are_refused(tmp_path):
    line = refusal(tmp_path, {"samples.py": "def build_samples(root, size, cohort):\n    return {}\n"},
                   lambda a: hook_modules.load(a, SAMPLES))
    assert "samples.py defines no `build_sample_cohort`: add the function " \
        "`build_sample_cohort(root, size, cohort)`" in line


def test_a_command_says_it_in_one_line(tmp_path):
    folder, name = bundle_with(tmp_path, {"hooks.py": "misconception = {'a': 'b'}\n"})
    root = tmp_path / "course"
    students.write_submission(root / "submitted" / "s1" / name)
    line = one_line_error(autograde(root, name, "--assignments", str(folder)))
    assert line.startswith(f"error: assignment {name!r}: hooks.py defines `misconception`")
    assert not (root / "autograded").exists()


# ------------------------------------------------------------------ read only through it


def test_the_engine_imports_bundle_code_only_through_the_loader():
    """``Assignment.module`` (a bundle's module by name) is called by the loader and for the
    reference only; nothing else in the engine probes a bundle's module."""
    calls = {}
    for path in (REPO / "autograder").rglob("*.py"):
        if "bundles" in path.relative_to(REPO / "autograder").parts:
            continue
        found = re.findall(r"\.module\(", path.read_text(encoding="utf-8"))
        if found:
            calls[str(path.relative_to(REPO))] = len(found)
    assert set(calls) == {"autograder/assignments/hook_modules.py",
                          "autograder/assignments/bundle.py"}, calls
