"""Correct student: ``np.einsum`` everywhere (every product and every row sum is an einsum)."""

import math

import numpy as np
import torch
from numpy.typing import ArrayLike

LIMITATION = """
Plain attention has no idea of order. If I permute the keys together with their values, every
query gets exactly the same context, because a weighted sum does not care about positions. The
model only knows that a word came first or last if we add positional encodings or a mask, so word
order is something we inject by hand rather than something the mechanism understands. Without it,
"dog bites man" and "man bites dog" look the same to a single attention layer.
"""


def attention_scores(Q: ArrayLike, K: ArrayLike, scale: float | None = None) -> np.ndarray:
    """Scaled dot-product scores ``S = scale * Q @ K^T`` of shape ``(..., n_q, n_k)``."""
    Q, K = np.asarray(Q), np.asarray(K)
    if Q.ndim < 2 or K.ndim < 2:
        raise ValueError("Q and K must be at least 2-D: (..., n_q, d_k) and (..., n_k, d_k)")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"d_k mismatch: Q has {Q.shape[-1]} columns, K has {K.shape[-1]}")
    factor = 1.0 / math.sqrt(Q.shape[-1]) if scale is None else float(scale)
    return factor * np.einsum("...qd,...kd->...qk", Q, K)


def additive_scores(
    Q: ArrayLike, K: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, w_v: ArrayLike
) -> np.ndarray:
    """Additive (Bahdanau) scores ``s_ij = w_v . tanh(q_i W_q + k_j W_k)``."""
    Q, K, W_q, W_k, w_v = (np.asarray(x) for x in (Q, K, W_q, W_k, w_v))
    if W_q.ndim != 2 or W_k.ndim != 2 or w_v.ndim != 1:
        raise ValueError("expected W_q (d_q, h), W_k (d_k, h) and w_v (h,)")
    if Q.shape[-1] != W_q.shape[0] or K.shape[-1] != W_k.shape[0]:
        raise ValueError(
            f"d_q/d_k mismatch: Q {Q.shape[-1]} vs W_q {W_q.shape[0]}, K {K.shape[-1]} vs "
            f"W_k {W_k.shape[0]}"
        )
    if W_q.shape[1] != W_k.shape[1]:
        raise ValueError(f"projection widths differ: W_q gives {W_q.shape[1]}, W_k {W_k.shape[1]}")
    if w_v.shape[0] != W_q.shape[1]:
        raise ValueError(f"w_v has length {w_v.shape[0]} but h = {W_q.shape[1]}")
    q_proj = np.einsum("...qd,dh->...qh", Q, W_q)
    k_proj = np.einsum("...kd,dh->...kh", K, W_k)
    hidden = np.tanh(q_proj[..., :, None, :] + k_proj[..., None, :, :])
    return np.einsum("...qkh,h->...qk", hidden, w_v)


def stable_softmax(
    scores: ArrayLike, mask: ArrayLike | None = None, temperature: float = 1.0
) -> np.ndarray:
    """Row-wise softmax over the last axis; masked and ``-inf`` entries get exactly 0."""
    scores = np.asarray(scores)
    if isinstance(temperature, str | bytes):
        raise ValueError(f"temperature must be a number, got {temperature!r}")
    t = float(temperature)
    if not math.isfinite(t) or t <= 0.0:
        raise ValueError(f"temperature must be finite and > 0, got {temperature}")
    keep = scores != -np.inf
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.ndim >= 1 and scores.ndim >= 1 and mask.shape[-1] not in (1, scores.shape[-1]):
            raise ValueError(
                f"mask has {mask.shape[-1]} keys but the scores have {scores.shape[-1]} keys"
            )
        keep = keep & np.broadcast_to(mask, scores.shape)
    counts = np.einsum("...k->...", keep.astype(np.int64))
    if np.any(counts == 0):
        flat = int(np.flatnonzero(counts == 0)[0])
        raise ValueError(f"row {flat} has no permitted key (every entry is masked or -inf)")
    row_max = np.max(np.where(keep, scores, -np.inf), axis=-1, keepdims=True)
    shifted = np.where(keep, scores - row_max, 0.0) / t
    exps = np.einsum("...k,...k->...k", np.exp(shifted), keep.astype(shifted.dtype))
    return exps / np.einsum("...k->...", exps)[..., None]


def causal_mask(n_q: int, n_k: int | None = None) -> np.ndarray:
    """Boolean ``(n_q, n_k)`` mask: query i may attend to key j iff ``j <= i``."""
    n_k = n_q if n_k is None else n_k
    return np.arange(n_k)[None, :] <= np.arange(n_q)[:, None]


def padding_mask(lengths: ArrayLike, n_k: int) -> np.ndarray:
    """Boolean ``(B, n_k)`` key-padding mask: True where ``position < length``."""
    lengths = np.asarray(lengths).reshape(-1)
    bad = (lengths < 0) | (lengths > n_k)
    if bad.any():
        b = int(np.flatnonzero(bad)[0])
        raise ValueError(f"length {lengths[b]} (sequence {b}) is outside [0, n_k={n_k}]")
    return np.arange(n_k)[None, :] < lengths[:, None]


def combine_masks(causal: ArrayLike, key_padding: ArrayLike) -> np.ndarray:
    """Intersect a causal ``(n_q, n_k)`` mask with a key-padding ``(B, n_k)`` mask."""
    causal = np.asarray(causal, dtype=bool)
    key_padding = np.atleast_2d(np.asarray(key_padding, dtype=bool))
    if causal.ndim != 2:
        raise ValueError(f"the causal mask must be (n_q, n_k), got shape {causal.shape}")
    if causal.shape[1] != key_padding.shape[1]:
        raise ValueError(
            f"n_k mismatch: causal mask has {causal.shape[1]} keys, padding {key_padding.shape[1]}"
        )
    return np.einsum("qk,bk->bqk", causal, key_padding)


