"""Every hidden check names the rule it enforces, in words the student's notebook states.

Each check's ``@pytest.mark.part(..., requires="...")`` clause must occur in the
release notebook's text, i.e. in one of its markdown cells or in one docstring of
its code cells (what a student reads). Both sides are compared with whitespace
collapsed and case ignored, nothing more: a reworded notebook breaks this test.
"""

from __future__ import annotations

import ast
import json
import re
import textwrap

import pytest

from autograder.grading.assertions import CheckFailure
from autograder.grading.plugin import CheckResult, CheckValidator, describe_item, verdict
from autograder.grading.runner import PYTEST_ARGS, collect_checks, own_pytest_environment
from tests.support.h2 import H2, SPEC

RELEASE_NOTEBOOK = SPEC.release_notebook
CHECKS_DIR = H2.checks_dir


def normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def notebook_texts() -> list[str]:
    """The markdown cells and every docstring of the code cells, normalised."""
    notebook = json.loads(RELEASE_NOTEBOOK.read_text(encoding="utf-8"))
    texts = []
    for cell in notebook["cells"]:
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            texts.append(source)
        elif cell["cell_type"] == "code":
            try:
                tree = ast.parse(source)
            except SyntaxError:  # not Python (a magic): it has no docstrings to offer
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    docstring = ast.get_docstring(node)
                    if docstring:
                        texts.append(docstring)
    return [normalise(text) for text in texts]


def test_every_check_states_a_requirement_the_notebook_states():
    checks = collect_checks(H2)  # as the grader collects them: a check without `requires` fails here
    texts = notebook_texts()
    assert texts, f"no markdown or docstrings found in {RELEASE_NOTEBOOK}"
    untraced = [
        f"{check.common['name']}: {check.common['requires']!r}"
        for check in checks
        if not any(normalise(check.common["requires"]) in text for text in texts)
    ]
    assert not untraced, (
        "these checks' `requires` clauses do not occur in the release notebook's markdown or "
        "docstrings (whitespace and case ignored):\n" + "\n".join(untraced)
    )


@pytest.mark.parametrize("exc", [None, CheckFailure("Expected 1."), KeyError("a grader bug")],
                         ids=["passed", "failed", "error"])
def test_requires_is_not_part_of_a_result(exc):
    common = {"name": "test_m::test_f", "title": "A check", "part": "x", "max_points": 1,
              "requires": "Float32 in, float32 out"}
    result = verdict(dict(common), exc)
    assert isinstance(result, CheckResult) and "requires" not in vars(result)
    assert "Float32" not in repr(result)


def _collect(tmp_path, check_source: str) -> tuple[CheckValidator, pytest.ExitCode | int]:
    """pytest's collection of one check module with the validator's collection hooks, as
    ``collect_checks`` runs it (same ini, same arguments, none of the environment's pytest settings)."""
    (tmp_path / "pytest.ini").write_text((CHECKS_DIR / "pytest.ini").read_text(encoding="utf-8"))
    module = f"test_{tmp_path.name}.py"  # a fresh name: pytest keeps imported modules by name
    (tmp_path / module).write_text(textwrap.dedent(check_source), encoding="utf-8")
    plugin = CheckValidator()
    with own_pytest_environment():
        exit_code = pytest.main(
            [str(tmp_path), "-c", str(tmp_path / "pytest.ini"), "--rootdir", str(tmp_path),
             *PYTEST_ARGS, "--import-mode=importlib", "--collect-only"],
            plugins=[plugin],
        )
    return plugin, exit_code


@pytest.mark.parametrize(
    "marker",
    ['@pytest.mark.part("x")', '@pytest.mark.part("x", weight=2, requires="")',
     '@pytest.mark.part("x", requires="   ")', '@pytest.mark.part("x", requires=None)'],
    ids=["missing", "empty", "blank", "not text"],
)
def test_plugin_reports_a_check_without_requires(tmp_path, marker):
    plugin, exit_code = _collect(tmp_path, f'''
        import pytest

        {marker}
        def test_untraced(student, reference):
            """A check that names no rule"""
    ''')
    assert exit_code == pytest.ExitCode.OK
    assert len(plugin.problems) == 1
    assert "test_untraced" in plugin.problems[0] and "requires" in plugin.problems[0]


def test_plugin_accepts_a_traced_check(tmp_path):
    plugin, exit_code = _collect(tmp_path, '''
        import pytest

        @pytest.mark.part("x", requires="Float32 in, float32 out")
        def test_traced(student, reference):
            """A check that names its rule"""
    ''')
    assert exit_code == pytest.ExitCode.OK and plugin.problems == []


def test_describe_item_carries_requires(tmp_path):
    items = []

    class Keep:
        def pytest_collection_finish(self, session):
            items.extend(session.items)

    (tmp_path / f"test_{tmp_path.name}.py").write_text(textwrap.dedent('''
        import pytest

        @pytest.mark.part("x", weight=2, requires="  Float32 in, float32 out ")
        def test_traced(student, reference):
            """A check that names its rule"""
    '''), encoding="utf-8")
    with own_pytest_environment():
        pytest.main([str(tmp_path), "-c", str(CHECKS_DIR / "pytest.ini"), "--rootdir",
                     str(tmp_path), *PYTEST_ARGS, "--import-mode=importlib", "--collect-only"],
                    plugins=[CheckValidator(), Keep()])
    (item,) = items
    assert describe_item(item) == {
        "name": f"test_{tmp_path.name}::test_traced", "title": "A check that names its rule",
        "part": "x", "weight": 2, "requires": "Float32 in, float32 out",
    }


@pytest.mark.parametrize(
    ("marker", "complaint"),
    [('@pytest.mark.part("x", points=2, requires="Float32 in, float32 out")', "points are the spec"),
     ('@pytest.mark.part("x", weight=0, requires="Float32 in, float32 out")', "whole number >= 1"),
     ('@pytest.mark.part("x", weight=1.5, requires="Float32 in, float32 out")', "whole number >= 1")],
    ids=["points", "zero weight", "fractional weight"],
)
def test_plugin_reports_points_or_a_bad_weight_on_a_check(tmp_path, marker, complaint):
    """A check's points are its part's (the spec's) shared by weight: a check that names
    points of its own would be a second home for them."""
    plugin, exit_code = _collect(tmp_path, f'''
        import pytest

        {marker}
        def test_weighed(student, reference):
            """A check that names its rule"""
    ''')
    assert exit_code == pytest.ExitCode.OK
    assert len(plugin.problems) == 1 and complaint in plugin.problems[0]
