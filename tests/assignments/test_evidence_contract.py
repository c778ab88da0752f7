"""The evidence plugin's contract (``autograder.assignments.plugins``) is checked when a bundle
loads (``autograder.assignments.contract``): H2's plugin and the docs' example keep it; a
plugin missing a member, or taking a keyword by another name, is refused in one line naming
the bundle, the member and the fix, by the library and by a command."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest

from autograder.assignments import load_assignment
from autograder.assignments.contract import ATTRIBUTES, evidence_plugin_problems
from autograder.assignments.plugins import EvidencePlugin, PerStudentInputs
from autograder.spec import REPO, SpecError
from tests.bundles import averages_students
from tests.bundles.students import BUNDLES
from tests.support.bundle_copies import copy_bundle, unique_name
from tests.support.cli import one_line_error
from tests.support.commands import autograde

NAME = averages_students.NAME
DOCS = REPO / "docs" / "adding-an-assignment.md"


def test_h2_s_plugin_keeps_the_contract_with_per_student_inputs():
    plugin = load_assignment("h2_attention").evidence
    assert evidence_plugin_problems(plugin) == []
    assert isinstance(plugin, PerStudentInputs)


def test_the_docs_example_keeps_it_without_per_student_inputs():
    plugin = load_assignment(NAME, [BUNDLES]).evidence
    assert evidence_plugin_problems(plugin) == []
    assert not isinstance(plugin, PerStudentInputs)


def test_the_checked_attributes_are_the_protocol_s():
    hints = {name: hint for name, hint in typing.get_type_hints(EvidencePlugin).items()}
    assert hints == ATTRIBUTES


def test_the_docs_quote_the_example_plugin_whole():
    hooks = (BUNDLES / NAME / "hooks.py").read_text(encoding="utf-8")
    assert f"```python\n{hooks}```" in DOCS.read_text(encoding="utf-8")


def test_the_docs_list_every_member():
    text = DOCS.read_text(encoding="utf-8")
    members = [*ATTRIBUTES, *(name for name in vars(EvidencePlugin) if not name.startswith("_")
                              and callable(vars(EvidencePlugin)[name])),
               "stated_inputs", "expected_inputs"]
    assert [name for name in members if f"* `{name}" not in text] == []


def broken_bundle(tmp_path: Path, old: str, new: str) -> tuple[Path, str]:
    """A copy of the example bundle whose hooks.py has ``old`` replaced by ``new``, in a
    folder of bundles, and its name."""
    name = unique_name(NAME, tmp_path)
    copy_bundle(NAME, tmp_path / "bundles", name, edits={"hooks.py": (old, new)})
    return tmp_path / "bundles", name


BROKEN = {
    "missing": ("    def describe(", "    def _describe(",
                r"`describe` is missing: add the method `describe\(report\)`"),
    "misnamed": ("*, student_id: str | None,\n               cohort", "*, student: str | None,\n               cohort",
                 r"`verify` cannot be called as the engine calls it, "
                 r"`verify\(path, \*, student_id, cohort\)`.*'student'"),
    "not a value": ("    max_bytes = 100_000", "    def max_bytes(self) -> int:\n        return 1",
                    r"`max_bytes` must be a int value the engine reads, not function"),
    "half a group": ("    def warm_up(", "    def stated_inputs(self, data):\n        return None\n\n"
                     "    def warm_up(",
                     r"`expected_inputs` is missing: PerStudentInputs needs stated_inputs and "
                     r"expected_inputs together"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_plugin_that_breaks_it_is_refused_at_load_in_one_line(tmp_path, case):
    old, new, said = BROKEN[case]
    folder, name = broken_bundle(tmp_path, old, new)
    with pytest.raises(SpecError) as raised:  # on first use: loading imports no hooks
        load_assignment(name, [folder]).evidence  # noqa: B018
    line = str(raised.value)
    assert "\n" not in line and line.startswith(f"assignment {name!r}: its evidence plugin")
    assert re.search(said, line), line
    assert line.endswith("see docs/adding-an-assignment.md")


def test_a_command_says_it_in_one_line_before_grading(tmp_path):
    folder, name = broken_bundle(tmp_path, "    def describe(", "    def _describe(")
    root = tmp_path / "course"
    averages_students.write_submission(root / "submitted" / "s1" / name)
    line = one_line_error(autograde(root, name, "--assignments", str(folder)))
    assert line.startswith(f"error: assignment {name!r}: its evidence plugin") and \
        "`describe` is missing" in line
    assert not (root / "autograded").exists()
