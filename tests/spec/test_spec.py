"""The assignment spec is the one place for the assignment's facts, and agrees with the notebooks."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

import solutions
from autograder.spec import REPO, SpecError, parse_spec
from tests.support.h2 import SPEC

SPEC_TEXT = (Path(__file__).resolve().parents[2] / "autograder" / "bundles" / "h2_attention" / "assignment.toml").read_text()


def release_cells() -> dict[str, dict]:
    notebook = json.loads(SPEC.release_notebook.read_text(encoding="utf-8"))
    return {
        cell["metadata"]["nbgrader"]["grade_id"]: cell["metadata"]["nbgrader"]
        for cell in notebook["cells"]
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
    }


def test_points_add_up_to_100_and_every_function_is_a_part():
    assert SPEC.total_points == 100
    assert set(SPEC.function_parts) == set(solutions.__all__)
    assert set(SPEC.part_points) == set(SPEC.function_parts) | set(SPEC.evidence_parts)


def test_the_release_has_exactly_the_cells_the_spec_names():
    cells = release_cells()
    solution = {gid for gid, meta in cells.items() if meta.get("solution")}
    grade = {gid: meta["points"] for gid, meta in cells.items() if meta.get("grade")}
    locked = {gid for gid, meta in cells.items() if meta.get("locked") and not meta.get("solution")}
    assert solution == set(SPEC.solution_cells)
    assert grade == {part.grade_cell: part.points for part in SPEC.parts}
    assert locked == set(SPEC.run_cells) | set(SPEC.skip_cells) | set(grade)
    assert SPEC.part("evidence").cell in cells and SPEC.part("limitation").cell in cells


@pytest.mark.parametrize(
    ("edit", "complaint"),
    [
        (lambda t: t.replace("identity = 2", "identity = 3"), "sections add up"),
        (lambda t: t.replace('name = "torch_sdpa"', 'name = "attention_scores"'), "distinct"),
        (lambda t: t.replace('run = ["setup", "hand_example"]', 'run = ["setup", "demo_scaling"]'),
         "two roles"),
        (lambda t: t.replace("points = 3\n", "points = 2.5\n"), "whole number"),
        (lambda t: t.replace('kind = "limitation"', 'kind = "essay"'), "kind"),
    ],
)
def test_a_self_contradicting_spec_is_refused(edit, complaint):
    edited = edit(SPEC_TEXT)
    assert edited != SPEC_TEXT
    with pytest.raises(SpecError, match=complaint):
        parse_spec(edited)


def test_the_packaged_spec_parses_to_the_loaded_one():
    assert parse_spec(SPEC_TEXT) == SPEC.spec


# ------------------------------------------------------------ one place per fact

FACTS = {
    SPEC.name: "the assignment's name",
    SPEC.notebook: "the notebook's file name",
    SPEC.evidence_file: "the evidence file's name",
    SPEC.schema: "the schema's file name",
    SPEC.cohort_file: "the cohort file's name",
    "check_": "the grade-cell prefix",
}
CODE_TREES = ("autograder", "tests", "benchmarks")


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def spelled_out_facts(path: Path, named: bool = False) -> list[str]:
    """String literals in code (not docstrings) that spell out an assignment fact
    (``named``: the assignment's name and grade-cell prefix are allowed, its files are not)."""
    facts = {fact: what for fact, what in FACTS.items()
             if not (named and fact in (SPEC.name, "check_"))}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            found += [
                f"{path.name}:{node.lineno}: {what} ({fact!r})"
                for fact, what in facts.items()
                if (node.value.startswith(fact) if fact == "check_" else fact in node.value)
            ]
    return found


def test_each_assignment_fact_is_written_in_one_place():
    """Code and tests take the assignment's facts from its spec: only the bundle's
    ``assignment.toml`` names them (the student-side helpers in solutions/ define the
    evidence file's name, and the evidence plugin exposes it). Tests and benchmarks may
    name the assignment, to load it (``tests/support/h2.py``), and a grade cell, not its
    files."""
    offenders = [
        line
        for top in CODE_TREES
        for path in sorted((REPO / top).rglob("*.py"))
        if path != Path(__file__).resolve() and "spec" not in path.relative_to(REPO).parts[:2]
        for line in spelled_out_facts(path, named=top != "autograder")
    ]
    assert offenders == []


def test_the_fact_scan_finds_a_spelled_out_name(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text('"""Mentions h2_attention.ipynb in a docstring, which is fine."""\n'
                     'PATH = "submitted/s1/h2_attention/h2_attention.ipynb"\n')
    found = spelled_out_facts(probe)
    assert len(found) == 2 and all(":2:" in line for line in found)


@pytest.mark.parametrize("preload, problem", [
    ('["numpy", "solutions"]', "may not name the grader or the reference"),
    ('["autograder.untrusted"]', "may not name the grader or the reference"),
    ('["numpy; import os"]', "must be a list of module names"),
    ('"numpy"', "must be a list of module names"),
])
def test_a_preload_that_would_reach_a_worker_wrongly_is_refused(preload, problem):
    """What the spec preloads is imported in every worker that runs student code: never the
    reference or the grader, and only module names (the zygote's command line)."""
    text = re.sub(r"^preload = \[.*?\]$", f"preload = {preload}", SPEC_TEXT, count=1,
                  flags=re.M | re.S)
    assert text != SPEC_TEXT
    with pytest.raises(SpecError, match=re.escape(problem)):
        parse_spec(text)


@pytest.mark.parametrize("value", ["42", '"""two\nlines"""', f'"{"x" * 201}"', '["masks"]'])
def test_hidden_inputs_must_be_one_short_line_of_text(value):
    """``hidden_inputs`` is a phrase in every student's feedback page: one line of text."""
    text = re.sub(r"^hidden_inputs = .*$", f"hidden_inputs = {value}", SPEC_TEXT, count=1,
                  flags=re.M)
    assert text != SPEC_TEXT
    with pytest.raises(SpecError, match="hidden_inputs must be one line of text"):
        parse_spec(text)


def test_hidden_inputs_may_be_left_out():
    text = re.sub(r"^hidden_inputs = .*\n", "", SPEC_TEXT, count=1, flags=re.M)
    assert text != SPEC_TEXT and parse_spec(text).hidden_inputs == ""
