"""Predict, then check (issue 30): the notebook shows no hand-example number before the
student has entered a prediction, checks the prediction with a hint, and the explorer asks
for a ranking before it shows a query's weights.

The hint tests run the release's own cells in this (trusted) process; the "nothing shown"
test runs the solution notebook, predictions left empty, in a real Jupyter kernel.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil

import nbformat
import pytest

from autograder.authoring.sync import grade_id
from tests.support.h2 import SPEC, hand_example_truth
from tests.support.kernels import run_all

NOTEBOOK, RELEASE_DIR, SOURCE_DIR = SPEC.notebook, SPEC.release_dir, SPEC.source_dir
REVEAL, EXPLORER = "reveal_hand_example", "routing_explorer"

# The hand example's answers as the notebook prints them (4 decimals): scaled scores,
# weights, context, and the intervention's context and move (w_B * 10).
PRINTED = ("0.7071", "0.4011", "0.1978", "8.0222", "5.9889", "7.9666", "1.9778")
# The same numbers as a text may state them (3 decimals or more).
STATED = ("0.707", "0.401", "0.198", "0.197", "8.022", "5.988", "5.989", "7.966", "1.977", "1.978")


def release_cells() -> list[nbformat.NotebookNode]:
    return nbformat.read(RELEASE_DIR / NOTEBOOK, as_version=4).cells


def code_by_id() -> dict[str, str]:
    return {grade_id(cell): cell.source for cell in release_cells() if grade_id(cell)}


def run_reveal(scores: object, weights: object) -> tuple[str, BaseException | None]:
    """What the reveal cell prints (and raises) after the setup and hand-example cells,
    with the student's prediction ``scores`` and ``weights``."""
    cells = code_by_id()
    namespace: dict = {"__name__": "__main__", "MY_RAW_SCORES": scores, "MY_WEIGHTS": weights}
    for gid in ("setup", "hand_example"):
        exec(cells[gid], namespace)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        try:
            exec(cells[REVEAL], namespace)
        except AssertionError as error:
            return printed.getvalue(), error
    return printed.getvalue(), None


def test_no_cell_of_the_release_states_the_hand_examples_answers():
    found = [(grade_id(cell) or cell.cell_type, number) for cell in release_cells()
             for number in STATED if number in cell.source]
    assert found == []


def test_the_prediction_cell_comes_before_any_code_that_computes_the_answer():
    cells = release_cells()
    position = {grade_id(cell): i for i, cell in enumerate(cells) if grade_id(cell)}
    prediction = next(i for i, cell in enumerate(cells) if "MY_RAW_SCORES = None" in cell.source)
    assert position["hand_example"] < prediction < position[REVEAL] < position["attention_scores"]
    assert "raises-exception" in cells[position[REVEAL]].metadata.get("tags", [])


def test_nothing_is_revealed_without_a_prediction():
    printed, error = run_reveal(None, None)
    assert printed == "" and error is not None
    assert str(error).startswith("enter your paper prediction first")


def test_a_right_prediction_is_confirmed_and_the_exact_numbers_shown():
    scores, weights = hand_example_truth()
    printed, error = run_reveal(scores, [round(w, 2) for w in weights])
    assert error is None
    assert "Both rows are right" in printed and "hint" not in printed
    assert all(number in printed for number in ("0.4011", "0.1978")), printed
    assert "✗" not in printed and printed.count("✓") == 6


@pytest.mark.parametrize("weights, hint", [
    ([0.42, 0.16, 0.42], "divide the scores by sqrt(d_k) = sqrt(2) first"),  # softmax of raw scores
    ([0.38, 0.23, 0.38], "you divided the scores by d_k = 2"),
    ([0.5, 0.0, 0.5], "exp(0) = 1: its weight is not zero"),
    ([0.7, 0.7, 0.7], "softmax weights sum to 1 (yours sum to 2.10)"),
    ([0.2, 0.6, 0.2], "take exp of each, then divide each by their sum"),
])
def test_a_wrong_weight_row_gets_the_hint_for_its_slip(weights, hint):
    scores, _ = hand_example_truth()
    printed, error = run_reveal(scores, weights)
    assert error is None
    assert "hint (weights): " in printed and hint in printed, printed
    assert "hint (scores)" not in printed and "Both rows are right" not in printed
    assert "0.4011" in printed  # once predicted, the exact numbers are shown to compare with


def test_wrong_scores_get_the_dot_product_hint():
    _, weights = hand_example_truth()
    printed, _ = run_reveal([1.0, 1.0, 2.0], weights)
    assert "hint (scores): a raw score is the dot product" in printed
    assert printed.count("✗") == 3 - 1  # B's and C's scores, not A's


