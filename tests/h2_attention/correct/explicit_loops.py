"""Correct student: explicit Python loops over rows and keys (``np.ndindex`` for batch dims)."""

import math

import numpy as np
import torch
from numpy.typing import ArrayLike

LIMITATION = """
Dense attention compares every query with every key, so for a sequence of T tokens each head
computes T times T scores. Doubling the context length makes this work four times larger, and
even fused kernels that never store the score matrix still have to compute all of those pairs.
This is why long documents are expensive and why people use sparse, windowed or linear variants,
which in turn give up the guarantee that any token can look at any other token directly.
"""


def attention_scores(Q: ArrayLike, K: ArrayLike, scale: float | None = None) -> np.ndarray:
    """Scaled dot-product scores ``S = scale * Q @ K^T`` of shape ``(..., n_q, n_k)``."""
    Q, K = np.asarray(Q), np.asarray(K)
    if Q.ndim < 2 or K.ndim < 2:
        raise ValueError("Q and K must have shape (..., n, d_k)")
    d_k = Q.shape[-1]
    if K.shape[-1] != d_k:
        raise ValueError(f"Q has d_k = {d_k} but K has d_k = {K.shape[-1]}")
    scale = 1.0 / math.sqrt(d_k) if scale is None else float(scale)
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2])
    Qb = np.broadcast_to(Q, batch + Q.shape[-2:])
    Kb = np.broadcast_to(K, batch + K.shape[-2:])
    n_q, n_k = Q.shape[-2], K.shape[-2]
    out = np.empty(batch + (n_q, n_k), dtype=np.result_type(Q, K, scale))
    for b in np.ndindex(*batch):
        for i in range(n_q):
            for j in range(n_k):
                out[b + (i, j)] = scale * np.dot(Qb[b + (i,)], Kb[b + (j,)])
    return out


def additive_scores(
    Q: ArrayLike, K: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, w_v: ArrayLike
) -> np.ndarray:
    """Additive (Bahdanau) scores ``s_ij = w_v . tanh(q_i W_q + k_j W_k)``."""
    Q, K, W_q, W_k, w_v = (np.asarray(x) for x in (Q, K, W_q, W_k, w_v))
    if Q.ndim < 2 or K.ndim < 2:
        raise ValueError("Q and K must have shape (..., n, d)")
    if W_q.ndim != 2 or W_k.ndim != 2 or w_v.ndim != 1:
        raise ValueError("W_q is (d_q, h), W_k is (d_k, h) and w_v is (h,)")
    if Q.shape[-1] != W_q.shape[0]:
        raise ValueError(f"Q has width {Q.shape[-1]} but W_q expects {W_q.shape[0]}")
    if K.shape[-1] != W_k.shape[0]:
        raise ValueError(f"K has width {K.shape[-1]} but W_k expects {W_k.shape[0]}")
    h = W_q.shape[1]
    if W_k.shape[1] != h:
        raise ValueError(f"the projections have different widths: {h} and {W_k.shape[1]}")
    if w_v.shape[0] != h:
        raise ValueError(f"w_v has length {w_v.shape[0]}, expected h = {h}")
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2])
    n_q, n_k = Q.shape[-2], K.shape[-2]
    Qb = np.broadcast_to(Q, batch + Q.shape[-2:])
    Kb = np.broadcast_to(K, batch + K.shape[-2:])
    out = np.empty(batch + (n_q, n_k), dtype=np.result_type(Q, K, W_q, W_k, w_v, 1.0))
    for b in np.ndindex(*batch):
        projected_q = [Qb[b + (i,)] @ W_q for i in range(n_q)]  # each query projected once
        projected_k = [Kb[b + (j,)] @ W_k for j in range(n_k)]  # each key projected once
        for i in range(n_q):
            for j in range(n_k):
                out[b + (i, j)] = np.dot(w_v, np.tanh(projected_q[i] + projected_k[j]))
    return out


def stable_softmax(
    scores: ArrayLike, mask: ArrayLike | None = None, temperature: float = 1.0
) -> np.ndarray:
    """Row-wise softmax over the last axis; masked and ``-inf`` entries get exactly 0."""
    scores = np.asarray(scores)
    try:
        t = float(temperature)
    except (TypeError, ValueError):
        raise ValueError(f"temperature must be a number > 0, got {temperature!r}") from None
    if not math.isfinite(t) or t <= 0:
        raise ValueError(f"temperature must be a finite number > 0, got {temperature}")
    if mask is None:
        permitted = np.ones(scores.shape, dtype=bool)
    else:
        mask = np.asarray(mask).astype(bool)
        if mask.ndim > scores.ndim or (mask.ndim and mask.shape[-1] not in (1, scores.shape[-1])):
            raise ValueError(
                f"mask of shape {mask.shape} does not fit scores of shape {scores.shape} "
                "(the number of keys must agree)"
            )
        permitted = np.broadcast_to(mask, scores.shape)
    out = np.zeros(scores.shape, dtype=np.result_type(scores, 1.0))
    for idx in np.ndindex(*scores.shape[:-1]):
        row = scores[idx]
        keep = permitted[idx] & (row != -np.inf)
        if not keep.any():
            where = f"row {idx[-1]}" if idx else "row 0"
            if len(idx) > 1:
                where += f" (batch index {idx[:-1]})"
            raise ValueError(f"{where} has no permitted key: its softmax is undefined")
        kept = row[keep]
        exps = np.exp((kept - kept.max()) / t)
        out[idx][keep] = exps / exps.sum()
    return out


