"""Layer 2: recompute the evidence with the reference and compare.

Each stated number is recomputed from the file's own inputs with the reference
implementation (``solutions.attention``), and the inputs themselves are compared
with the ones generated for the student (``solutions.evidence.evidence_inputs``),
so a file from another student, or with edited numbers, does not verify. Every
finding names the evidence check it belongs to (see ``EVIDENCE_CHECK_POINTS``).
Only sections that passed the schema layer are checked.
"""

from __future__ import annotations

import math
from collections.abc import Collection

import numpy as np

from solutions.attention import attention_scores, scaled_dot_product_attention
from solutions.evidence import PARITY_TOLERANCES, evidence_inputs

from ..sections import INPUT_FIELDS, expected_input
from .report import Finding

# Stated numbers come from the student's float64 code, recomputed here in float64:
# both should agree to rounding. 1e-9 accepts any correct order of operations and
# rejects every bug in the lecture's list (they are off by > 1e-3).
ATOL = 1e-9
RTOL = 1e-9
UNCHANGED_ATOL = 1e-12  # "weights unchanged" / "context unchanged": same inputs, same code


def _finding(code: str, check: str, pointer: str, message: str, severity: str = "error",
             ta_note: str = "") -> Finding:
    return Finding(code=code, part="evidence", layer="consistency", pointer=pointer,
                   message=message, severity=severity, check=check, ta_note=ta_note)


def _at(pointer: str, index: tuple[int, ...]) -> str:
    return pointer + "".join(f"/{i}" for i in index)


def _first_difference(stated: np.ndarray, expected: np.ndarray, atol: float = ATOL,
                      rtol: float = RTOL) -> tuple[tuple[int, ...], int] | None:
    """Index of the largest disagreement and how many entries disagree, or None."""
    bad = ~np.isclose(stated, expected, rtol=rtol, atol=atol)
    if not bad.any():
        return None
    gap = np.where(bad, np.abs(stated - expected), -1.0)
    index = np.unravel_index(int(np.argmax(gap)), gap.shape)
    return tuple(int(i) for i in index), int(bad.sum())


def _compare(stated: object, expected: np.ndarray, *, code: str, check: str, pointer: str,
             what: str, why: str, hints: dict[str, np.ndarray] | None = None) -> list[Finding]:
    """A finding when ``stated`` differs from ``expected`` (pointing at the worst entry)."""
    stated = np.asarray(stated, dtype=float)
    result = _first_difference(stated, expected)
    if result is None:
        return []
    index, count = result
    hint = next(
        (f" Your numbers match {label}." for label, other in (hints or {}).items()
         if other.shape == stated.shape and np.allclose(stated, other, rtol=1e-6, atol=1e-6)),
        "",
    )
    return [_finding(code, check, _at(pointer, index), (
        f"{what}: the file says {stated[index]:.6g} here, but recomputing from the inputs in the "
        f"file gives {expected[index]:.6g} ({count} of {stated.size} entries differ). {why}{hint}"
    ))]


def _array(section: dict, name: str, dtype: type = float) -> np.ndarray:
    return np.asarray(section[name], dtype=dtype)


# --- identity --------------------------------------------------------------------------
def check_identity(data: dict, skip: set[str], student_id: str | None,
                   cohort: str | None) -> list[Finding]:
    """The file is this student's: id, cohort, and inputs generated from them.

    A student reads that the file is not theirs, never whose it is (that would name
    another student to them): the file's own id goes in the findings' ``ta_note``."""
    findings = []
    if "student_id" in skip or "cohort" in skip:
        return findings
    # No cohort and an empty cohort give the same seed, so they are the same cohort here.
    file_id, file_cohort = data["student_id"], data["cohort"] or None
    cohort = cohort or None
    if student_id is not None and file_id != str(student_id):
        findings.append(_finding("student_id_mismatch", "identity", "/student_id", (
            f"the student id in this file is not yours ({str(student_id)!r}): run the evidence "
            "cell in your own notebook, which writes your id"
        ), ta_note=f"the file says student id {file_id!r}, submitted by {student_id!r}"))
    if cohort is not None and file_cohort != cohort:
        findings.append(_finding("cohort_mismatch", "identity", "/cohort", (
            f"this file names cohort {file_cohort!r}, expected {cohort!r}: the inputs are "
            "generated from cohort and student id, so the cohort must be yours"
        )))
    if "masked_case" in skip and "intervention" in skip:
        return findings
    want_id = str(student_id) if student_id is not None else file_id
    want_cohort = cohort if cohort is not None else file_cohort
    expected = evidence_inputs(want_id, want_cohort)
    mismatch = _input_mismatch(data, skip, expected)
    if mismatch is None:
        return findings
    if (file_id, file_cohort) == (want_id, want_cohort):
        origin = "the file names this student, but its inputs were edited"
    elif _input_mismatch(data, skip, evidence_inputs(file_id, file_cohort)) is None:
        origin = (f"the inputs are exactly those of student id {file_id!r}"
                  f"{' in cohort ' + repr(file_cohort) if file_cohort else ''} (a copied file?)")
    else:
        origin = f"the inputs are not those of student id {file_id!r} (the file's) either: edited"
    findings.append(_finding("inputs_other_student", "identity", mismatch, (
        f"these inputs were generated for another student id, or edited: they are not the "
        f"inputs of student id {want_id!r}{' in cohort ' + repr(want_cohort) if want_cohort else ''}"
        f". Every student gets their own masked case and intervention; run the "
        "evidence cell in your own notebook without editing the file"
    ), ta_note=origin))
    return findings


