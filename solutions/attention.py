"""Reference solution for the H2 attention assignment: the single source of truth.

Every public function here is also a solution cell of the source notebook
(`source/h2_attention/h2_attention.ipynb`, `grade_id` = function name). A test
compares the two syntax trees, so edit here first and run
`python -m autograder sync-solutions` to copy the change into the notebook.

Each function is self-contained (imports included) because it is pasted into a
notebook cell on its own. Conventions, the same everywhere:

* rows are queries (destinations), columns are keys (sources);
* a Boolean mask says True = "this query may attend to this key", like
  ``torch.nn.functional.scaled_dot_product_attention`` (and unlike
  ``torch.nn.MultiheadAttention``, where True means blocked);
* leading dimensions (batch, heads) broadcast; inputs are never modified.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "attention_scores",
    "additive_scores",
    "stable_softmax",
    "causal_mask",
    "padding_mask",
    "combine_masks",
    "attention_context",
    "scaled_dot_product_attention",
    "self_attention",
    "cross_attention",
    "torch_sdpa",
    "value_intervention",
    "score_entry_count",
]


def attention_scores(Q: ArrayLike, K: ArrayLike, scale: float | None = None) -> np.ndarray:
    """Scaled dot-product scores ``S = scale * Q @ np.swapaxes(K, -1, -2)`` of shape ``(..., n_q, n_k)``.

    Q has shape ``(..., n_q, d_k)`` and K ``(..., n_k, d_k)``; leading
    (batch/head) dimensions broadcast. ``np.swapaxes(K, -1, -2)`` is K with its
    last two axes swapped (for a 2-D K, its transpose). ``scale=None`` means
    ``1 / sqrt(d_k)``, which keeps the scores' spread independent of the key
    width. Float32 in, float32 out (integers in, float64 out); Q and K with
    different ``d_k`` raise ``ValueError``.
    """
    ### BEGIN SOLUTION
    Q = np.asarray(Q)
    K = np.asarray(K)
    if Q.ndim < 2 or K.ndim < 2:
        raise ValueError("Q and K need at least 2 dimensions: (..., n, d_k)")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q has d_k={Q.shape[-1]} but K has d_k={K.shape[-1]}")
    if not np.issubdtype(Q.dtype, np.floating):
        Q = Q.astype(np.float64)
    if not np.issubdtype(K.dtype, np.floating):
        K = K.astype(np.float64)
    if scale is None:
        scale = 1.0 / math.sqrt(Q.shape[-1])
    # swapaxes, not K.T: .T would also reverse the batch/head axes.
    return (Q @ np.swapaxes(K, -1, -2)) * scale
    ### END SOLUTION


def additive_scores(
    Q: ArrayLike, K: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, w_v: ArrayLike
) -> np.ndarray:
    """Additive (Bahdanau) scores ``s_ij = w_v . tanh(q_i W_q + k_j W_k)``.

    Q: ``(..., n_q, d_q)``, K: ``(..., n_k, d_k)``, W_q: ``(d_q, h)``,
    W_k: ``(d_k, h)``, w_v: ``(h,)``. Returns ``(..., n_q, n_k)``. A ``w_v``
    whose length is not ``h`` (or projections of different widths) raises
    ``ValueError``.
    """
    ### BEGIN SOLUTION
    Q, K, W_q, W_k, w_v = (np.asarray(x) for x in (Q, K, W_q, W_k, w_v))
    if w_v.ndim != 1 or W_q.shape[-1] != w_v.shape[0] or W_k.shape[-1] != w_v.shape[0]:
        raise ValueError("W_q, W_k must be (d, h) and w_v must be (h,) with the same h")
    q_proj = Q @ W_q  # (..., n_q, h)
    k_proj = K @ W_k  # (..., n_k, h)
    # Every query meets every key: (..., n_q, 1, h) + (..., 1, n_k, h).
    hidden = np.tanh(q_proj[..., :, None, :] + k_proj[..., None, :, :])
    return hidden @ w_v
    ### END SOLUTION


def stable_softmax(
    scores: ArrayLike, mask: ArrayLike | None = None, temperature: float = 1.0
) -> np.ndarray:
    """Row-wise softmax over the last axis, safe for scores of any magnitude.

    ``mask`` is Boolean and broadcastable to ``scores``; True = may attend.
    Blocked entries and ``-inf`` scores get weight exactly 0.0. The row
    maximum over *permitted* entries is subtracted before ``exp``, so scores
    like ``[1000, 1001, 1002]`` do not overflow. ``temperature`` (> 0)
    divides the scores: below 1 sharpens, above 1 flattens; a temperature
    that is not a finite number > 0 raises ``ValueError``. A row with no
    permitted finite score has no softmax: it raises ``ValueError`` naming
    the row by its 0-based query index (e.g. "row 2" for the third query)
    instead of returning NaN; with batch dimensions the message may give the
    batch index too (e.g. "row (1, 2)": batch 1, query 2). Float32 in, float32
    out. The inputs are not modified. The checks pass scores that are finite
    or ``-inf``, and Boolean masks with no more dimensions than ``scores``:
    what your function does with a NaN or +inf score, a 0/1 mask or a mask
    with more dimensions is not checked.
    """
    ### BEGIN SOLUTION
    scores = np.asarray(scores)
    if not np.issubdtype(scores.dtype, np.floating):
        scores = scores.astype(np.float64)
    if not (np.isscalar(temperature) and np.isfinite(temperature) and temperature > 0):
        raise ValueError(f"temperature must be a finite number > 0, got {temperature!r}")
    allowed = ~np.isneginf(scores)
    if mask is not None:
        mask = np.asarray(mask)
        if mask.dtype != np.bool_:
            raise TypeError(f"mask must be Boolean (True = may attend), got dtype {mask.dtype}")
        allowed = allowed & mask
    scores, allowed = np.broadcast_arrays(scores, allowed)
    if np.any(allowed & ~np.isfinite(scores)):
        raise ValueError("permitted scores must be finite or -inf (found NaN or +inf)")
    empty_rows = ~allowed.any(axis=-1)
    if empty_rows.any():
        row = tuple(int(i) for i in np.argwhere(empty_rows)[0])
        raise ValueError(
            f"row {row[0] if len(row) == 1 else row} has no permitted key (every entry is masked or -inf); "
            "softmax is undefined there"
        )
    safe = np.where(allowed, scores, -np.inf)
    row_max = safe.max(axis=-1, keepdims=True)
    # Shift first (every permitted entry becomes <= 0), then apply temperature.
    exps = np.exp((safe - row_max) / temperature)
    return exps / exps.sum(axis=-1, keepdims=True)
    ### END SOLUTION


def causal_mask(n_q: int, n_k: int | None = None) -> np.ndarray:
    """Boolean ``(n_q, n_k)`` mask: query i may attend to key j iff ``j <= i``.

    Top-left aligned like ``is_causal=True`` in PyTorch; the diagonal is
    allowed (a token sees itself). ``n_k=None`` means a square mask. The
    checks pass whole numbers, at least 0: refusing another size (-1, 2.5)
    with ``ValueError`` is good practice, not checked.
    """
    ### BEGIN SOLUTION
    if n_k is None:
        n_k = n_q
    if int(n_q) != n_q or int(n_k) != n_k or n_q < 0 or n_k < 0:
        raise ValueError(f"n_q and n_k must be non-negative integers, got {n_q!r}, {n_k!r}")
    return np.tril(np.ones((int(n_q), int(n_k)), dtype=bool))
    ### END SOLUTION


def padding_mask(lengths: ArrayLike, n_k: int) -> np.ndarray:
    """Boolean ``(B, n_k)`` key-padding mask: True where ``position < length``.

    ``lengths[b]`` is the number of real (non-filler) keys in sequence b;
    ``lengths`` may be a list or an array.
    Lengths outside ``[0, n_k]`` raise ``ValueError``. The checks pass whole
    numbers: refusing another length (2.5) with ``ValueError`` is good
    practice, not checked.
    """
    ### BEGIN SOLUTION
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or not np.issubdtype(lengths.dtype, np.integer):
        raise ValueError("lengths must be a 1-D sequence of integers")
    if np.any(lengths < 0) or np.any(lengths > n_k):
        raise ValueError(f"every length must lie in [0, {n_k}], got {lengths.tolist()}")
    return np.arange(n_k)[None, :] < lengths[:, None]
    ### END SOLUTION


def combine_masks(causal: ArrayLike, key_padding: ArrayLike) -> np.ndarray:
    """Intersect a causal ``(n_q, n_k)`` mask with a key-padding ``(B, n_k)`` mask.

    The padding mask says which *keys* are real, so it is broadcast along the
    query axis. Returns ``(B, n_q, n_k)``. Masks with different numbers of
    keys raise ``ValueError``.
    """
    ### BEGIN SOLUTION
    causal = np.asarray(causal, dtype=bool)
    key_padding = np.asarray(key_padding, dtype=bool)
    if causal.ndim != 2 or key_padding.ndim != 2:
        raise ValueError("causal must be (n_q, n_k) and key_padding must be (B, n_k)")
    if causal.shape[1] != key_padding.shape[1]:
        raise ValueError(
            f"causal has n_k={causal.shape[1]} but key_padding has n_k={key_padding.shape[1]}"
        )
    return causal[None, :, :] & key_padding[:, None, :]
    ### END SOLUTION


def attention_context(weights: ArrayLike, V: ArrayLike) -> np.ndarray:
    """Context ``weights @ V``: each query's weighted average of value rows.

    weights: ``(..., n_q, n_k)``, V: ``(..., n_k, d_v)``; returns
    ``(..., n_q, d_v)``. ``d_v`` need not equal ``d_k``. Float32 in, float32
    out; weights and V with different ``n_k`` raise ``ValueError``.
    """
    ### BEGIN SOLUTION
    weights = np.asarray(weights)
    V = np.asarray(V)
    if V.ndim < 2 or weights.shape[-1] != V.shape[-2]:
        raise ValueError(f"weights have n_k={weights.shape[-1]} columns but V has shape {V.shape}")
    return weights @ V
    ### END SOLUTION


def scaled_dot_product_attention(
    Q: ArrayLike,
    K: ArrayLike,
    V: ArrayLike,
    mask: ArrayLike | None = None,
    scale: float | None = None,
    temperature: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Full attention: scores, masked stable softmax, weighted sum of values.

    Returns ``(context, weights)`` with shapes ``(..., n_q, d_v)`` and
    ``(..., n_q, n_k)``, in that order. Build it from your own
    ``attention_scores``, ``stable_softmax`` and ``attention_context``. Float32
    in, float32 out; a query row with no permitted key raises ``ValueError``.
    """
    ### BEGIN SOLUTION
    scores = attention_scores(Q, K, scale=scale)
    weights = stable_softmax(scores, mask=mask, temperature=temperature)
    return attention_context(weights, V), weights
    ### END SOLUTION


