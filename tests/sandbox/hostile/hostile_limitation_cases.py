"""Hostile limitations (issue 25, finding 4): not the student's own words about attention.

Graded in the same batch as ``hostile_cases.HOSTILE`` (appended to that table). Each
submission is the solved notebook with its correct evidence file; only the limitation
differs, in the notebook's LIMITATION cell and in the file alike, as the notebook's own
evidence cell writes it: copied word for word from the notebook's closing cell or a
Step 11 bullet, lightly edited, contradicting the lecture, or vacuous. Each must keep
every other part full and leave the limitation to a person (``needs_review``) with
provisional points: never silent full marks, never a zero.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from autograder.bundles.h2_attention import samples as cohort
from autograder.bundles.h2_attention.evidence import LIMITATION_POINTS, LIMITATION_REVIEW_POINTS
from tests.sandbox.hostile.hostile_cases import NOTEBOOK, Context, Expect, Hostile

# Word for word from the release notebook (tests/h2_attention/evidence/test_limitation.py proves it).
CLOSING_CELL = (
    "And one caution: attention weights alone are not causal explanations. Your value "
    "intervention showed that the weights do not say how much a key changed the output; that "
    "depends on the values too, and in a real model on residual paths and later layers."
)
SECTION_12_BULLET = (
    "guaranteed retrieval: a key is retrieved only if its score stands out. In the cell below "
    "the first key is always reachable, but when nothing singles it out its weight shrinks like "
    "1 / T."
)
EDITED_CLOSING_CELL = (
    "One caution: attention weights by themselves are not causal explanations. The value "
    "intervention showed that weights do not tell how much a key changed the output; this "
    "depends on the values as well, and in a real model on the residual paths and the later "
    "layers."
)
CONTRADICTS = (
    "Attention weights are a faithful causal explanation of the output: the key with the largest "
    "weight is the one the model relied on, so the only limitation is that heatmaps become hard "
    "to read for long inputs."
)
VACUOUS = (
    "The main limitation of attention is that its weights are not always an explanation, and "
    "this really matters in some situations, so it should be considered carefully whenever we use "
    "a model."
)

COPIED = r"repeats the notebook's sentence '.+' \(\d+% of its words are the notebook's\); write it in your own words"

assert 0 < LIMITATION_REVIEW_POINTS < LIMITATION_POINTS  # "lost" below means provisional


def _with_limitation(text: str) -> object:
    """The solved notebook and its evidence file, both with ``text`` as the limitation."""

    def build(folder: Path, student: str, ctx: Context) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        notebook = cohort.solved_notebook(student, text)
        (folder / NOTEBOOK).write_text(nbformat.writes(notebook), encoding="utf-8")
        cohort.write_evidence(folder, student, text)

    return build


def _reviewed(message: str) -> Expect:
    return Expect(lost=("limitation",), reviewed=("limitation",),
                  messages={"limitation": message})


LIMITATION_CASES: list[Hostile] = [
    Hostile(
        "limitation_closing_cell",
        "the limitation is the notebook's closing caution, word for word",
        _with_limitation(CLOSING_CELL),
        _reviewed(COPIED),
    ),
    Hostile(
        "limitation_section_12_bullet",
        "the limitation is a bullet of the notebook's Step 11, word for word",
        _with_limitation(SECTION_12_BULLET),
        _reviewed(COPIED),
    ),
    Hostile(
        "limitation_edited_copy",
        "the closing caution with a few words changed",
        _with_limitation(EDITED_CLOSING_CELL),
        _reviewed(r"repeats the notebook's sentence 'Your value intervention showed"),
    ),
    Hostile(
        "limitation_contradicts_lecture",
        "the limitation says attention weights are a faithful causal explanation",
        _with_limitation(CONTRADICTS),
        _reviewed(r"states that attention weights are a faithful or causal explanation"),
    ),
    Hostile(
        "limitation_vacuous",
        "a limitation of general phrases that names no concrete problem",
        _with_limitation(VACUOUS),
        _reviewed(r"makes no concrete claim about attention"),
    ),
]
