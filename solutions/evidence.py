"""Builds the attention-evidence file from a set of attention functions.

The notebook's locked "evidence" cell is a verbatim copy of the functions
below (a test compares them), called with ``api=globals()`` so that the
*student's* functions produce the numbers. The grader calls the same code
with the reference to know what a correct file contains.

Per-student inputs: the masked case and the intervention are derived from
``cohort`` and ``student_id`` (a SHA-256 seed), so a file copied from another
student does not verify; the hand example is the lecture's, the same for all.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping

import numpy as np

EVIDENCE_SCHEMA_VERSION = "1.0"
EVIDENCE_FILENAME = "attention_evidence.json"
LIMITATION_PLACEHOLDER = (
    "Replace this sentence with one limitation of attention, in your own words."
)
MASK_CONVENTION = "True means the query may attend to the key"
PARITY_TOLERANCES = {
    "float64": {"atol": 1e-10, "rtol": 0.0},
    "float32": {"atol": 1e-5, "rtol": 1e-4},
}


def evidence_inputs(student_id: str, cohort: str | None = None) -> dict:
    """The evidence inputs for one student: the lecture's hand example plus a
    masked case and an intervention drawn from a seed of cohort and student id."""
    seed_text = f"h2_attention|{cohort or ''}|{student_id}"
    seed = int.from_bytes(hashlib.sha256(seed_text.encode("utf-8")).digest()[:8], "big")
    rng = np.random.default_rng(seed)
    n_q, n_k, d_k, d_v = 4, 5, 3, 2
    length = int(rng.integers(3, n_k + 1))  # real keys; the rest are padding
    mask = np.tril(np.ones((n_q, n_k), dtype=bool)) & (np.arange(n_k) < length)[None, :]
    values = rng.integers(-5, 6, size=(n_k, d_v)).astype(float)
    index = int(rng.integers(0, min(length, n_q)))
    delta = rng.integers(1, 6, size=d_v) * rng.choice([-1, 1], size=d_v)
    return {
        "hand_example": {
            "queries": [[1.0, 0.0]],
            "keys": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
            "values": [[10.0, 0.0], [0.0, 10.0], [10.0, 10.0]],
        },
        "masked_case": {
            "queries": rng.integers(-2, 3, size=(n_q, d_k)).astype(float).tolist(),
            "keys": rng.integers(-2, 3, size=(n_k, d_k)).astype(float).tolist(),
            "values": values.tolist(),
            "mask": mask.tolist(),
        },
        "intervention": {
            "index": index,
            "new_value": (values[index] + delta).tolist(),
        },
    }


def build_evidence(
    api: Mapping[str, Callable], student_id: str, limitation: str, cohort: str | None = None
) -> dict:
    """Run the attention functions found in ``api`` (a name -> function mapping)
    on this student's evidence inputs and return the evidence as plain JSON data."""
    import platform

    import torch

    def plain(x: object) -> list:
        return np.asarray(x).tolist()

    cohort = cohort or None
    inputs = evidence_inputs(student_id, cohort)
    hand = inputs["hand_example"]
    q, k, v = (np.array(hand[key]) for key in ("queries", "keys", "values"))
    context, weights = api["scaled_dot_product_attention"](q, k, v)
    raw_scores = np.asarray(api["attention_scores"](q, k, scale=1.0))
    default_scores = np.asarray(api["attention_scores"](q, k))
    hand_example = dict(
        hand,
        scale=float(default_scores[0, 0] / raw_scores[0, 0]),  # the scale YOUR default used
        raw_scores=plain(raw_scores),
        weights=plain(weights),
        context=plain(context),
    )

    case = inputs["masked_case"]
    Q, K, V = (np.array(case[key]) for key in ("queries", "keys", "values"))
    mask = np.array(case["mask"], dtype=bool)
    context, weights = api["scaled_dot_product_attention"](Q, K, V, mask=mask)
    masked_case = dict(
        case,
        mask_convention=MASK_CONVENTION,
        weights=plain(weights),
        row_sums=plain(np.sum(weights, axis=-1)),
        context=plain(context),
    )

    parity = []
    for dtype, tolerance in PARITY_TOLERANCES.items():
        Qd, Kd, Vd = (x.astype(dtype) for x in (Q, K, V))
        ours, _ = api["scaled_dot_product_attention"](Qd, Kd, Vd, mask=mask)
        theirs = api["torch_sdpa"](Qd, Kd, Vd, mask=mask)
        max_abs_diff = float(np.max(np.abs(np.asarray(ours, dtype=float) - theirs)))
        parity.append({"dtype": dtype, "max_abs_diff": max_abs_diff, **tolerance})

    index = inputs["intervention"]["index"]
    new_value = np.array(inputs["intervention"]["new_value"])
    result = api["value_intervention"](Q, K, V, index, new_value, mask=mask)
    intervention = {
        "queries": case["queries"],
        "keys": case["keys"],
        "values": case["values"],
        "mask": case["mask"],
        "index": index,
        "old_value": plain(V[index]),
        "new_value": plain(new_value),
        **{
            name: plain(result[name])
            for name in ("weights_before", "weights_after", "context_before", "context_after")
        },
    }

    return {
        "schema_version": EVIDENCE_SCHEMA_VERSION,
        "assignment": "h2_attention",
        "student_id": str(student_id),
        "cohort": cohort,
        "versions": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "torch": torch.__version__,
        },
        "hand_example": hand_example,
        "masked_case": masked_case,
        "parity": parity,
        "intervention": intervention,
        "limitation": None if limitation is None else str(limitation).strip(),
    }


def save_evidence(evidence: dict, path: str = EVIDENCE_FILENAME) -> str:
    """Write the evidence as strict JSON (NaN or Infinity would be rejected)."""
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(evidence, handle, indent=2, allow_nan=False)
        handle.write("\n")
    return path
