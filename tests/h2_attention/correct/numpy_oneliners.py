"""Correct student: NumPy one-liners (vectorised, ``np.swapaxes``, ``np.where``)."""

import math

import numpy as np
import torch
from numpy.typing import ArrayLike

LIMITATION = """
The attention weights tell me where each query looked, but not why the output came out as it did.
A key with a large weight can carry a value that is almost the same as the others, so removing it
changes nothing, while a small weight on an unusual value can move the context a lot. In a real
transformer the residual stream, the other heads and the later layers also reshape the result, so
a single heatmap is not an explanation of the model's decision.
"""


def attention_scores(Q: ArrayLike, K: ArrayLike, scale: float | None = None) -> np.ndarray:
    """Scaled dot-product scores ``S = scale * Q @ K^T`` of shape ``(..., n_q, n_k)``."""
    Q, K = np.asarray(Q), np.asarray(K)
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"d_k of Q ({Q.shape[-1]}) and d_k of K ({K.shape[-1]}) must agree")
    scale = 1.0 / math.sqrt(Q.shape[-1]) if scale is None else float(scale)
    return scale * (Q @ np.swapaxes(K, -1, -2))


def additive_scores(
    Q: ArrayLike, K: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, w_v: ArrayLike
) -> np.ndarray:
    """Additive (Bahdanau) scores ``s_ij = w_v . tanh(q_i W_q + k_j W_k)``."""
    Q, K, W_q, W_k, w_v = (np.asarray(x) for x in (Q, K, W_q, W_k, w_v))
    if W_q.ndim != 2 or W_k.ndim != 2 or w_v.ndim != 1:
        raise ValueError("W_q and W_k must be matrices (d, h) and w_v a vector (h,)")
    if Q.shape[-1] != W_q.shape[0]:
        raise ValueError(f"Q has d_q = {Q.shape[-1]} but W_q has {W_q.shape[0]} rows")
    if K.shape[-1] != W_k.shape[0]:
        raise ValueError(f"K has d_k = {K.shape[-1]} but W_k has {W_k.shape[0]} rows")
    if W_q.shape[1] != W_k.shape[1]:
        raise ValueError(f"W_q projects to h = {W_q.shape[1]} but W_k to h = {W_k.shape[1]}")
    if w_v.shape[0] != W_q.shape[1]:
        raise ValueError(f"w_v has length {w_v.shape[0]} but the hidden width h is {W_q.shape[1]}")
    return np.tanh((Q @ W_q)[..., :, None, :] + (K @ W_k)[..., None, :, :]) @ w_v


def stable_softmax(
    scores: ArrayLike, mask: ArrayLike | None = None, temperature: float = 1.0
) -> np.ndarray:
    """Row-wise softmax over the last axis; masked and ``-inf`` entries get exactly 0."""
    scores = np.asarray(scores)
    try:
        temperature = float(temperature)
    except (TypeError, ValueError):
        raise ValueError(f"temperature must be a finite number > 0, got {temperature!r}") from None
    if not (math.isfinite(temperature) and temperature > 0):
        raise ValueError(f"temperature must be a finite number > 0, got {temperature}")
    allowed = ~np.isneginf(scores)
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.ndim and scores.ndim and mask.shape[-1] not in (1, scores.shape[-1]):
            raise ValueError(f"the mask has {mask.shape[-1]} keys, the scores {scores.shape[-1]}")
        allowed = allowed & np.broadcast_to(mask, scores.shape)
    empty = ~allowed.any(axis=-1)
    if np.any(empty):
        where = tuple(int(i) for i in np.argwhere(empty)[0])
        batch = f" of batch {where[:-1]}" if len(where) > 1 else ""
        raise ValueError(f"row {where[-1] if where else 0}{batch} has no permitted key")
    filled = np.where(allowed, scores, -np.inf)
    exps = np.exp((filled - filled.max(axis=-1, keepdims=True)) / temperature)
    return exps / exps.sum(axis=-1, keepdims=True)


def causal_mask(n_q: int, n_k: int | None = None) -> np.ndarray:
    """Boolean ``(n_q, n_k)`` mask: query i may attend to key j iff ``j <= i``."""
    return np.tril(np.ones((n_q, n_q if n_k is None else n_k), dtype=bool))


def padding_mask(lengths: ArrayLike, n_k: int) -> np.ndarray:
    """Boolean ``(B, n_k)`` key-padding mask: True where ``position < length``."""
    lengths = np.atleast_1d(np.asarray(lengths))
    if np.any((lengths < 0) | (lengths > n_k)):
        raise ValueError(f"every length must lie in [0, {n_k}], got {lengths.tolist()}")
    return np.arange(n_k) < lengths[:, None]


def combine_masks(causal: ArrayLike, key_padding: ArrayLike) -> np.ndarray:
    """Intersect a causal ``(n_q, n_k)`` mask with a key-padding ``(B, n_k)`` mask."""
    causal, key_padding = np.asarray(causal, dtype=bool), np.asarray(key_padding, dtype=bool)
    if causal.shape[-1] != key_padding.shape[-1]:
        raise ValueError(
            f"the causal mask has {causal.shape[-1]} keys, the padding mask {key_padding.shape[-1]}"
        )
    return causal & key_padding[..., None, :]