def attention_context(weights: ArrayLike, V: ArrayLike) -> np.ndarray:
    """Context ``weights @ V``: each query's weighted average of value rows."""
    weights, V = np.asarray(weights), np.asarray(V)
    if weights.ndim < 2 or V.ndim < 2:
        raise ValueError("weights must be (..., n_q, n_k) and V (..., n_k, d_v)")
    if weights.shape[-1] != V.shape[-2]:
        raise ValueError(f"n_k mismatch: weights have {weights.shape[-1]} keys, V {V.shape[-2]}")
    return np.einsum("...qk,...kv->...qv", weights, V)


def scaled_dot_product_attention(
    Q: ArrayLike,
    K: ArrayLike,
    V: ArrayLike,
    mask: ArrayLike | None = None,
    scale: float | None = None,
    temperature: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Full attention: scores, masked stable softmax, weighted sum of values."""
    scores = attention_scores(Q, K, scale)
    weights = stable_softmax(scores, mask=mask, temperature=temperature)
    return attention_context(weights, V), weights


def self_attention(
    X: ArrayLike,
    W_q: ArrayLike,
    W_k: ArrayLike,
    W_v: ArrayLike,
    mask: ArrayLike | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Self-attention: queries, keys and values are three projections of the same X."""
    X = np.asarray(X)
    W_q, W_k, W_v = np.asarray(W_q), np.asarray(W_k), np.asarray(W_v)
    if X.ndim < 2:
        raise ValueError(f"X must be (..., T, d_model), got shape {X.shape}")
    for name, W in {"W_q": W_q, "W_k": W_k, "W_v": W_v}.items():
        if W.ndim != 2 or W.shape[0] != X.shape[-1]:
            raise ValueError(
                f"d_model mismatch: X has {X.shape[-1]} columns, {name} has shape {W.shape}"
            )
    Q = np.einsum("...td,dk->...tk", X, W_q)
    K = np.einsum("...td,dk->...tk", X, W_k)
    V = np.einsum("...td,dv->...tv", X, W_v)
    return scaled_dot_product_attention(Q, K, V, mask=mask)


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
    W_q, W_k, W_v = np.asarray(W_q), np.asarray(W_k), np.asarray(W_v)
    if X_dec.ndim < 2 or X_enc.ndim < 2:
        raise ValueError("X_dec must be (..., n_q, d_dec) and X_enc (..., n_k, d_enc)")
    if W_q.ndim != 2 or W_q.shape[0] != X_dec.shape[-1]:
        raise ValueError(f"d_dec mismatch: X_dec has {X_dec.shape[-1]} columns, W_q {W_q.shape}")
    for name, W in {"W_k": W_k, "W_v": W_v}.items():
        if W.ndim != 2 or W.shape[0] != X_enc.shape[-1]:
            raise ValueError(
                f"d_enc mismatch: X_enc has {X_enc.shape[-1]} columns, {name} has shape {W.shape}"
            )
    Q = np.einsum("...qd,dk->...qk", X_dec, W_q)
    K = np.einsum("...kd,dh->...kh", X_enc, W_k)
    V = np.einsum("...kd,dv->...kv", X_enc, W_v)
    return scaled_dot_product_attention(Q, K, V, mask=mask)


def torch_sdpa(
    Q: ArrayLike,
    K: ArrayLike,
    V: ArrayLike,
    mask: ArrayLike | None = None,
    scale: float | None = None,
) -> np.ndarray:
    """Context from PyTorch's ``scaled_dot_product_attention``, as a NumPy array."""
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"d_k mismatch: Q has {Q.shape[-1]} columns, K has {K.shape[-1]}")
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(f"n_k mismatch: K has {K.shape[-2]} rows, V has {V.shape[-2]}")
    dtype = np.result_type(Q, K, V, 1.0)
    lead = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    q, k, v = (
        torch.from_numpy(np.array(np.broadcast_to(x, lead + x.shape[-2:]), dtype=dtype))
        for x in (Q, K, V)
    )
    attn_mask = None
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.shape[-1] != K.shape[-2]:
            raise ValueError(f"n_k mismatch: mask has {mask.shape[-1]} keys, K {K.shape[-2]}")
        attn_mask = torch.from_numpy(np.array(mask))
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
        raise IndexError(f"index {index} does not select one of the {n_k} keys")
    # A float copy of V (integers become float64, float32 stays float32); V is not written.
    V_after = np.einsum("...kv->...kv", V).astype(np.result_type(V, 1.0), copy=True)
    V_after[..., index, :] = new_value
    context_before, weights_before = scaled_dot_product_attention(Q, K, V, mask=mask)
    context_after, weights_after = scaled_dot_product_attention(Q, K, V_after, mask=mask)
    return {
        "weights_before": weights_before,
        "weights_after": weights_after,
        "context_before": context_before,
        "context_after": context_after,
    }


def score_entry_count(n_q: int, n_k: int, heads: int = 1, batch: int = 1) -> int:
    """Number of score entries dense attention computes: ``batch * heads * n_q * n_k``."""
    sizes = (n_q, n_k, heads, batch)
    for size in sizes:
        if isinstance(size, bool) or not isinstance(size, int | np.integer):
            raise ValueError(f"sizes must be integers, got {size!r}")
        if size < 0:
            raise ValueError(f"sizes must be >= 0, got {size}")
    return math.prod(int(size) for size in sizes)
