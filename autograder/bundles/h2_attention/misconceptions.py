"""H2's known misconceptions: one table of student-facing explanations, plus detectors.

A detector gets the (trusted) inputs of a probe and the student's plain
output and returns the codes whose signature the output matches. Most
signatures are "equals what the buggy formula would give" (the buggy formula
is re-implemented here, on trusted inputs) or a property such as "columns
sum to one". Codes are stable identifiers; the wording lives only in
``MISCONCEPTIONS``, which the bundle's hooks give the engine (``Assignment.misconceptions``);
a code the engine's helpers diagnose (``autograder.grading.diagnoses``) keeps its place here
and the engine's words.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from autograder.grading.assertions import tolerance
from autograder.grading.diagnoses import ENGINE_DIAGNOSES, MUTATES_INPUT

MISCONCEPTIONS: dict[str, str] = {
    "softmax_wrong_axis": (
        "The weights are normalised over the wrong axis: columns sum to one instead of rows. "
        "Softmax runs over the keys of each query, i.e. the last axis (axis=-1)."
    ),
    "softmax_overflow": (
        "Large scores (around 1000) overflow exp() and give inf/NaN. Subtract each row's "
        "maximum before exp(); it does not change the softmax."
    ),
    "softmax_global_max": (
        "You subtract one maximum over the whole array instead of each row's own maximum: "
        "rows whose scores are far below the global maximum underflow to 0/0 = NaN."
    ),
    "softmax_max_includes_masked": (
        "Each row's maximum is taken over all its entries, blocked ones included: a large score "
        "on a blocked key pushes every permitted exp() to 0, and 0/0 = NaN. Subtract the "
        "maximum over the permitted entries only."
    ),
    "softmax_missing_keepdims": (
        "A row statistic (max or sum) lost its axis, so it was broadcast along the wrong axis. "
        "Use keepdims=True when reducing over the last axis."
    ),
    "temperature_multiplied": (
        "The temperature multiplies the scores; it should divide them "
        "(temperature below 1 sharpens, above 1 flattens)."
    ),
    "mask_after_softmax": (
        "The mask is applied after the softmax (weights are zeroed but not renormalised), so "
        "permitted weights sum to less than one. Block keys before the softmax."
    ),
    "mask_inverted": (
        "The mask convention is inverted: here True means 'may attend' (as in PyTorch's "
        "scaled_dot_product_attention), not 'blocked' (as in nn.MultiheadAttention)."
    ),
    "all_masked_nan": (
        "A row where every key is masked gives NaN. Such a row has no softmax: raise a "
        "ValueError that names the row instead of returning NaN."
    ),
    "all_masked_uniform": (
        "A row where every key is masked gives a uniform average (a finite fill value such as "
        "-1e9 was used). That silently invents weights: raise a ValueError naming the row."
    ),
    "all_masked_zeros": (
        "A row where every key is masked gives zeros (PyTorch's SDPA behaviour). This assignment "
        "asks for a ValueError that names the row."
    ),
    "causal_off_by_one": (
        "The causal mask is shifted by one: query i may attend to keys j <= i, diagonal "
        "included (a token sees itself), and nothing after it."
    ),
    "causal_transposed": (
        "The causal mask is transposed: rows are queries and columns are keys, so the allowed "
        "entries are on and below the diagonal (np.tril), not above it."
    ),
    "causal_bottom_right": (
        "The causal mask is aligned to the bottom-right corner. This assignment uses top-left "
        "alignment (like is_causal=True): entry (i, j) is allowed iff j <= i, even when "
        "n_q != n_k."
    ),
    "mask_not_boolean": (
        "The mask is not Boolean. Return dtype bool (True = may attend): a 0/1 float mask is "
        "*added* to the scores by PyTorch instead of blocking keys."
    ),
    "padding_off_by_one": (
        "The padding mask is off by one: a sequence of length L has real keys at positions "
        "0 .. L-1, so position p is real iff p < L."
    ),
    "padding_broadcast_queries": (
        "The key-padding mask was broadcast along the query axis. It says which *keys* are real, "
        "so it must be broadcast over queries as key_padding[:, None, :] (a column axis stays "
        "the key axis)."
    ),
    "scale_missing": "The scores are not scaled. Multiply Q K^T by 1/sqrt(d_k) when no scale is given.",
    "scale_by_dk": "The scores are divided by d_k; the default scaling is 1/sqrt(d_k).",
    "scale_by_sqrt_dv": (
        "The scores are scaled with the value width d_v. The scaling uses the key width: "
        "1/sqrt(d_k), where d_k is the last dimension of Q and K."
    ),
    "scale_ignored": "The explicit `scale` argument is ignored; when it is given, use it instead of 1/sqrt(d_k).",
    "scores_transposed": (
        "The score matrix is transposed: rows must be queries and columns keys, "
        "i.e. Q @ K^T with shape (..., n_q, n_k)."
    ),
    "kt_batch_dims": (
        "With batch/head dimensions, K.T reverses *all* axes. Swap only the last two: "
        "np.swapaxes(K, -1, -2) (or K.transpose(..., -1, -2) in the right order)."
    ),
    "argmax_not_weighted_sum": (
        "Each output row is a single value row (hard argmax retrieval). Attention returns the "
        "weighted sum of all value rows: weights @ V."
    ),
    MUTATES_INPUT: ENGINE_DIAGNOSES[MUTATES_INPUT],  # the engine's words, in H2's order
    "dtype_not_preserved": (
        "The result's dtype differs from the inputs' (float32 in must give float32 out). "
        "Something in the computation made float64: a float64 NumPy scalar (np.sqrt(d), "
        "np.float64(...)), np.asarray(x, dtype=float), or an array made with the default dtype "
        "(np.zeros(shape), np.full(...)) mixed in. Use math.sqrt, and give new arrays the "
        "inputs' dtype (dtype=x.dtype)."
    ),
    "sdpa_pair_order": (
        "scaled_dot_product_attention returns the pair (context, weights), in that order; "
        "yours returns (weights, context)."
    ),
    "projections_swapped": (
        "The query and key projections are swapped: queries are X @ W_q and keys are X @ W_k. "
        "Swapped, the scores are transposed: entry (i, j) compares token j's query with token i's "
        "key instead of token i's query with token j's key."
    ),
    "projection_transposed": (
        "A projection matrix is transposed (X @ W.T). Each W has shape (d_model, width), so the "
        "projection is X @ W: it turns every d_model-wide row of X into a row of that width."
    ),
    "values_projected_with_wk": (
        "The values are projected with the key matrix (V = X @ W_k). Values have their own "
        "projection: V = X @ W_v, of width d_v."
    ),
    "cross_kv_from_decoder": (
        "In cross-attention the keys and values come from the decoder's sequence. Only the queries "
        "come from the decoder: K = X_enc @ W_k and V = X_enc @ W_v, so each decoder position reads "
        "the encoder's positions."
    ),
    "cross_causal_mask": (
        "A causal mask is applied in cross-attention. The encoder's whole sequence is already known, "
        "so every decoder position may read every encoder position: pass on only the mask you are "
        "given (such as the encoder's key padding)."
    ),
    "cross_queries_from_encoder": (
        "The roles are swapped: the queries come from the decoder (Q = X_dec @ W_q), the keys and "
        "values from the encoder. The result has one row per decoder position: (..., n_q, d_v)."
    ),
    "additive_no_tanh": "The additive score needs the tanh: s_ij = w_v . tanh(q_i W_q + k_j W_k).",
    "additive_swapped_projections": (
        "The projections are swapped: queries go through W_q and keys through W_k."
    ),
    "sdpa_inverted_mask": (
        "The mask given to PyTorch's scaled_dot_product_attention is inverted. For a Boolean "
        "attn_mask SDPA also reads True = may attend: pass the mask as it is."
    ),
    "sdpa_dropout": (
        "Dropout is on inside scaled_dot_product_attention (dropout_p > 0 applies even in eval "
        "mode). Pass dropout_p=0.0 for a parity check."
    ),
    "sdpa_float_mask": (
        "A float 0/1 mask was given to SDPA. A float attn_mask is *added* to the scores, so 0/1 "
        "does not block anything: pass a Boolean mask."
    ),
    "intervention_mutates_v": (
        "The intervention modifies the caller's V. Copy V, change the copy, and compare the "
        "attention output before and after."
    ),
    "intervention_changes_weights": (
        "The weights changed after replacing a value row. Weights depend only on Q and K, so "
        "only the context may change."
    ),
}


# ---------------------------------------------------------------- helpers


def _same(got: object, model: np.ndarray | None, rtol: float = 1e-6, atol: float = 1e-9) -> bool:
    """True if ``got`` is an array equal to ``model`` (NaN matches NaN)."""
    if model is None or type(got) is not np.ndarray or got.shape != model.shape:
        return False
    if got.dtype.kind not in "biuf":
        return False
    return bool(np.allclose(got.astype(np.float64), model, rtol=rtol, atol=atol, equal_nan=True))


def _guard(model: Callable[[], np.ndarray]) -> np.ndarray | None:
    """Evaluate a buggy-model formula; None when it does not apply to these inputs."""
    try:
        with np.errstate(all="ignore"):
            return np.asarray(model(), dtype=np.float64)
    except (ValueError, IndexError, ZeroDivisionError):
        return None


def _softmax(scores: np.ndarray, allowed: np.ndarray | None = None, axis: int = -1) -> np.ndarray:
    """Masked, max-subtracted softmax; rows with no permitted key become NaN."""
    scores = np.asarray(scores, dtype=np.float64)
    allowed = np.ones(scores.shape, bool) if allowed is None else np.broadcast_to(allowed, scores.shape)
    allowed = allowed & ~np.isneginf(scores)
    with np.errstate(all="ignore"):
        safe = np.where(allowed, scores, -np.inf)
        row_max = safe.max(axis=axis, keepdims=True)
        exps = np.where(allowed, np.exp(safe - row_max), 0.0)
        return exps / exps.sum(axis=axis, keepdims=True)


def _naive_softmax(scores: np.ndarray, allowed: np.ndarray | None, shift: float | np.ndarray = 0.0) -> np.ndarray:
    with np.errstate(all="ignore"):
        exps = np.exp(np.asarray(scores, dtype=np.float64) - shift)
        if allowed is not None:
            exps = np.where(allowed, exps, 0.0)
        return exps / exps.sum(axis=-1, keepdims=True)


def _ordered(codes: list[str]) -> list[str]:
    """Unique codes in table order, so diagnoses never depend on detector order."""
    order = list(MISCONCEPTIONS)
    return sorted(set(codes), key=order.index)


# ---------------------------------------------------------------- detectors


def softmax_signatures(
    scores: np.ndarray, mask: np.ndarray | None, temperature: float, got: object
) -> list[str]:
    """Codes for a stable_softmax output (on a probe without all-masked rows)."""
    s = np.asarray(scores, dtype=np.float64)
    allowed = None if mask is None else np.broadcast_to(mask, s.shape)
    codes = []
    if _same(got, _guard(lambda: _softmax(s / temperature, allowed, axis=-2))):
        codes.append("softmax_wrong_axis")
    elif type(got) is np.ndarray and got.shape == s.shape and got.ndim >= 2 and s.shape[-1] != s.shape[-2]:
        with np.errstate(all="ignore"):
            cols = np.allclose(np.asarray(got, float).sum(axis=-2), 1.0, atol=1e-6)
            rows = np.allclose(np.asarray(got, float).sum(axis=-1), 1.0, atol=1e-6)
        if cols and not rows:
            codes.append("softmax_wrong_axis")
    if temperature != 1 and _same(got, _guard(lambda: _softmax(s * temperature, allowed))):
        codes.append("temperature_multiplied")
    if allowed is not None:
        if _same(got, _guard(lambda: _softmax(s / temperature) * allowed)):
            codes.append("mask_after_softmax")
        if _same(got, _guard(lambda: _softmax(s / temperature, ~allowed))):
            codes.append("mask_inverted")
    finite = np.where(np.isfinite(s), s, np.nan)
    naive = _guard(lambda: _naive_softmax(s / temperature, allowed))
    global_max = _guard(lambda: _naive_softmax(s / temperature, allowed, shift=np.nanmax(finite) / temperature))
    reference = _guard(lambda: _softmax(s / temperature, allowed))
    if reference is not None and not np.isnan(reference).any():
        if naive is not None and np.isnan(naive).any() and _same(got, naive):
            codes.append("softmax_overflow")
        elif global_max is not None and np.isnan(global_max).any() and _same(got, global_max):
            codes.append("softmax_global_max")
        elif allowed is not None and _same(got, _guard(lambda: _naive_softmax(
                s / temperature, allowed,
                shift=np.max(np.where(np.isfinite(s), s, -np.inf), axis=-1, keepdims=True) / temperature))):
            codes.append("softmax_max_includes_masked")
        elif (
            type(got) is np.ndarray and got.dtype.kind == "f" and not np.isfinite(got).all()
            and np.nanmax(np.abs(finite / temperature)) > 80  # exp() overflows float32 from ~88
        ):
            # Non-finite weights for large finite scores: an overflow, whatever the exact formula.
            codes.append("softmax_overflow")
    if s.ndim >= 2 and s.shape[-1] == s.shape[-2] and allowed is None:
        t = s / temperature
        with np.errstate(all="ignore"):
            exps = np.exp(t - t.max(axis=-1, keepdims=True))
        if _same(got, _guard(lambda: exps / exps.sum(axis=-1)[..., None, :])):
            codes.append("softmax_missing_keepdims")
    return _ordered(codes)


def all_masked_signatures(got: object, empty_rows: np.ndarray) -> list[str]:
    """Codes for an output returned (instead of an error) for all-masked rows."""
    if type(got) is not np.ndarray or got.dtype.kind != "f" or got.shape[:-1] != empty_rows.shape:
        return []
    rows = got[empty_rows]
    if rows.size == 0 or _same_everywhere(got, empty_rows):
        return []
    if np.isnan(rows).all():
        return ["all_masked_nan"]
    if np.allclose(rows, 1.0 / got.shape[-1]):
        return ["all_masked_uniform"]
    if np.all(rows == 0):
        return ["all_masked_zeros"]
    return []


def _same_everywhere(got: np.ndarray, empty_rows: np.ndarray) -> bool:
    """Whether the rows with permitted keys hold what the fully masked rows hold (zeros, NaN
    or the same constant everywhere): then nothing was decided about masked rows, and no
    all-masked misconception is diagnosed (a softmax returning zeros for every input)."""
    rows, others = got[empty_rows], got[~empty_rows]
    if others.size == 0:
        return False
    if np.isnan(rows).all():
        return bool(np.isnan(others).all())
    return bool(np.isfinite(got).all() and np.ptp(got) == 0)


def context_all_masked_signatures(got: object, empty_rows: np.ndarray, V: np.ndarray) -> list[str]:
    """Codes for an attention *context* returned for all-masked rows."""
    if type(got) is not np.ndarray or got.dtype.kind != "f" or got.shape[:-1] != empty_rows.shape:
        return []
    rows = got[empty_rows]
    if rows.size == 0 or _same_everywhere(got, empty_rows):
        return []
    if np.isnan(rows).all():
        return ["all_masked_nan"]
    mean_v = np.broadcast_to(np.asarray(V, float).mean(axis=-2, keepdims=True), got.shape)[empty_rows]
    if np.allclose(rows, mean_v):
        return ["all_masked_uniform"]
    if np.all(rows == 0):
        return ["all_masked_zeros"]
    return []


def score_signatures(Q: np.ndarray, K: np.ndarray, scale: float | None, got: object) -> list[str]:
    """Codes for an attention_scores output."""
    Q = np.asarray(Q, dtype=np.float64)
    K = np.asarray(K, dtype=np.float64)
    d_k = Q.shape[-1]
    raw = _guard(lambda: Q @ np.swapaxes(K, -1, -2))
    if raw is None:
        return []
    codes = []
    if scale is None:
        if _same(got, raw):
            codes.append("scale_missing")
        if _same(got, raw / d_k):
            codes.append("scale_by_dk")
    elif _same(got, raw / math.sqrt(d_k)):
        codes.append("scale_ignored")
    effective = 1 / math.sqrt(d_k) if scale is None else scale
    if type(got) is np.ndarray and got.shape == np.swapaxes(raw, -1, -2).shape and got.ndim >= 2:
        if _same(np.swapaxes(got, -1, -2).copy(), raw * effective):
            codes.append("scores_transposed")
    return _ordered(codes)


def implied_scale_signatures(Q: np.ndarray, K: np.ndarray, d_v: int, weights: object) -> list[str]:
    """Codes from the scale implied by unmasked softmax weights (log-weight slope vs raw score)."""
    if type(weights) is not np.ndarray or weights.dtype.kind != "f":
        return []
    raw = np.asarray(Q, float) @ np.swapaxes(np.asarray(K, float), -1, -2)
    if weights.shape != raw.shape or not np.all(weights > 0) or not np.isfinite(weights).all():
        return []
    y = np.log(weights) - np.log(weights[..., :1])
    x = raw - raw[..., :1]
    slope = float((x * y).sum() / (x * x).sum())
    d_k = Q.shape[-1]
    candidates = {
        "scale_missing": 1.0,
        "scale_by_dk": 1.0 / d_k,
        "scale_by_sqrt_dv": 1.0 / math.sqrt(d_v),
    }
    if abs(slope * math.sqrt(d_k) - 1) < 0.02:
        return []
    return _ordered([code for code, value in candidates.items() if abs(slope / value - 1) < 0.02])


def causal_signatures(n_q: int, n_k: int, got: object) -> list[str]:
    """Codes for a causal_mask output."""
    if type(got) is not np.ndarray or got.shape != (n_q, n_k) or got.dtype.kind not in "biuf":
        return []
    pattern = got.astype(bool)
    ones = np.ones((n_q, n_k), bool)
    models = {
        "causal_off_by_one": [np.tril(ones, -1), np.tril(ones, 1)],
        "causal_transposed": [np.triu(ones)],
        "mask_inverted": [~np.tril(ones)],
        "causal_bottom_right": [np.tril(ones, n_k - n_q)] if n_k != n_q else [],
    }
    return _ordered(
        [code for code, options in models.items() if any(np.array_equal(pattern, m) for m in options)]
    )


def padding_signatures(lengths: np.ndarray, n_k: int, got: object) -> list[str]:
    """Codes for a padding_mask output."""
    if type(got) is not np.ndarray or got.shape != (len(lengths), n_k) or got.dtype.kind not in "biuf":
        return []
    pattern = got.astype(bool)
    positions = np.arange(n_k)[None, :]
    lengths = np.asarray(lengths)[:, None]
    codes = []
    if np.array_equal(pattern, positions >= lengths):
        codes.append("mask_inverted")
    if np.array_equal(pattern, positions <= lengths) or np.array_equal(pattern, positions < lengths - 1):
        codes.append("padding_off_by_one")
    return codes


def combine_signatures(causal: np.ndarray, key_padding: np.ndarray, got: object) -> list[str]:
    """Codes for a combine_masks output."""
    if type(got) is not np.ndarray or got.dtype.kind not in "biuf":
        return []
    pattern = got.astype(bool)
    codes = []
    wrong_axis = _guard(lambda: causal[None, :, :] & key_padding[:, :, None])
    if wrong_axis is not None and wrong_axis.shape == pattern.shape and np.array_equal(pattern, wrong_axis):
        codes.append("padding_broadcast_queries")
    inverted = ~(causal[None, :, :] & key_padding[:, None, :])
    if inverted.shape == pattern.shape and np.array_equal(pattern, inverted):
        codes.append("mask_inverted")
    return codes


def context_signatures(V: np.ndarray, got: object, weights: np.ndarray) -> list[str]:
    """Codes for an attention_context (or SDPA context) output."""
    if type(got) is not np.ndarray or got.dtype.kind != "f" or got.ndim < 2:
        return []
    V = np.asarray(V, float)
    expected_shape = np.broadcast_shapes(weights.shape[:-1], V.shape[:-2] + (1,))[:-1] + (
        weights.shape[-2],
        V.shape[-1],
    )
    if got.shape != expected_shape:
        return []
    picked = _guard(
        lambda: np.take_along_axis(
            np.broadcast_to(V, weights.shape[:-2] + V.shape[-2:]),
            np.argmax(weights, axis=-1)[..., None],
            axis=-2,
        )
    )
    if _same(got, picked):
        return ["argmax_not_weighted_sum"]
    return []


def dtype_signatures(expected: np.dtype, got: object) -> list[str]:
    """``dtype_not_preserved`` when a float result came back in another float dtype."""
    if type(got) is np.ndarray and got.dtype.kind == "f" and got.dtype != expected:
        return ["dtype_not_preserved"]
    return []


def additive_signatures(
    Q: np.ndarray, K: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, w_v: np.ndarray, got: object
) -> list[str]:
    """Codes for an additive_scores output."""
    codes = []
    if _same(got, _guard(lambda: ((Q @ W_q)[..., :, None, :] + (K @ W_k)[..., None, :, :]) @ w_v)):
        codes.append("additive_no_tanh")
    swapped = _guard(lambda: np.tanh((Q @ W_k)[..., :, None, :] + (K @ W_q)[..., None, :, :]) @ w_v)
    if _same(got, swapped):
        codes.append("additive_swapped_projections")
    return _ordered(codes)


def sdpa_signatures(scores: np.ndarray, mask: np.ndarray | None, effective: object) -> list[str]:
    """Codes for torch_sdpa, from its effective weights (its context when V is the identity)."""
    if type(effective) is not np.ndarray or effective.dtype.kind != "f" or effective.shape != scores.shape:
        return []
    codes = []
    allowed = None if mask is None else np.broadcast_to(mask, scores.shape)
    reference = np.nan_to_num(_softmax(scores, allowed))
    if allowed is not None:
        if _same(effective, np.nan_to_num(_softmax(scores, ~allowed))):
            codes.append("sdpa_inverted_mask")
        if _same(effective, _softmax(scores + allowed.astype(float))):
            codes.append("sdpa_float_mask")
    dropped = (effective == 0) & (reference > 1e-12)
    kept = (effective != 0) & (reference > 1e-12)
    if dropped.any() and kept.any():
        ratio = effective[kept] / reference[kept]
        if ratio.min() > 1.0 + 1e-6 and np.allclose(ratio, ratio.mean(), rtol=1e-6):
            codes.append("sdpa_dropout")
    return _ordered(codes)


def intervention_signatures(result: object, reference: dict[str, np.ndarray]) -> list[str]:
    """Codes for a value_intervention result dict (compared with the reference dict)."""
    if type(result) is not dict:
        return []
    codes = []
    before, after = result.get("weights_before"), result.get("weights_after")
    if type(before) is np.ndarray and type(after) is np.ndarray and before.shape == after.shape:
        if before.dtype.kind == "f" and after.dtype.kind == "f" and not np.allclose(before, after, equal_nan=True):
            codes.append("intervention_changes_weights")
    if _same(result.get("context_before"), reference["context_after"]):
        codes.append("intervention_mutates_v")
    return _ordered(codes)


def _attend(Q: np.ndarray, K: np.ndarray, V: np.ndarray, mask: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Trusted scaled dot-product attention in float64: ``(context, weights)``."""
    Q, K, V = (np.asarray(x, dtype=np.float64) for x in (Q, K, V))
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
    allowed = None if mask is None else np.broadcast_to(np.asarray(mask, bool), scores.shape)
    weights = _softmax(scores, allowed)
    return weights @ V, weights