def self_attention(
    X: ArrayLike,
    W_q: ArrayLike,
    W_k: ArrayLike,
    W_v: ArrayLike,
    mask: ArrayLike | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Self-attention: queries, keys and values are three projections of the same X.

    X: ``(..., T, d_model)``; W_q and W_k: ``(d_model, d_k)``; W_v:
    ``(d_model, d_v)``. Computes ``Q = X @ W_q``, ``K = X @ W_k`` and
    ``V = X @ W_v`` and returns ``(context, weights)`` of shapes
    ``(..., T, d_v)`` and ``(..., T, T)`` from your
    ``scaled_dot_product_attention``. ``mask`` is passed on as it is (a
    decoder passes a causal mask). Each W is a 2-D matrix. Float32 in,
    float32 out; a projection whose first dimension is not ``d_model``
    raises ``ValueError``.
    """
    ### BEGIN SOLUTION
    X, W_q, W_k, W_v = (np.asarray(x) for x in (X, W_q, W_k, W_v))
    for name, W in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v)):
        if W.ndim != 2 or W.shape[0] != X.shape[-1]:
            raise ValueError(f"{name} must have shape (d_model={X.shape[-1]}, width), got {W.shape}")
    return scaled_dot_product_attention(X @ W_q, X @ W_k, X @ W_v, mask=mask)
    ### END SOLUTION


def cross_attention(
    X_dec: ArrayLike,
    X_enc: ArrayLike,
    W_q: ArrayLike,
    W_k: ArrayLike,
    W_v: ArrayLike,
    mask: ArrayLike | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Cross-attention: queries from the decoder, keys and values from the encoder.

    X_dec: ``(..., n_q, d_dec)``; X_enc: ``(..., n_k, d_enc)``, where
    ``n_q`` and ``n_k`` may differ; W_q: ``(d_dec, d_k)``; W_k:
    ``(d_enc, d_k)``; W_v: ``(d_enc, d_v)``. Computes ``Q = X_dec @ W_q``,
    ``K = X_enc @ W_k`` and ``V = X_enc @ W_v`` and returns
    ``(context, weights)`` of shapes ``(..., n_q, d_v)`` and
    ``(..., n_q, n_k)`` from your ``scaled_dot_product_attention``. No causal
    mask: every decoder position may read every encoder position. ``mask``
    (e.g. the encoder's key padding) is passed on as it is, so it must
    broadcast to ``(..., n_q, n_k)``: a padding mask ``(B, n_k)`` becomes
    ``mask[:, None, :]`` of shape ``(B, 1, n_k)``. Each W is a 2-D matrix.
    Float32 in, float32 out; a projection whose first dimension does not fit
    its input raises ``ValueError``.
    """
    ### BEGIN SOLUTION
    X_dec, X_enc, W_q, W_k, W_v = (np.asarray(x) for x in (X_dec, X_enc, W_q, W_k, W_v))
    for name, W, X in (("W_q", W_q, X_dec), ("W_k", W_k, X_enc), ("W_v", W_v, X_enc)):
        if W.ndim != 2 or W.shape[0] != X.shape[-1]:
            raise ValueError(f"{name} must have shape ({X.shape[-1]}, width), got {W.shape}")
    return scaled_dot_product_attention(X_dec @ W_q, X_enc @ W_k, X_enc @ W_v, mask=mask)
    ### END SOLUTION


def torch_sdpa(
    Q: ArrayLike,
    K: ArrayLike,
    V: ArrayLike,
    mask: ArrayLike | None = None,
    scale: float | None = None,
) -> np.ndarray:
    """Context from PyTorch's ``scaled_dot_product_attention``, as a NumPy array.

    Dropout is off (``dropout_p=0.0``, which PyTorch applies even in eval
    mode otherwise); the mask is passed as a Boolean tensor, where SDPA also
    reads True = may attend. The dtype is preserved (float64 in, float64
    out). ``scale`` is passed on to SDPA (``None``: its default ``1 / sqrt(d_k)``).
    Unlike ``stable_softmax``, SDPA returns zeros for a fully masked row.
    The grader passes read-only arrays, for which ``torch.from_numpy`` prints
    PyTorch's warning that the array is not writable (harmless: SDPA writes
    nothing); converting a copy (``np.array``) avoids it.
    """
    ### BEGIN SOLUTION
    import torch
    import torch.nn.functional as F

    # np.array copies: torch warns about read-only NumPy buffers.
    q, k, v = (torch.from_numpy(np.array(x)) for x in (Q, K, V))
    attn_mask = None if mask is None else torch.from_numpy(np.array(mask, dtype=bool))
    with torch.no_grad():
        out = F.scaled_dot_product_attention(
            q, k, v, attn_mask=attn_mask, dropout_p=0.0, scale=scale
        )
    return out.numpy()
    ### END SOLUTION


def value_intervention(
    Q: ArrayLike,
    K: ArrayLike,
    V: ArrayLike,
    index: int,
    new_value: ArrayLike,
    mask: ArrayLike | None = None,
) -> dict[str, np.ndarray]:
    """Replace value row ``index`` and report what changes (and what does not).

    ``index`` selects a key: the value row ``V[..., index, :]`` (V may have
    batch and head dimensions, like Q and K). A negative index counts from the
    end (index -1 is the last key); an index outside the keys raises
    ``IndexError``. Returns a dict with ``weights_before``, ``weights_after``,
    ``context_before`` and ``context_after``, computed with your
    ``scaled_dot_product_attention``. The weights depend only on Q and K, so
    they stay the same; the context moves by
    ``weights[..., :, [index]] * (new_value - V[..., [index], :])``, of shape
    ``(..., n_q, d_v)``: each query's weight on key ``index`` times the change
    of that value row. ``V`` is not modified.
    """
    ### BEGIN SOLUTION
    V = np.asarray(V)
    n_k = V.shape[-2]
    if not -n_k <= index < n_k:
        raise IndexError(f"index {index} is out of range for {n_k} value rows")
    context_before, weights_before = scaled_dot_product_attention(Q, K, V, mask=mask)
    V_after = V.copy()
    V_after[..., index, :] = new_value
    context_after, weights_after = scaled_dot_product_attention(Q, K, V_after, mask=mask)
    return {
        "weights_before": weights_before,
        "weights_after": weights_after,
        "context_before": context_before,
        "context_after": context_after,
    }
    ### END SOLUTION


def score_entry_count(n_q: int, n_k: int, heads: int = 1, batch: int = 1) -> int:
    """Number of score entries dense attention computes: ``batch * heads * n_q * n_k``.

    With ``n_q = n_k = T`` doubling T quadruples the count. Fused kernels
    avoid *storing* this matrix, not computing these pairs. A negative or
    non-integer size raises ``ValueError``.
    """
    ### BEGIN SOLUTION
    for name, value in (("n_q", n_q), ("n_k", n_k), ("heads", heads), ("batch", batch)):
        if int(value) != value or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return int(batch) * int(heads) * int(n_q) * int(n_k)
    ### END SOLUTION
