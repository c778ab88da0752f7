"""Correct students get 100/100: six solutions written from the released notebook alone.

Each module of ``tests/h2_attention/correct/`` is a complete, correct solution in its own style,
written from the release notebook's text (markdown, docstrings, signatures, visible
checks, the "Conventions every function follows" list) without looking at the
reference or the hidden checks. They are graded the way the course grades:

* in-process, with the hidden checks (fast): every function part must be full;
* through the real batch grader (slow): one submission per solution in a course root,
  the release notebook with each solution cell replaced by that solution's function,
  and the evidence file the notebook's own helper writes from those functions; every
  result must be 100/100, ``graded`` and not ``needs_review``.

A solution that loses points for a rule the notebook does not state (or states
ambiguously) stays as a careful student would write it; its test is marked
``xfail(strict=True)`` in ``XFAIL`` with the reason.
"""

from __future__ import annotations

import ast
import importlib
import json
import shutil
from pathlib import Path

import nbformat
import pytest

from autograder.authoring.sync import grade_id
from autograder.base.course import Course
from autograder.batch.engine import BatchOptions, grade_course
from autograder.bundles.h2_attention.samples import set_cell, solved_notebook, write_evidence
from autograder.grading import run_checks, score_parts
from autograder.results.result import STATUS_GRADED
from solutions import evidence as evidence_builder
from tests.support.h2 import H2, SPEC
from tests.support.in_process import InProcessStudent
from tests.support.said import said

CORRECT_DIR = Path(__file__).with_name("correct")

SOLUTIONS = (
    "numpy_oneliners",
    "explicit_loops",
    "einsum_everywhere",
    "where_masking",
    "defensive_validation",
    "torch_heavy",
)

# Every graded function of the spec, so that a new part cannot be left out of a solution.
FUNCTIONS = SPEC.function_parts

# The notebook's setup cell imports these (plus matplotlib, which no solution needs);
# the brief also allows ``torch.nn.functional``.
ALLOWED_IMPORTS = {"math", "numpy", "torch", "numpy.typing", "torch.nn.functional"}

# solution -> why it loses points for a rule the release notebook does not state.
XFAIL: dict[str, str] = {}


def _params() -> list:
    return [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=XFAIL[name]))
        if name in XFAIL
        else name
        for name in SOLUTIONS
    ]


def source_of(name: str) -> str:
    return (CORRECT_DIR / f"{name}.py").read_text(encoding="utf-8")


def split_solution(name: str) -> tuple[dict[str, str], str]:
    """The solution's top-level functions (name -> source) and its ``LIMITATION`` text."""
    text = source_of(name)
    tree = ast.parse(text)
    functions = {
        node.name: ast.get_source_segment(text, node)
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
    }
    (limitation,) = (
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        and [getattr(t, "id", None) for t in node.targets] == ["LIMITATION"]
    )
    return functions, limitation.strip()


def solution_functions(name: str) -> dict:
    """The solution's namespace, as the notebook's evidence cell would see it."""
    return vars(importlib.import_module(f"tests.h2_attention.correct.{name}"))


def report(scores: dict) -> str:
    lines = []
    for part, score in scores.items():
        if score.points != score.max_points:
            lines.append(f"{part}: {score.points}/{score.max_points}")
            lines += [f"    {message}" for message in said(score.messages)]
    return "\n".join(lines)


# ----------------------------------------------------------------- the corpus itself


@pytest.mark.parametrize("name", SOLUTIONS)
def test_solution_is_a_notebook_answer(name):
    """Every graded function, each its own top-level definition (one solution cell each),
    no helpers at module level, only the setup cell's imports, and a limitation."""
    text = source_of(name)
    tree = ast.parse(text)
    assert ast.get_docstring(tree), f"{name}: the module docstring names its style"
    functions, limitation = split_solution(name)
    assert sorted(functions) == sorted(FUNCTIONS)
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module)
    assert imported <= ALLOWED_IMPORTS, f"{name} imports {sorted(imported - ALLOWED_IMPORTS)}"
    assert 20 <= len(limitation.split()) <= 200