def causal_mask(n_q: int, n_k: int | None = None) -> np.ndarray:
    """Boolean ``(n_q, n_k)`` mask: query i may attend to key j iff ``j <= i``."""
    if n_k is None:
        n_k = n_q
    mask = np.zeros((n_q, n_k), dtype=bool)
    for i in range(n_q):
        for j in range(n_k):
            if j <= i:
                mask[i, j] = True
    return mask


def padding_mask(lengths: ArrayLike, n_k: int) -> np.ndarray:
    """Boolean ``(B, n_k)`` key-padding mask: True where ``position < length``."""
    lengths = np.atleast_1d(np.asarray(lengths))
    mask = np.zeros((len(lengths), n_k), dtype=bool)
    for b, length in enumerate(lengths):
        if length < 0 or length > n_k:
            raise ValueError(f"lengths[{b}] = {length} is outside [0, {n_k}]")
        for position in range(n_k):
            mask[b, position] = position < length
    return mask


def combine_masks(causal: ArrayLike, key_padding: ArrayLike) -> np.ndarray:
    """Intersect a causal ``(n_q, n_k)`` mask with a key-padding ``(B, n_k)`` mask."""
    causal = np.asarray(causal).astype(bool)
    key_padding = np.atleast_2d(np.asarray(key_padding).astype(bool))
    n_q, n_k = causal.shape
    if key_padding.shape[1] != n_k:
        raise ValueError(
            f"the causal mask has {n_k} keys but the padding mask has {key_padding.shape[1]}"
        )
    out = np.zeros((key_padding.shape[0], n_q, n_k), dtype=bool)
    for b in range(key_padding.shape[0]):
        for i in range(n_q):
            for j in range(n_k):
                out[b, i, j] = causal[i, j] and key_padding[b, j]
    return out


def attention_context(weights: ArrayLike, V: ArrayLike) -> np.ndarray:
    """Context ``weights @ V``: each query's weighted average of value rows."""
    weights, V = np.asarray(weights), np.asarray(V)
    if weights.ndim < 2 or V.ndim < 2:
        raise ValueError("weights must be (..., n_q, n_k) and V (..., n_k, d_v)")
    n_q, n_k = weights.shape[-2:]
    if V.shape[-2] != n_k:
        raise ValueError(f"weights have n_k = {n_k} keys but V has {V.shape[-2]} value rows")
    d_v = V.shape[-1]
    batch = np.broadcast_shapes(weights.shape[:-2], V.shape[:-2])
    Wb = np.broadcast_to(weights, batch + weights.shape[-2:])
    Vb = np.broadcast_to(V, batch + V.shape[-2:])
    out = np.zeros(batch + (n_q, d_v), dtype=np.result_type(weights, V))
    for b in np.ndindex(*batch):
        for i in range(n_q):
            for j in range(n_k):
                out[b + (i,)] += Wb[b + (i, j)] * Vb[b + (j,)]
    return out


def scaled_dot_product_attention(
    Q: ArrayLike,
    K: ArrayLike,
    V: ArrayLike,
    mask: ArrayLike | None = None,
    scale: float | None = None,
    temperature: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Full attention: scores, masked stable softmax, weighted sum of values."""
    scores = attention_scores(Q, K, scale=scale)
    weights = stable_softmax(scores, mask=mask, temperature=temperature)
    context = attention_context(weights, V)
    return context, weights


def self_attention(
    X: ArrayLike,
    W_q: ArrayLike,
    W_k: ArrayLike,
    W_v: ArrayLike,
    mask: ArrayLike | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Self-attention: queries, keys and values are three projections of the same X."""
    X = np.asarray(X)
    if X.ndim < 2:
        raise ValueError("X must have shape (..., T, d_model)")
    d_model = X.shape[-1]
    projections = []
    for name, W in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v)):
        W = np.asarray(W)
        if W.ndim != 2:
            raise ValueError(f"{name} must be a matrix (d_model, d), got shape {W.shape}")
        if W.shape[0] != d_model:
            raise ValueError(f"{name} has {W.shape[0]} rows but X has d_model = {d_model}")
        projected = np.zeros(X.shape[:-1] + (W.shape[1],), dtype=np.result_type(X, W))
        for row in np.ndindex(*X.shape[:-1]):  # every token of every batch, one at a time
            projected[row] = X[row] @ W
        projections.append(projected)
    Q, K, V = projections
    context, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return context, weights