def _input_mismatch(data: dict, skip: set[str], expected: dict) -> str | None:
    """Pointer to the first stated per-student input that differs from ``expected``."""
    for section, name in INPUT_FIELDS:
        if section in skip:
            continue
        # exact: inputs are small integers and Booleans
        if data[section][name] != expected_input(expected, section, name):
            return f"/{section}/{name}"
    return None


# --- hand example ------------------------------------------------------------------------
def check_hand_example(hand: dict) -> list[Finding]:
    """The lecture's example: inputs unchanged, scale 1/sqrt(d_k), scores, weights, context."""
    check, base = "hand_example", "/hand_example"
    lecture = evidence_inputs("")["hand_example"]
    findings = []
    for name in ("queries", "keys", "values"):
        if hand[name] != lecture[name]:
            findings.append(_finding("hand_inputs_changed", check, f"{base}/{name}", (
                f"the hand example's {name} are not the lecture's (q = [1, 0]; keys A=[1, 0], "
                "B=[0, 1], C=[1, 1]; values A=[10, 0], B=[0, 10], C=[10, 10]): keep the inputs "
                "exactly as given so the numbers can be compared with the slides"
            )))
    q, k, v = (_array(hand, name) for name in ("queries", "keys", "values"))
    d_k, d_v = k.shape[1], v.shape[1]
    scale, right = float(hand["scale"]), 1.0 / math.sqrt(d_k)
    if not math.isclose(scale, right, rel_tol=RTOL, abs_tol=ATOL):
        known = {1.0: "no scaling at all", 1.0 / d_k: "1/d_k (forgot the square root)",
                 1.0 / math.sqrt(d_v): "1/sqrt(d_v) (the value width, not the key width)"}
        guess = next((f" Your scale is {label}." for value, label in known.items()
                      if math.isclose(scale, value, rel_tol=1e-9)), "")
        findings.append(_finding("scale_wrong", check, f"{base}/scale", (
            f"the scale is {scale:.6g} but should be 1/sqrt(d_k) = 1/sqrt({d_k}) = {right:.6g}: "
            f"dividing by sqrt(d_k) keeps the scores' spread independent of the key width.{guess}"
        )))
    findings += _compare(hand["raw_scores"], attention_scores(q, k, scale=1.0),
                         code="raw_scores_mismatch", check=check, pointer=f"{base}/raw_scores",
                         what="raw scores", why="Raw scores are the unscaled dot products Q @ K^T.",
                         hints={"the scaled scores": attention_scores(q, k)})
    context, weights = scaled_dot_product_attention(q, k, v)
    findings += _compare(hand["weights"], weights, code="weights_mismatch", check=check,
                         pointer=f"{base}/weights", what="weights",
                         why="Weights are softmax(Q @ K^T / sqrt(d_k)) over each query's row.",
                         hints=_weight_hints(q, k))
    findings += _row_sum_findings(_array(hand, "weights"), None, check, f"{base}/weights")
    findings += _compare(hand["context"], _array(hand, "weights") @ v, code="context_mismatch",
                         check=check, pointer=f"{base}/context", what="context",
                         why="The context is weights @ values: each query's weighted average of the value rows.")
    return findings


def _weight_hints(q: np.ndarray, k: np.ndarray, mask: np.ndarray | None = None) -> dict:
    """Outputs of known bugs, to say which one a wrong answer looks like."""
    d_k = q.shape[1]
    hints = {}
    for label, scale in (("unscaled weights (no 1/sqrt(d_k))", 1.0),
                         ("weights scaled by 1/d_k instead of 1/sqrt(d_k)", 1.0 / d_k)):
        try:
            hints[label] = scaled_dot_product_attention(q, k, np.eye(k.shape[0]), mask=mask, scale=scale)[1]
        except ValueError:
            pass
    if mask is not None:
        try:
            hints["weights with the mask convention inverted (True must mean 'may attend')"] = (
                scaled_dot_product_attention(q, k, np.eye(k.shape[0]), mask=~mask)[1])
        except ValueError:
            pass
        scores = attention_scores(q, k)
        exps = np.exp(scores - scores.max(axis=-1, keepdims=True))
        hints["weights masked after the softmax (mask before, so rows still sum to one)"] = (
            np.where(mask, exps / exps.sum(axis=-1, keepdims=True), 0.0))
    return hints