@pytest.mark.parametrize("scores", [[1, 0], "one zero one", [[1, 0, 1], [1, 0, 1]]])
def test_a_prediction_that_is_not_three_numbers_is_refused_in_one_line(scores):
    _, weights = hand_example_truth()
    printed, error = run_reveal(scores, weights)
    assert printed == "" and error is not None
    assert str(error).startswith("MY_RAW_SCORES and MY_WEIGHTS are lists of three numbers")


def explorer_namespace(rankings: dict) -> dict:
    """The namespace after the cells the explorer needs, solved with the reference."""
    import solutions

    cells = code_by_id()
    namespace: dict = {"__name__": "__main__", "MY_RANKINGS": rankings}
    for gid in ("setup", "hand_example"):
        exec(cells[gid], namespace)
    namespace.update({name: getattr(solutions, name) for name in solutions.__all__})
    return namespace


def run_explorer(rankings: dict) -> str:
    namespace = explorer_namespace(rankings)
    source = code_by_id()[EXPLORER].split("try:\n    import ipywidgets")[0]  # the table only
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(source, namespace)
    return printed.getvalue()


def test_the_explorer_shows_no_weights_before_a_ranking_is_predicted():
    printed = run_explorer({"[1, 0]": None, "[0, 1]": None, "[1, 1]": None, "[-1, 0]": None})
    lines = printed.splitlines()
    assert len(lines) == 4 and all("predict its ranking first" in line for line in lines), printed
    assert "weights" not in printed and not any(number in printed for number in PRINTED)


def test_the_explorer_compares_each_predicted_ranking_with_the_weights():
    printed = run_explorer({"[1, 0]": "c = a > b", "[0, 1]": "C > B > A", "[1, 1]": None,
                            "[-1, 0]": "B>A=C"})
    lines = printed.splitlines()
    by_query = {query: [line for line in lines if line.startswith(f"q={query} ")]
                for query in ("[1, 0]", "[0, 1]", "[1, 1]", "[-1, 0]")}
    assert len(by_query["[1, 0]"]) == 3 and all("A = C > B (as you predicted)" in line
                                                 for line in by_query["[1, 0]"])
    assert all("B = C > A (you predicted C > B > A" in line for line in by_query["[0, 1]"])
    assert by_query["[1, 1]"] == [next(line for line in lines if "[1, 1]" in line)]
    assert "predict its ranking first" in by_query["[1, 1]"][0]
    assert all("(as you predicted)" in line for line in by_query["[-1, 0]"])


def test_temperature_changes_the_sharpness_not_the_order():
    """What Step 5 asks the student to find: at T = 0.25, 1 and 4 the ranking is the same."""
    printed = run_explorer({"[1, 1]": "C > A = B"})
    rows = [line for line in printed.splitlines() if line.startswith("q=[1, 1]")]
    assert len(rows) == 3 and all(line.endswith("C > A = B (as you predicted)") for line in rows)
    weights_of_c = [float(line.split("C=")[1].split()[0]) for line in rows]
    assert weights_of_c[0] > weights_of_c[1] > weights_of_c[2]  # sharper at a low temperature


@pytest.fixture(scope="module")
def executed_without_predictions(tmp_path_factory) -> nbformat.NotebookNode:
    """The solution notebook run in a kernel by a student who skipped every prediction."""
    workdir = tmp_path_factory.mktemp("unpredicted") / SPEC.name
    shutil.copytree(SOURCE_DIR, workdir)
    notebook = nbformat.read(workdir / NOTEBOOK, as_version=4)
    for cell in notebook.cells:
        if cell.source.startswith("STUDENT_ID = "):
            cell.source = 'STUDENT_ID = "s-no-prediction"'
    notebook = run_all(notebook, workdir).notebook
    assert json.loads((workdir / SPEC.evidence_file).read_text())["student_id"] == "s-no-prediction"
    return notebook


def shown(cell: nbformat.NotebookNode) -> str:
    """Every text a cell's outputs show: printed lines, errors and text displays."""
    parts = []
    for out in cell.get("outputs", []):
        parts.append(out.get("text", ""))
        parts.append(out.get("evalue", ""))
        parts.append(out.get("data", {}).get("text/plain", ""))
    return "\n".join(parts)


@pytest.mark.slow
def test_a_student_who_skips_the_predictions_never_sees_the_hand_examples_numbers(
        executed_without_predictions):
    cells = {grade_id(cell) or cell.source[:30]: cell for cell in executed_without_predictions.cells}
    leaked = [(name, number) for name, cell in cells.items() for number in PRINTED
              if number in shown(cell)]
    assert leaked == []
    assert shown(cells[REVEAL]).strip().startswith("enter your paper prediction first")
    assert "enter your prediction in Step 1" in shown(cells["check_scaled_dot_product_attention"])
    assert shown(cells[EXPLORER]).count("predict its ranking first") >= 4
    # the functions themselves are right: every graded visible check passed
    failed = [name for name, cell in cells.items()
              if cell.metadata.get("nbgrader", {}).get("grade") and shown(cell).count("Error")]
    assert failed == []