def _pair_is(got: object, model: Callable[[], tuple[np.ndarray, np.ndarray]]) -> bool:
    """True if ``got`` is a ``(context, weights)`` pair equal to the buggy model's pair
    (float32 results with float32 tolerances); False when the model does not apply."""
    if type(got) not in (tuple, list) or len(got) != 2:
        return False
    try:
        with np.errstate(all="ignore"):
            context, weights = model()
    except (ValueError, IndexError, ZeroDivisionError):
        return False
    single = any(type(x) is np.ndarray and x.dtype == np.float32 for x in got)
    rtol, atol = tolerance(np.float32) if single else (1e-6, 1e-9)
    return _same(got[0], context, rtol, atol) and _same(got[1], weights, rtol, atol)


def _matching(got: object, models: dict[str, list[Callable[[], tuple[np.ndarray, np.ndarray]]]]) -> list[str]:
    return _ordered([code for code, options in models.items() if any(_pair_is(got, m) for m in options)])


def self_attention_signatures(
    X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray, mask: np.ndarray | None, got: object
) -> list[str]:
    """Codes for a self_attention ``(context, weights)`` pair: the projections mixed up."""
    X, W_q, W_k, W_v = (np.asarray(x, dtype=np.float64) for x in (X, W_q, W_k, W_v))
    transposed = [
        (lambda tq=tq, tk=tk, tv=tv: _attend(X @ (W_q.T if tq else W_q), X @ (W_k.T if tk else W_k),
                                             X @ (W_v.T if tv else W_v), mask))
        for tq in (False, True) for tk in (False, True) for tv in (False, True) if tq or tk or tv
    ]
    return _matching(got, {
        "projections_swapped": [lambda: _attend(X @ W_k, X @ W_q, X @ W_v, mask)],
        "projection_transposed": transposed,
        "values_projected_with_wk": [lambda: _attend(X @ W_q, X @ W_k, X @ W_k, mask)],
    })