def _row_sum_findings(weights: np.ndarray, mask: np.ndarray | None, check: str,
                      pointer: str) -> list[Finding]:
    sums = weights.sum(axis=-1)
    permitted = np.ones(len(sums), dtype=bool) if mask is None else mask.any(axis=-1)
    bad = permitted & ~np.isclose(sums, 1.0, rtol=0.0, atol=ATOL)
    if not bad.any():
        return []
    row = int(np.argmax(bad))
    return [_finding("row_sums", check, f"{pointer}/{row}", (
        f"the weights of query {row} sum to {sums[row]:.6g}, not 1: softmax over a query's "
        "permitted keys gives weights that sum to one (if you masked after the softmax, "
        "mask the scores before it instead; if columns sum to one, the softmax ran over the "
        "wrong axis)"
    ))]


# --- masked case ---------------------------------------------------------------------------
def _reference(q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray, check: str,
               pointer: str) -> tuple[tuple[np.ndarray, np.ndarray] | None, list[Finding]]:
    empty = ~mask.any(axis=-1)
    if empty.any():
        row = int(np.argmax(empty))
        return None, [_finding("mask_empty_row", check, f"{pointer}/mask/{row}", (
            f"query {row} may attend to no key (its mask row is all false): softmax is "
            "undefined there, so no weights can be checked"
        ))]
    return scaled_dot_product_attention(q, k, v, mask=mask), []


def check_masked_case(case: dict) -> list[Finding]:
    """Masked weights recomputed, blocked entries exactly 0, rows sum to one, context."""
    check, base = "masked_case", "/masked_case"
    q, k, v = (_array(case, name) for name in ("queries", "keys", "values"))
    mask = _array(case, "mask", bool)
    weights = _array(case, "weights")
    reference, findings = _reference(q, k, v, mask, check, base)
    if reference is not None:
        findings += _compare(weights, reference[1], code="weights_mismatch", check=check,
                             pointer=f"{base}/weights", what="masked weights",
                             why="Weights are the softmax of the scaled scores over each query's permitted keys.",
                             hints=_weight_hints(q, k, mask))
    blocked = ~mask & (weights != 0.0)
    if blocked.any():
        i, j = (int(x) for x in np.argwhere(blocked)[0])
        findings.append(_finding("blocked_nonzero", check, f"{base}/weights/{i}/{j}", (
            f"query {i} may not attend to key {j} (the mask is false there), so its weight must "
            f"be exactly 0, but the file says {weights[i, j]:.6g}: set blocked scores to -inf "
            "before the softmax (a large negative number like -1e4 leaves small non-zero "
            "weights in some cases)"
        )))
    findings += _row_sum_findings(weights, mask, check, f"{base}/weights")
    stated_sums = _array(case, "row_sums")
    findings += _compare(stated_sums, weights.sum(axis=-1), code="row_sums", check=check,
                         pointer=f"{base}/row_sums", what="row sums",
                         why="row_sums must be the sums of the weight rows written in the file.")
    findings += _compare(case["context"], weights @ v, code="context_mismatch", check=check,
                         pointer=f"{base}/context", what="masked context",
                         why="The context is weights @ values.")
    return findings


# --- parity ----------------------------------------------------------------------------------
def check_parity(parity: list, case: dict | None) -> list[Finding]:
    """Each max difference is within its stated tolerance, and that tolerance is not too loose."""
    check = "parity"
    magnitude = 1.0
    if case is not None:
        q, k, v = (_array(case, name) for name in ("queries", "keys", "values"))
        mask = _array(case, "mask", bool)
        if mask.any(axis=-1).all():
            magnitude = float(np.max(np.abs(scaled_dot_product_attention(q, k, v, mask=mask)[0])))
    findings = []
    for index, entry in enumerate(parity):
        dtype, diff = entry["dtype"], float(entry["max_abs_diff"])
        atol, rtol = float(entry["atol"]), float(entry["rtol"])
        sensible = PARITY_TOLERANCES[dtype]
        pointer = f"/parity/{index}"
        if atol > sensible["atol"] or rtol > sensible["rtol"]:
            findings.append(_finding("parity_tolerance_unreasonable", check, pointer, (
                f"the {dtype} tolerance (atol={atol:g}, rtol={rtol:g}) is looser than what "
                f"{dtype} arithmetic needs (atol={sensible['atol']:g}, rtol={sensible['rtol']:g}); "
                "a loose tolerance would hide real mistakes, so use these values"
            )))
        bound = atol + rtol * magnitude
        if diff > bound:
            findings.append(_finding("parity_exceeds_tolerance", check, f"{pointer}/max_abs_diff", (
                f"NumPy and torch's scaled_dot_product_attention differ by up to {diff:.3g} in "
                f"{dtype}, more than the tolerance allows ({bound:.3g} = atol + rtol * "
                f"{magnitude:.3g}): the two implementations do not compute the same thing "
                "(check the scale, the mask convention and the softmax axis)"
            )))
    return findings


