"""Evidence files as students make them, for the provenance tests.

``honest_evidence`` is what the notebook's evidence cell writes: ``build_evidence`` run
on the namespace the student's own code defines. ``TORCH_API`` is the attack of a
student who leaves the stubs in and feeds the same helper a few lines of torch.
"""

from __future__ import annotations

import nbformat
import numpy as np

from autograder.authoring.sync import grade_id
from solutions.evidence import build_evidence
from tests.support.h2 import SPEC

TORCH_API = """
import numpy as np
import torch
import torch.nn.functional as F

def _t(x):
    return torch.from_numpy(np.array(x))

def attention_scores(Q, K, scale=None):
    scale = 1.0 / np.sqrt(np.shape(Q)[-1]) if scale is None else scale
    return (_t(Q) @ _t(K).transpose(-1, -2) * scale).numpy()

def scaled_dot_product_attention(Q, K, V, mask=None, scale=None, temperature=1.0):
    scores = _t(attention_scores(Q, K, scale))
    if mask is not None:
        scores = scores.masked_fill(~_t(mask), float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return (weights @ _t(V)).numpy(), weights.numpy()

def torch_sdpa(Q, K, V, mask=None, scale=None):
    m = None if mask is None else _t(np.asarray(mask, dtype=bool))
    return F.scaled_dot_product_attention(_t(Q), _t(K), _t(V), attn_mask=m).numpy()

def value_intervention(Q, K, V, index, new_value, mask=None):
    after = np.array(V, dtype=float)
    after[index] = new_value
    cb, wb = scaled_dot_product_attention(Q, K, V, mask=mask)
    ca, wa = scaled_dot_product_attention(Q, K, after, mask=mask)
    return {"weights_before": wb, "weights_after": wa, "context_before": cb, "context_after": ca}
"""


def namespace(source: str) -> dict:
    """What ``source`` defines, run in this process (trusted test code only)."""
    names: dict = {"__name__": "__notebook__"}
    exec(compile(source, "<notebook>", "exec"), names)
    return names


def honest_evidence(source: str, student: str, limitation: str,
                    cohort: str | None = None) -> dict:
    """The file the evidence cell writes when ``source`` is the student's code."""
    with np.errstate(all="ignore"):
        return build_evidence(namespace(source), student, limitation, cohort)


def notebook_code(notebook: nbformat.NotebookNode) -> str:
    """The cells the grader runs for an untampered notebook (setup, data, solutions)."""
    wanted = SPEC.run_cells | SPEC.solution_cells
    return "\n\n".join(cell.source for cell in notebook.cells
                       if cell.cell_type == "code" and grade_id(cell) in wanted)
