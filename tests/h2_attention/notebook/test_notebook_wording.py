"""The release notebook says what the lecture says (issue 30): steps numbered as the
lecture's, the sentences once wrong or muddled now right, the lecture's points made.

Each test pins the wording that matters and the old wording that must not come back;
reworded text breaks it on purpose, so a change of meaning is a decision, not a slip.
"""

from __future__ import annotations

import contextlib
import io
import re

import nbformat
import pytest

from autograder.authoring.sync import grade_id
from tests.support.h2 import SPEC

CELLS = nbformat.read(SPEC.release_dir / SPEC.notebook, as_version=4).cells
TEXT = "\n".join(cell.source for cell in CELLS)
MARKDOWN = "\n".join(cell.source for cell in CELLS if cell.cell_type == "markdown")


def flat(text: str) -> str:
    return " ".join(text.split())


def code(gid: str) -> str:
    return next(cell.source for cell in CELLS if grade_id(cell) == gid)


def step_headings() -> list[tuple[int, str]]:
    return [(int(number), title) for number, title in
            re.findall(r"^## Step (\d+) · (.+)$", MARKDOWN, flags=re.M)]


def test_the_steps_are_numbered_one_to_thirteen_in_order():
    assert [number for number, _ in step_headings()] == list(range(1, 14))
    assert not re.search(r"^## \d", MARKDOWN, flags=re.M)  # no section left unnumbered as a step
    assert not re.search(r"\bsection \d", TEXT)  # cross-references name steps too


def test_run_step_9_and_step_10_land_where_the_lecture_says():
    titles = dict(step_headings())
    assert titles[9] == "Parity with PyTorch"
    assert titles[10] == "A value intervention"
    cell_of = {int(number): i for i, cell in enumerate(CELLS) if cell.cell_type == "markdown"
               for number in re.findall(r"^## Step (\d+) ·", cell.source, flags=re.M)}
    nine, ten, eleven = (cell_of[n] for n in (9, 10, 11))
    assert [grade_id(c) for c in CELLS[nine:ten] if grade_id(c) == "torch_sdpa"] == ["torch_sdpa"]
    assert "value_intervention" in [grade_id(c) for c in CELLS[ten:eleven]]


@pytest.mark.parametrize("old, new", [
    # weights: masks make exact zeros, so non-negative, and the hull is the permitted values'
    ("weights are positive and sum to one", "weights are non-negative and sum to one (a masked key gets exactly 0)"),
    ("weights that are positive and sum to one", "weights that are non-negative and sum to one"),
    (None, "every context vector lies in the convex hull of the value rows (of the permitted keys)"),
    # IndexError: a shape error is a ValueError; value_intervention's index is the one exception
    ("an `IndexError` or a silently wrong answer is not enough",
     "The one `IndexError` asked for is different: `value_intervention` raises it for an `index` outside the keys"),
    # np.asarray(x, dtype=float): what it breaks, and what integers give
    ("integer inputs may become float64", "integer inputs are accepted and computed in float64 (integers in, float64 out)"),
    (None, "do not convert every input with `np.asarray(x, dtype=float)`: that turns float32 inputs into float64 too"),
    # T: bounded by compute and the trained context window, not by storing the T² matrix
    ("bounded by the memory the `T²` pairs need",
     "the `T²` scores must all be computed, even when fused kernels avoid storing them, and a trained model is reliable only up to its context window"),
    # the explorer: the widget may import and still not render
    ("If the slider does not appear, a static table is printed instead",
     "If you see a line of text such as `VBox(children=...)` instead of a slider, the widgets' front end is missing"),
    # the fully masked row: which index names it
    ('naming the row by its 0-based index (e.g. "row 2")',
     'naming the row by its 0-based query index (e.g. "row 2" for the third query)'),
    (None, 'with batch dimensions the message may give the batch index too (e.g. "row (1, 2)": batch 1, query 2)'),
])
def test_a_sentence_once_wrong_is_right(old, new):
    text = flat(TEXT)
    if old is not None:
        assert flat(old) not in text
    assert flat(new) in text


def test_the_limitation_check_says_who_scores_the_limitation():
    namespace: dict = {}
    exec(code("evidence_helper"), namespace)  # the word count and the rule the check applies
    namespace["LIMITATION"] = "word " * 30
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(code("check_limitation"), namespace)
    printed = flat(output.getvalue())
    assert printed.startswith("limitation: 30 words.")
    assert "a person reads it after you submit" not in printed
    assert "the grader scores it when it recognises the limitation" in printed
    assert "when it cannot judge it, a person reads it" in printed


def test_the_interventions_formula_is_the_one_that_broadcasts():
    assert "weights[..., :, [index]] * (new_value - V[..., [index], :])" in code("value_intervention")
    assert "weights[..., :, index] * (new_value - V[..., index, :])" not in TEXT


@pytest.mark.parametrize("point", [
    # a natural-language query is not an attention query vector
    "A query here is a **vector**, not a question in words.",
    # scaling by sqrt(d_k) does not remove every saturation issue
    "it does not eliminate every saturation issue",
    # why the causal diagonal is allowed
    "the input token at position *i* is used to predict token *i + 1*",
    "the token it has to predict is never among its keys",
])
def test_the_lectures_points_are_made(point):
    assert flat(point) in flat(MARKDOWN)


@pytest.mark.parametrize("praised", [
    "demo_overflow",  # the overflow demo
    "demo_mask_conventions",  # True = allowed (SDPA) against True = blocked (MHA)
    "demo_self_and_cross",  # self- versus cross-attention
])
def test_the_parts_students_praised_are_kept(praised):
    assert code(praised)


def test_exact_zeros_versus_minus_100_and_weights_are_not_explanations_are_kept():
    text = flat(MARKDOWN)
    assert "a large negative score such as `-100` only makes them small" in text
    assert "attention weights alone are not causal explanations" in text