# --- intervention ---------------------------------------------------------------------------
def check_intervention(iv: dict, case: dict | None) -> list[Finding]:
    """Weights unchanged; context moves by weight[:, index] * (new - old); and it does move."""
    check, base = "intervention", "/intervention"
    findings = []
    if case is not None:
        for name in ("queries", "keys", "values", "mask"):
            if iv[name] != case[name]:
                findings.append(_finding("intervention_inputs_differ", check, f"{base}/{name}", (
                    f"the intervention's {name} differ from the masked case's: the intervention "
                    "must start from the masked case and change only one value row"
                )))
    q, k, v = (_array(iv, name) for name in ("queries", "keys", "values"))
    mask = _array(iv, "mask", bool)
    index = int(iv["index"])
    old, new = _array(iv, "old_value"), _array(iv, "new_value")
    if not np.array_equal(old, v[index]):
        findings.append(_finding("intervention_old_value", check, f"{base}/old_value", (
            f"old_value should be value row {index} as it was before the change "
            f"({v[index].tolist()}), but the file says {old.tolist()}"
        )))
    before, after = _array(iv, "weights_before"), _array(iv, "weights_after")
    reference, problems = _reference(q, k, v, mask, check, base)
    findings += problems
    if reference is not None:
        findings += _compare(before, reference[1], code="weights_mismatch", check=check,
                             pointer=f"{base}/weights_before", what="weights before the change",
                             why="They are the masked attention weights of these inputs.")
    moved = _first_difference(after, before, atol=UNCHANGED_ATOL, rtol=0.0)
    if moved is not None:
        at, count = moved
        findings.append(_finding("intervention_weights_changed", check, _at(f"{base}/weights_after", at), (
            f"{count} weight{'s' if count > 1 else ''} changed when only a value row was edited: weights depend only on "
            "the queries, keys and mask, so they must be identical before and after"
        )))
    findings += _compare(iv["context_before"], before @ v, code="context_mismatch", check=check,
                         pointer=f"{base}/context_before", what="context before the change",
                         why="The context is weights @ values.")
    stated_change = _array(iv, "context_after") - _array(iv, "context_before")
    expected_change = before[:, index][:, None] * (new - v[index])[None, :]
    if np.array_equal(new, v[index]):
        findings.append(_finding("intervention_no_change", check, f"{base}/new_value", (
            f"new_value equals value row {index}, so the intervention changes nothing: replace the value "
            "row with a different one to see the context move"
        )))
    elif np.all(np.abs(stated_change) <= UNCHANGED_ATOL):
        findings.append(_finding("intervention_no_change", check, f"{base}/context_after", (
            "the context did not change although value row "
            f"{index} did: every query that attends to key {index} should move by its weight "
            "times the change of that value row"
        )))
    else:
        difference = _first_difference(stated_change, expected_change)
        if difference is not None:
            at, count = difference
            findings.append(_finding("intervention_delta", check, _at(f"{base}/context_after", at), (
                f"the context changed by {stated_change[at]:.6g} here, but it should change by "
                f"weight[{at[0]}, {index}] * (new - old)[{at[1]}] = {expected_change[at]:.6g} "
                f"({count} entries differ): the context is a weighted average of the value "
                "rows, so editing one row moves each query by its weight on that row"
            )))
    return findings


def consistency_findings(data: dict, skip: set[str], *, student_id: str | None = None,
                         cohort: str | None = None,
                         unchecked: Collection[str] = ()) -> list[Finding]:
    """All consistency findings for the sections not in ``skip`` (those failed the schema).
    ``unchecked``: sections whose numbers are not recomputed (they record a NaN: see
    ``non_finite``); their inputs are still checked, so a copied file is still found."""
    case = data["masked_case"] if "masked_case" not in skip else None
    findings = check_identity(data, skip, student_id, cohort)
    numbers = set(skip) | set(unchecked)
    if "hand_example" not in numbers:
        findings += check_hand_example(data["hand_example"])
    if case is not None and "masked_case" not in numbers:
        findings += check_masked_case(case)
    if "parity" not in numbers:
        findings += check_parity(data["parity"], case)
    if "intervention" not in numbers:
        findings += check_intervention(data["intervention"], case)
    return findings
