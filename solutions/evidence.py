"""Builds the attention-evidence file from a set of attention functions.

The notebook's locked "evidence" cell is a verbatim copy of the functions
below (a test compares them), called with ``api=globals()`` so that the
*student's* functions produce the numbers. The grader calls the same code
with the reference to know what a correct file contains, and each section's
function (``evidence_hand_example``...) with the submitted functions, to check
that they reproduce the submitted file.

Per-student inputs: the masked case and the intervention are derived from
``cohort`` and ``student_id`` (a SHA-256 seed), so a file copied from another
student does not verify; the hand example is the lecture's, the same for all.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable, Mapping

import numpy as np

EVIDENCE_SCHEMA_VERSION = "1.0"
EVIDENCE_FILENAME = "attention_evidence.json"
LIMITATION_PLACEHOLDER = (
    "Replace this sentence with one limitation of attention, in your own words."
)
# The limitation's length: the one rule the notebook's check, the schema and the grader apply.
LIMITATION_MIN_WORDS, LIMITATION_MAX_WORDS = 20, 200
# A word: a run of letters (with an apostrophe or a hyphen inside: "don't", "self-attention")
# or a run of digits.
WORD_PATTERN = r"[^\W\d_]+(?:['’-][^\W\d_]+)*|\d+"


def limitation_words(text: str) -> int:
    """How many words the grader counts in ``text``, the placeholder sentence left out."""
    return len(re.findall(WORD_PATTERN, str(text).replace(LIMITATION_PLACEHOLDER, " ")))
MASK_CONVENTION = "True means the query may attend to the key"
PARITY_TOLERANCES = {
    "float64": {"atol": 1e-10, "rtol": 0.0},
    "float32": {"atol": 1e-5, "rtol": 1e-4},
}
# Strict JSON has no NaN or infinity: a number your function computed as one is written as
# this text instead, so the file still records what your function returned.
NON_FINITE_TEXT = ("NaN", "Infinity", "-Infinity")


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


def _as_list(x: object) -> list:
    return np.asarray(x).tolist()


def as_json_numbers(value: object) -> object:
    """``value`` with every NaN or infinity written as "NaN", "Infinity" or "-Infinity":
    strict JSON has no such numbers, and the file must say what your function returned."""
    if isinstance(value, float) and not math.isfinite(value):
        return NON_FINITE_TEXT[0 if math.isnan(value) else 1 if value > 0 else 2]
    if isinstance(value, list):
        return [as_json_numbers(item) for item in value]
    if isinstance(value, dict):
        return {key: as_json_numbers(item) for key, item in value.items()}
    return value


def _masked_arrays(inputs: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    case = inputs["masked_case"]
    Q, K, V = (np.array(case[key]) for key in ("queries", "keys", "values"))
    return Q, K, V, np.array(case["mask"], dtype=bool)


def evidence_hand_example(api: Mapping[str, Callable], inputs: dict) -> dict:
    """The hand example's section: the lecture's inputs and what ``api`` makes of them."""
    hand = inputs["hand_example"]
    q, k, v = (np.array(hand[key]) for key in ("queries", "keys", "values"))
    context, weights = api["scaled_dot_product_attention"](q, k, v)
    raw_scores = np.asarray(api["attention_scores"](q, k, scale=1.0))
    default_scores = np.asarray(api["attention_scores"](q, k))
    return dict(
        hand,
        scale=float(default_scores[0, 0] / raw_scores[0, 0]),  # the scale YOUR default used
        raw_scores=_as_list(raw_scores),
        weights=_as_list(weights),
        context=_as_list(context),
    )


def evidence_masked_case(api: Mapping[str, Callable], inputs: dict) -> dict:
    """The masked case's section: weights, their row sums and the context."""
    Q, K, V, mask = _masked_arrays(inputs)
    context, weights = api["scaled_dot_product_attention"](Q, K, V, mask=mask)
    return dict(
        inputs["masked_case"],
        mask_convention=MASK_CONVENTION,
        weights=_as_list(weights),
        row_sums=_as_list(np.sum(weights, axis=-1)),
        context=_as_list(context),
    )


def evidence_parity(api: Mapping[str, Callable], inputs: dict) -> list:
    """The parity section: the largest difference from torch's SDPA, per dtype."""
    Q, K, V, mask = _masked_arrays(inputs)
    parity = []
    for dtype, tolerance in PARITY_TOLERANCES.items():
        Qd, Kd, Vd = (x.astype(dtype) for x in (Q, K, V))
        ours, _ = api["scaled_dot_product_attention"](Qd, Kd, Vd, mask=mask)
        theirs = api["torch_sdpa"](Qd, Kd, Vd, mask=mask)
        max_abs_diff = float(np.max(np.abs(np.asarray(ours, dtype=float) - theirs)))
        parity.append({"dtype": dtype, "max_abs_diff": max_abs_diff, **tolerance})
    return parity


def evidence_intervention(api: Mapping[str, Callable], inputs: dict) -> dict:
    """The intervention's section: one value row replaced, before and after."""
    Q, K, V, mask = _masked_arrays(inputs)
    case = inputs["masked_case"]
    index = inputs["intervention"]["index"]
    new_value = np.array(inputs["intervention"]["new_value"])
    result = api["value_intervention"](Q, K, V, index, new_value, mask=mask)
    return {
        "queries": case["queries"],
        "keys": case["keys"],
        "values": case["values"],
        "mask": case["mask"],
        "index": index,
        "old_value": _as_list(V[index]),
        "new_value": _as_list(new_value),
        **{
            name: _as_list(result[name])
            for name in ("weights_before", "weights_after", "context_before", "context_after")
        },
    }


def build_evidence(
    api: Mapping[str, Callable], student_id: str, limitation: str, cohort: str | None = None
) -> dict:
    """Run the attention functions found in ``api`` (a name -> function mapping)
    on this student's evidence inputs and return the evidence as plain JSON data. A number
    they computed as NaN or infinity is written as text ("NaN", "Infinity", "-Infinity"); a
    section whose functions fail holds ``{"error": "..."}`` instead."""
    import platform

    import torch

    cohort = cohort or None
    inputs = evidence_inputs(student_id, cohort)

    def section(build: Callable[[Mapping[str, Callable], dict], object]) -> object:
        # One broken function costs only the sections that need it: the error is recorded
        # in the section's place and the rest of the file (and the limitation) is saved.
        try:
            value = as_json_numbers(build(api, inputs))  # NaN is recorded, not refused
            json.dumps(value, allow_nan=False)  # anything else that is not JSON data
            return value
        except Exception as error:  # noqa: BLE001 - the student's functions, whatever they raise
            text = f"{type(error).__name__}: {error}".strip().rstrip(":")
            return {"error": text[:300] or "an error without a message"}

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
        "hand_example": section(evidence_hand_example),
        "masked_case": section(evidence_masked_case),
        "parity": section(evidence_parity),
        "intervention": section(evidence_intervention),
        "limitation": None if limitation is None else str(limitation).strip(),
    }


def save_evidence(evidence: dict, path: str = EVIDENCE_FILENAME) -> str:
    """Write the evidence as strict JSON: ``build_evidence`` has written NaN and infinities
    as text, so ``allow_nan=False`` refuses only a file built some other way."""
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(evidence, handle, indent=2, allow_nan=False)
        handle.write("\n")
    return path