def test_solutions_are_different():
    """Six styles, six different texts for every function."""
    for function in FUNCTIONS:
        texts = {split_solution(name)[0][function] for name in SOLUTIONS}
        assert len(texts) == len(SOLUTIONS), f"{function} is written the same way twice"


# ----------------------------------------------------------------- in-process grading


@pytest.mark.parametrize("name", _params())
def test_in_process_full_marks(name):
    student = InProcessStudent(source_of(name), filename=f"<{name}>")
    assert not student.cell_errors, student.cell_errors
    scores = score_parts(run_checks(student, H2), H2)
    assert set(scores) == set(SPEC.function_points)
    lost = report(scores)
    assert not lost, f"{name} loses points:\n{lost}"
    assert all(score.points == score.max_points for score in scores.values())


# ----------------------------------------------------------------- the real batch grader


def student_id(name: str) -> str:
    return f"correct-{name.replace('_', '-')}"


def build_submission(root: Path, name: str) -> None:
    """``submitted/<student>/h2_attention/``: the release notebook with this solution's
    functions in their solution cells, and the evidence file the notebook's helper
    writes from those functions."""
    student = student_id(name)
    functions, limitation = split_solution(name)
    notebook = solved_notebook(student, limitation)  # STUDENT_ID and LIMITATION set
    for function, text in functions.items():
        set_cell(notebook, function, lambda _old, text=text: text)
    ours = {*functions.values(), f'LIMITATION = """\n{limitation}\n"""'}
    for cell in notebook.cells:  # every solution cell is this student's, none the reference's
        if cell.metadata.get("nbgrader", {}).get("solution"):
            assert cell.source in ours, f"{name}: solution cell {grade_id(cell)} not replaced"
    folder = root / "submitted" / student / SPEC.name
    folder.mkdir(parents=True)
    (folder / SPEC.notebook).write_text(nbformat.writes(notebook), encoding="utf-8")
    api = solution_functions(name)
    # write_evidence falls back to the reference's file when the functions fail;
    # make sure they do not, so the file really is this solution's.
    json.dumps(evidence_builder.build_evidence(api, student, limitation), allow_nan=False)
    write_evidence(folder, student, limitation, functions=api)


@pytest.fixture(scope="module")
def graded_course(tmp_path_factory):
    root = tmp_path_factory.mktemp("correct-course")
    for name in SOLUTIONS:
        build_submission(root, name)
    shutil.copytree(SPEC.source_dir, root / "source" / SPEC.name)
    summary = grade_course(Course(root, SPEC.name), options=BatchOptions(jobs=2, progress=False))
    return {result.student: result for result in summary.results}


@pytest.mark.slow
@pytest.mark.parametrize("name", _params())
def test_batch_grader_full_marks(graded_course, name):
    result = graded_course[student_id(name)]
    lost = "\n".join(
        f"{part.part}: {part.points}/{part.max_points}: " + " | ".join(said(part.messages))
        for part in result.parts
        if part.points != part.max_points or part.needs_review
    )
    assert result.status == STATUS_GRADED, f"{name}: {result.status}: {result.reason}"
    assert (result.score, result.max_score) == (100, 100), f"{name} loses points:\n{lost}"
    assert not result.needs_review, f"{name} needs review:\n{lost}\n{result.notes}"


@pytest.mark.parametrize("name", SOLUTIONS)
def test_every_visible_check_passes(name):
    """What the student sees before submitting agrees with the grade: every visible check
    of the release (the conventions included) passes on a correct solution."""
    import matplotlib

    matplotlib.use("Agg")
    release = nbformat.read(SPEC.release_notebook, as_version=4)
    by_id = {c.metadata.get("nbgrader", {}).get("grade_id"): c.source for c in release.cells}
    namespace: dict = {"__name__": "__main__"}
    for gid in sorted(SPEC.run_cells, key=list(by_id).index):
        exec(compile(by_id[gid], f"<{gid}>", "exec"), namespace)
    namespace.update(solution_functions(name))
    for part in SPEC.function_parts:
        exec(compile(by_id[SPEC.part(part).grade_cell], f"<check {part}>", "exec"), namespace)
