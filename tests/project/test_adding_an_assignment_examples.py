"""docs/adding-an-assignment.md's examples are the test bundles' files, quoted whole: each
Python block whose paragraph names a file of ``tests/bundles`` is that file, so an example
cannot drift from the code the tests grade. The page lists every member of the hook
contract as the engine calls it, and the check API's helpers with their parameters."""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator

from autograder.assignments.contract import engine_call
from autograder.assignments.hook_modules import DECLARATIONS
from autograder.grading.carried_forward import carry_forward
from autograder.spec import REPO

DOCS = REPO / "docs" / "adding-an-assignment.md"
QUOTED = {
    "tests/bundles/vectors/checks/test_vectors_norm.py",  # a check
    "tests/bundles/vectors/checks/vectors_helpers.py",  # code the checks share
    "tests/bundles/vectors/checks/test_vectors_normalize.py",  # error carried forward
    "tests/bundles/averages/hooks.py",  # misconceptions and the evidence plugin
    "tests/bundles/averages/authoring.py",  # locked_cells
    "tests/bundles/averages/samples.py",  # build_sample_cohort
}


def quoted(text: str) -> Iterator[tuple[str, str]]:
    """(file, code) of each Python block whose paragraph before it names a file of
    tests/bundles (the last one it names)."""
    for block in re.finditer(r"```python\n(.*?)```", text, flags=re.S):
        before = text[:block.start()].rstrip("\n")
        paragraph = before[before.rfind("\n\n") + 2:]
        files = re.findall(r"`(tests/bundles/[^`]+\.py)`", paragraph)
        if files:
            yield files[-1], block.group(1)


def test_each_quoted_file_is_the_file_whole():
    found = list(quoted(DOCS.read_text(encoding="utf-8")))
    assert {file for file, _ in found} == QUOTED
    for file, code in found:
        assert code == (REPO / file).read_text(encoding="utf-8"), f"{file} differs from the docs"


def test_every_member_of_the_hook_contract_is_listed_as_the_engine_calls_it():
    table = [line for line in DOCS.read_text(encoding="utf-8").splitlines()
             if line.startswith("| `")]
    for declaration in DECLARATIONS:
        rows = [row for row in table if row.startswith(f"| `{declaration.name}")]
        for name in declaration.values:
            assert any(f"| `{name}` |" in row for row in rows), name
        for name, signature in declaration.functions.items():
            assert any(f"| `{engine_call(name, signature)}` |" in row for row in rows), name


def test_the_check_api_is_described_with_its_parameters():
    text = DOCS.read_text(encoding="utf-8")
    parameters = inspect.signature(carry_forward).parameters
    assert list(parameters)[:5] == ["failure", "student", "reference", "part", "inputs"]
    assert {"compose", "agrees", "first"} <= set(parameters)
    assert "`carry_forward(failure, student, reference, part, *inputs, compose=..., first=...)`" in text
    assert "`CheckFailure(message, diagnoses=...)`" in text and "diagnosis=" in text
