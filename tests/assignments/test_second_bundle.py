"""A second assignment bundle, kept with the tests (``tests/bundles/vectors``), is an
assignment like H2 to the engine: found in a folder an instructor names, only function
parts (no evidence file, no limitation), its cell roles from its own release notebook and
its checks graded in-process. The end-to-end runs (autograde, report, LMS, Gradescope,
Dask) are in test_second_bundle_end_to_end.py."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys

import nbformat
import pytest
from nbgrader.utils import compute_checksum

from autograder.assignments import UnknownAssignment, available, load_assignment
from autograder.grading.cells import locked_cells_of
from autograder.spec import REPO
from tests.bundles import students
from tests.support.cli import one_line_error
from tests.support.in_process import InProcessStudent

BUNDLES = students.BUNDLES
SECOND = students.NAME


@pytest.fixture(scope="module")
def second():
    return students.assignment()


def release_notebook(assignment) -> nbformat.NotebookNode:
    return nbformat.read(assignment.grader_release_notebook, as_version=4)


def nbgrader_cells(notebook: nbformat.NotebookNode) -> dict[str, dict]:
    """grade_id -> the cell's nbgrader metadata, for every nbgrader cell."""
    return {cell.metadata["nbgrader"]["grade_id"]: cell.metadata["nbgrader"]
            for cell in notebook.cells if "nbgrader" in cell.metadata}


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=300, check=False)


# ------------------------------------------------------------------ found, and what it is


def test_the_bundle_is_found_beside_the_packaged_one_with_its_origin():
    found = {item.name: item for item in available([BUNDLES])}
    assert found["h2_attention"].origin == "package"
    assert found[SECOND].origin == str(BUNDLES) and found[SECOND].root == BUNDLES / SECOND
    assert SECOND not in {item.name for item in available()}  # only where it is named


def test_it_has_function_parts_only_and_its_own_preload(second):
    assert second.name == SECOND and second.origin == str(BUNDLES)
    assert second.function_parts == ("dot", "norm", "normalize")
    assert second.part_points == {"dot": 3, "norm": 3, "normalize": 4}
    assert second.total_points == second.total == 10
    assert second.evidence_part is None and second.limitation_part is None
    assert second.evidence is None and second.evidence_file == "" and second.schema == ""
    assert second.grader_schema is None and second.misconceptions == {}
    assert second.preload == ("numpy",) and second.building_blocks == ()
    assert second.reference.__file__ == str(BUNDLES / SECOND / "reference.py")
    assert second.checks_dir == BUNDLES / SECOND / "checks"


def test_its_grading_key_is_its_own(second):
    from tests.support.h2 import H2

    assert re.fullmatch(r"[0-9a-f]{16}", second.grading_key)
    assert second.grading_key != H2.grading_key


def test_an_unknown_name_is_one_line_naming_the_assignments_there_are(tmp_path):
    with pytest.raises(UnknownAssignment) as raised:
        load_assignment("vector", [BUNDLES])
    assert "\n" not in str(raised.value)
    assert "h2_attention" in str(raised.value) and SECOND in str(raised.value)
    line = one_line_error(cli("autograde", "vector", "--assignments", str(BUNDLES),
                              "--root", str(tmp_path)))
    assert "'vector'" in line and "h2_attention" in line and SECOND in line


def test_the_assignments_command_lists_both_and_where_each_comes_from():
    done = cli("assignments", "--assignments", "tests/bundles")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    (h2,) = [line for line in lines if "h2_attention" in line]
    (ours,) = [line for line in lines if re.search(rf"\b{SECOND}\b", line)]
    assert "package" in h2
    assert str(BUNDLES) in ours
    without = cli("assignments")
    assert without.returncode == 0 and SECOND not in without.stdout


# ------------------------------------------------------------------ its release notebook


def test_the_release_notebook_has_the_spec_cells_and_points(second):
    cells = nbgrader_cells(release_notebook(second))
    solutions = {gid for gid, meta in cells.items() if meta.get("solution")}
    assert solutions == set(second.solution_cells) == set(second.function_parts)
    grades = {gid: meta["points"] for gid, meta in cells.items() if meta.get("grade")}
    assert grades == {second.part(name).grade_cell: points
                      for name, points in second.part_points.items()}
    assert all(meta["locked"] for gid, meta in cells.items() if gid not in solutions)


def test_the_release_says_which_locked_cells_run(second):
    roles = {gid: cell.role for gid, cell in locked_cells_of(
        json.loads(second.grader_release_notebook.read_text(encoding="utf-8")),
        second).items()}
    assert roles == {"setup": "run", "demo": "skip", "check_dot": "skip", "check_norm": "skip",
                     "check_normalize": "skip"}


def test_the_release_checksums_are_nbgraders(second):
    for cell in release_notebook(second).cells:
        if "nbgrader" in cell.metadata:
            assert cell.metadata["nbgrader"]["checksum"] == compute_checksum(cell), cell.id


def test_every_check_traces_to_the_notebook_text(second):
    def normalise(text: str) -> str:
        return re.sub(r"\s+", " ", text).strip().casefold()

    notebook = release_notebook(second)
    texts = [normalise(cell.source) for cell in notebook.cells if cell.cell_type == "markdown"]
    found = {}
    for path in sorted(second.checks_dir.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = {node.targets[0].id: node.value.value for node in tree.body
                     if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "part"):
                (part,) = node.args
                name = constants[part.id] if isinstance(part, ast.Name) else part.value
                requires = next(k.value.value for k in node.keywords if k.arg == "requires")
                found.setdefault(name, []).append(requires)
                assert any(normalise(requires) in text for text in texts), requires
    assert {name: len(clauses) for name, clauses in found.items()} == dict.fromkeys(
        second.function_parts, 1)  # one check per part


# ------------------------------------------------------------------ graded in-process


def graded_in_process(tmp_path, second, *, buggy: bool):
    from autograder.grading.runner import run_checks
    from autograder.grading.submission import load_submission

    folder = students.write_submission(tmp_path / ("buggy" if buggy else "correct"),
                                       buggy=buggy)
    submission = load_submission(folder, "s1", assignment=second)
    assert not submission.fatal and submission.evidence is None, submission.fatal
    student = InProcessStudent(submission.runnable)
    assert not student.cell_errors, student.cell_errors
    results = run_checks(student, second)
    points: dict[str, int] = {}
    for result in results:
        points[result.part] = points.get(result.part, 0) + result.points
    return results, points


def test_the_checks_collect_with_the_spec_points(second):
    from autograder.grading.runner import collect_checks

    checks = collect_checks(second)
    assert sorted(check.common["part"] for check in checks) == ["dot", "norm", "normalize"]
    assert {check.common["part"]: check.common["max_points"] for check in checks} == \
        second.part_points


def test_the_reference_gets_full_marks_in_process(tmp_path, second):
    results, points = graded_in_process(tmp_path, second, buggy=False)
    assert points == second.part_points
    assert all(result.status == "passed" for result in results)


def test_the_bug_costs_its_own_part_only_in_process(tmp_path, second):
    results, points = graded_in_process(tmp_path, second, buggy=True)
    assert points == {**second.part_points, students.BUGGY_PART: 0}
    (failed,) = [result for result in results if result.status != "passed"]
    assert failed.part == students.BUGGY_PART and failed.status == "failed"
    assert "unit vector" in failed.message