def cross_attention(
    X_dec: ArrayLike,
    X_enc: ArrayLike,
    W_q: ArrayLike,
    W_k: ArrayLike,
    W_v: ArrayLike,
    mask: ArrayLike | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Cross-attention: queries from the decoder, keys and values from the encoder."""
    X_dec, X_enc = np.asarray(X_dec), np.asarray(X_enc)
    if X_dec.ndim < 2 or X_enc.ndim < 2:
        raise ValueError("X_dec must have shape (..., n_q, d_dec) and X_enc (..., n_k, d_enc)")
    projections = []
    for name, W, X, source in (
        ("W_q", W_q, X_dec, "X_dec"),
        ("W_k", W_k, X_enc, "X_enc"),
        ("W_v", W_v, X_enc, "X_enc"),
    ):
        W = np.asarray(W)
        if W.ndim != 2:
            raise ValueError(f"{name} must be a matrix, got shape {W.shape}")
        if W.shape[0] != X.shape[-1]:
            raise ValueError(f"{name} has {W.shape[0]} rows but {source} has width {X.shape[-1]}")
        projected = np.zeros(X.shape[:-1] + (W.shape[1],), dtype=np.result_type(X, W))
        for row in np.ndindex(*X.shape[:-1]):
            projected[row] = X[row] @ W
        projections.append(projected)
    Q, K, V = projections
    context, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return context, weights


def torch_sdpa(
    Q: ArrayLike,
    K: ArrayLike,
    V: ArrayLike,
    mask: ArrayLike | None = None,
    scale: float | None = None,
) -> np.ndarray:
    """Context from PyTorch's ``scaled_dot_product_attention``, as a NumPy array."""
    arrays = [np.asarray(x) for x in (Q, K, V)]
    Q, K, V = arrays
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q has d_k = {Q.shape[-1]} but K has d_k = {K.shape[-1]}")
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(f"K has {K.shape[-2]} keys but V has {V.shape[-2]} value rows")
    dtype = np.result_type(*arrays, 1.0)
    batch = np.broadcast_shapes(*(x.shape[:-2] for x in arrays))
    tensors = []
    for x in arrays:
        tensors.append(torch.tensor(np.broadcast_to(x, batch + x.shape[-2:]).astype(dtype)))
    attn_mask = None
    if mask is not None:
        mask = np.asarray(mask).astype(bool)
        if mask.shape[-1] != K.shape[-2]:
            raise ValueError(f"the mask has {mask.shape[-1]} keys but K has {K.shape[-2]}")
        attn_mask = torch.tensor(mask)
    context = torch.nn.functional.scaled_dot_product_attention(
        *tensors, attn_mask=attn_mask, dropout_p=0.0, scale=None if scale is None else float(scale)
    )
    return context.numpy()


def value_intervention(
    Q: ArrayLike,
    K: ArrayLike,
    V: ArrayLike,
    index: int,
    new_value: ArrayLike,
    mask: ArrayLike | None = None,
) -> dict[str, np.ndarray]:
    """Replace value row ``index`` and report what changes (and what does not)."""
    V = np.asarray(V)
    n_k = V.shape[-2]
    if index < -n_k or index >= n_k:
        raise IndexError(f"index {index} is out of range for {n_k} keys")
    if index < 0:
        index += n_k
    dtype = V.dtype if np.issubdtype(V.dtype, np.floating) else np.float64
    changed = V.astype(dtype)  # a copy: V itself is never written
    for b in np.ndindex(*V.shape[:-2]):
        changed[b + (index,)] = new_value
    context_before, weights_before = scaled_dot_product_attention(Q, K, V, mask=mask)
    context_after, weights_after = scaled_dot_product_attention(Q, K, changed, mask=mask)
    return {
        "weights_before": weights_before,
        "weights_after": weights_after,
        "context_before": context_before,
        "context_after": context_after,
    }


def score_entry_count(n_q: int, n_k: int, heads: int = 1, batch: int = 1) -> int:
    """Number of score entries dense attention computes: ``batch * heads * n_q * n_k``."""
    count = 1
    for name, size in (("n_q", n_q), ("n_k", n_k), ("heads", heads), ("batch", batch)):
        if isinstance(size, bool) or not isinstance(size, int | np.integer):
            raise ValueError(f"{name} must be an integer, got {size!r}")
        if size < 0:
            raise ValueError(f"{name} must not be negative, got {size}")
        count *= int(size)
    return count