def attention_context(weights: ArrayLike, V: ArrayLike) -> np.ndarray:
    """Context ``weights @ V``: each query's weighted average of value rows."""
    weights, V = np.asarray(weights), np.asarray(V)
    if weights.shape[-1] != V.shape[-2]:
        raise ValueError(f"the weights have n_k = {weights.shape[-1]} but V has {V.shape[-2]} rows")
    return weights @ V


def scaled_dot_product_attention(
    Q: ArrayLike,
    K: ArrayLike,
    V: ArrayLike,
    mask: ArrayLike | None = None,
    scale: float | None = None,
    temperature: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Full attention: scores, masked stable softmax, weighted sum of values."""
    weights = stable_softmax(attention_scores(Q, K, scale), mask, temperature)
    return attention_context(weights, V), weights


def self_attention(
    X: ArrayLike,
    W_q: ArrayLike,
    W_k: ArrayLike,
    W_v: ArrayLike,
    mask: ArrayLike | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Self-attention: queries, keys and values are three projections of the same X."""
    X, W_q, W_k, W_v = (np.asarray(x) for x in (X, W_q, W_k, W_v))
    if X.ndim < 2:
        raise ValueError(f"X must have shape (..., T, d_model), got {X.shape}")
    for name, W in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v)):
        if W.ndim != 2 or W.shape[0] != X.shape[-1]:
            raise ValueError(f"{name} has shape {W.shape}, but X has d_model = {X.shape[-1]}")
    return scaled_dot_product_attention(X @ W_q, X @ W_k, X @ W_v, mask=mask)


def cross_attention(
    X_dec: ArrayLike,
    X_enc: ArrayLike,
    W_q: ArrayLike,
    W_k: ArrayLike,
    W_v: ArrayLike,
    mask: ArrayLike | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Cross-attention: queries from the decoder, keys and values from the encoder."""
    X_dec, X_enc, W_q, W_k, W_v = (np.asarray(x) for x in (X_dec, X_enc, W_q, W_k, W_v))
    if X_dec.ndim < 2 or X_enc.ndim < 2:
        raise ValueError("X_dec must be (..., n_q, d_dec) and X_enc (..., n_k, d_enc)")
    for name, W, X, d in (
        ("W_q", W_q, X_dec, "d_dec"),
        ("W_k", W_k, X_enc, "d_enc"),
        ("W_v", W_v, X_enc, "d_enc"),
    ):
        if W.ndim != 2 or W.shape[0] != X.shape[-1]:
            raise ValueError(f"{name} has shape {W.shape}, but {d} = {X.shape[-1]}")
    return scaled_dot_product_attention(X_dec @ W_q, X_enc @ W_k, X_enc @ W_v, mask=mask)


def torch_sdpa(
    Q: ArrayLike,
    K: ArrayLike,
    V: ArrayLike,
    mask: ArrayLike | None = None,
    scale: float | None = None,
) -> np.ndarray:
    """Context from PyTorch's ``scaled_dot_product_attention``, as a NumPy array."""
    Q, K, V = (np.asarray(x) for x in (Q, K, V))
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"d_k of Q ({Q.shape[-1]}) and d_k of K ({K.shape[-1]}) must agree")
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(f"K has n_k = {K.shape[-2]} rows but V has {V.shape[-2]}")
    if mask is not None and np.shape(mask)[-1] != K.shape[-2]:
        raise ValueError(f"the mask has {np.shape(mask)[-1]} keys, K has {K.shape[-2]}")
    dtype = np.result_type(Q, K, V, 1.0)
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    q, k, v = (
        torch.from_numpy(np.array(np.broadcast_to(x, batch + x.shape[-2:]), dtype=dtype))
        for x in (Q, K, V)
    )
    attn_mask = None if mask is None else torch.from_numpy(np.array(mask, dtype=bool))
    out = torch.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=attn_mask, dropout_p=0.0, scale=None if scale is None else float(scale)
    )
    return out.numpy()


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
    if not -n_k <= index < n_k:
        raise IndexError(f"index {index} is outside the {n_k} keys (valid: {-n_k} to {n_k - 1})")
    new_V = np.array(V, dtype=np.result_type(V, 1.0))
    new_V[..., index, :] = new_value
    context_before, weights_before = scaled_dot_product_attention(Q, K, V, mask=mask)
    context_after, weights_after = scaled_dot_product_attention(Q, K, new_V, mask=mask)
    return {
        "weights_before": weights_before,
        "weights_after": weights_after,
        "context_before": context_before,
        "context_after": context_after,
    }


def score_entry_count(n_q: int, n_k: int, heads: int = 1, batch: int = 1) -> int:
    """Number of score entries dense attention computes: ``batch * heads * n_q * n_k``."""
    sizes = {"n_q": n_q, "n_k": n_k, "heads": heads, "batch": batch}
    for name, size in sizes.items():
        if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {size!r}")
    return int(batch) * int(heads) * int(n_q) * int(n_k)