def cross_attention_signatures(
    X_dec: np.ndarray, X_enc: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray,
    mask: np.ndarray | None, got: object,
) -> list[str]:
    """Codes for a cross_attention ``(context, weights)`` pair: the two sequences' roles
    mixed up, or a causal mask added."""
    X_dec, X_enc, W_q, W_k, W_v = (np.asarray(x, dtype=np.float64) for x in (X_dec, X_enc, W_q, W_k, W_v))
    n_q, n_k = X_dec.shape[-2], X_enc.shape[-2]

    def causal(offset: int) -> Callable[[], tuple[np.ndarray, np.ndarray]]:
        def model() -> tuple[np.ndarray, np.ndarray]:
            allowed = np.tril(np.ones((n_q, n_k), dtype=bool), offset)
            return _attend(X_dec @ W_q, X_enc @ W_k, X_enc @ W_v,
                           allowed if mask is None else allowed & np.asarray(mask, bool))
        return model

    return _matching(got, {
        "cross_kv_from_decoder": [lambda: _attend(X_dec @ W_q, X_dec @ W_k, X_dec @ W_v, mask)],
        # Top-left (like causal_mask(n_q, n_k)) or bottom-right aligned.
        "cross_causal_mask": [causal(0), causal(n_k - n_q)],
        "cross_queries_from_encoder": [lambda: _attend(X_enc @ W_q, X_dec @ W_k, X_dec @ W_v, mask)],
    })
