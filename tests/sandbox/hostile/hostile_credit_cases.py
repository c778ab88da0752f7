"""Hostile submissions that fish for carried-forward credit (issue 25, findings 1 and 2).

Graded in the same batch as ``hostile_cases.HOSTILE`` (appended to that table). The
four functions that build on others are left undone, each way a dishonest student
might: honest release stubs, stubs that raise an error of their own while
``attention_scores`` raises the same error when it recognises the recheck, and stubs
that return a constant. Every variant gets the same (correct) evidence file, so their
totals differ only by what the function parts give; ``test_no_points_without_work``
compares them.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from autograder.authoring.sync import grade_id
from tests.sandbox.hostile.hostile_cases import (
    EVIDENCE_PARTS,
    Context,
    Expect,
    Hostile,
    cell_index,
    code,
    cohort,
    write_submission,
)
from tests.support.h2 import SPEC

UNDONE = ("scaled_dot_product_attention", "self_attention", "cross_attention", "value_intervention")
HONEST = "credit_honest_stubs"


def _undone(body: str, *extra: str) -> object:
    """The solved notebook with the release stubs of ``UNDONE`` (their body replaced by
    ``body`` unless None) and ``extra`` cells after the last solution."""

    def build(folder: Path, student: str, ctx: Context) -> None:
        notebook = cohort.solved_notebook(student)
        release = nbformat.read(SPEC.release_notebook, as_version=4)
        for cell in release.cells:
            if grade_id(cell) in UNDONE:
                stub = cell.source if body is None else cell.source.replace(
                    "raise NotImplementedError()", body)
                cohort.set_cell(notebook, grade_id(cell), lambda _, stub=stub: stub)
        at = cell_index(notebook, "score_entry_count") + 1
        for offset, source in enumerate(extra):
            notebook.cells.insert(at + offset, nbformat.v4.new_code_cell(code(source)))
        write_submission(folder, student, notebook)

    return build


RECOGNISES_THE_RECHECK = """
_SEEN = []
_sdpa_stub = scaled_dot_product_attention
def scaled_dot_product_attention(Q, K, V, mask=None, scale=None, temperature=1.0):
    _SEEN.append(np.array(Q, copy=True))
    return _sdpa_stub(Q, K, V, mask=mask, scale=scale, temperature=temperature)
_right_scores = attention_scores
def attention_scores(Q, K, scale=None):
    if any(seen.shape == np.shape(Q) and np.array_equal(seen, Q) for seen in _SEEN):
        raise ValueError("not done")
    return _right_scores(Q, K, scale=scale)
"""

NOTHING = Expect(zero=UNDONE, lost=UNDONE, unsure=EVIDENCE_PARTS)

CREDIT_CASES = [
    Hostile(HONEST, "the release stubs of the four functions that build on others",
            _undone(None), NOTHING),
    Hostile("credit_raise_and_recognise",
            "the four raise ValueError; attention_scores raises it too on the Q the SDPA saw",
            _undone('raise ValueError("not done")', RECOGNISES_THE_RECHECK),
            Expect(zero=UNDONE, lost=UNDONE, unsure=EVIDENCE_PARTS,
                   messages={"self_attention": r"not carried forward: your `attention_scores` passes"})),
    Hostile("credit_constants", "the four return np.zeros(1)",
            _undone("return np.zeros(1)"), NOTHING),
]
