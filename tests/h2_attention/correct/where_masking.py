"""Correct student: ``np.where`` masking with ``-np.inf`` fills; fully masked rows are found
and refused explicitly (no ``np.nan_to_num``, no NaN ever produced)."""

import math

import numpy as np
import torch
from numpy.typing import ArrayLike

LIMITATION = """
Softmax attention always spends the whole budget of weight. Each row of weights sums to one, so
a query that finds nothing relevant still has to put its weight somewhere, often on the first
token or on punctuation. The mechanism has no built-in way to say that nothing matched, and a
heatmap of such a row looks confident even though the retrieved context is meaningless for that
query. Interpreting these forced weights as relevance can therefore mislead us.
"""


def attention_scores(Q: ArrayLike, K: ArrayLike, scale: float | None = None) -> np.ndarray:
    """Scaled dot-product scores ``S = scale * Q @ K^T`` of shape ``(..., n_q, n_k)``."""
    Q = np.asarray(Q)
    K = np.asarray(K)
    d_q, d_k = Q.shape[-1], K.shape[-1]
    if d_q != d_k:
        raise ValueError(f"Q and K must have the same d_k; got {d_q} for Q and {d_k} for K")
    if scale is None:
        scale = 1 / math.sqrt(d_k)
    return np.matmul(Q, np.swapaxes(K, -1, -2)) * float(scale)


def additive_scores(
    Q: ArrayLike, K: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, w_v: ArrayLike
) -> np.ndarray:
    """Additive (Bahdanau) scores ``s_ij = w_v . tanh(q_i W_q + k_j W_k)``."""
    Q, K = np.asarray(Q), np.asarray(K)
    W_q, W_k, w_v = np.asarray(W_q), np.asarray(W_k), np.asarray(w_v)
    if W_q.ndim != 2 or W_k.ndim != 2:
        raise ValueError("W_q and W_k must be 2-D: (d_q, h) and (d_k, h)")
    if W_q.shape[1] != W_k.shape[1]:
        raise ValueError(
            f"W_q and W_k project to different widths: {W_q.shape[1]} vs {W_k.shape[1]}"
        )
    h = W_q.shape[1]
    if w_v.shape != (h,):
        raise ValueError(f"w_v must have shape ({h},), got {w_v.shape}")
    if Q.shape[-1] != W_q.shape[0]:
        raise ValueError(f"Q's width d_q = {Q.shape[-1]} does not match W_q's {W_q.shape[0]} rows")
    if K.shape[-1] != W_k.shape[0]:
        raise ValueError(f"K's width d_k = {K.shape[-1]} does not match W_k's {W_k.shape[0]} rows")
    queries = np.expand_dims(Q @ W_q, -2)  # (..., n_q, 1, h)
    keys = np.expand_dims(K @ W_k, -3)  # (..., 1, n_k, h)
    return np.tanh(queries + keys) @ w_v


def stable_softmax(
    scores: ArrayLike, mask: ArrayLike | None = None, temperature: float = 1.0
) -> np.ndarray:
    """Row-wise softmax over the last axis; masked and ``-inf`` entries get exactly 0."""
    scores = np.asarray(scores)
    if not isinstance(temperature, int | float | np.integer | np.floating) or isinstance(
        temperature, bool
    ):
        raise ValueError(f"temperature must be a real number, got {type(temperature).__name__}")
    if not np.isfinite(temperature) or temperature <= 0:
        raise ValueError(f"temperature must be a finite number > 0, got {temperature}")
    temperature = float(temperature)
    if mask is None:
        mask = np.ones(scores.shape, dtype=bool)
    else:
        mask = np.asarray(mask, dtype=bool)
        if mask.ndim > 0 and scores.ndim > 0 and mask.shape[-1] not in (1, scores.shape[-1]):
            raise ValueError(
                f"the mask covers {mask.shape[-1]} keys but the scores have {scores.shape[-1]}"
            )
        try:
            mask = np.broadcast_to(mask, scores.shape)
        except ValueError:
            raise ValueError(
                f"mask of shape {mask.shape} is not broadcastable to scores {scores.shape}"
            ) from None
    permitted = mask & (scores > -np.inf)
    has_key = np.any(permitted, axis=-1)
    if not np.all(has_key):
        position = np.unravel_index(int(np.argmin(has_key)), np.shape(has_key))
        row = position[-1] if position else 0
        message = f"row {row} has no permitted key (every key is masked or -inf)"
        if len(position) > 1:
            message += f"; batch position {tuple(int(p) for p in position[:-1])}"
        raise ValueError(message)
    masked = np.where(permitted, scores, -np.inf)
    row_max = np.max(masked, axis=-1, keepdims=True)  # finite: every row has a permitted key
    exps = np.where(permitted, np.exp((masked - row_max) / temperature), 0.0)
    return exps / np.sum(exps, axis=-1, keepdims=True)


def causal_mask(n_q: int, n_k: int | None = None) -> np.ndarray:
    """Boolean ``(n_q, n_k)`` mask: query i may attend to key j iff ``j <= i``."""
    if n_k is None:
        n_k = n_q
    rows, cols = np.indices((n_q, n_k))
    return np.where(cols <= rows, True, False)


def padding_mask(lengths: ArrayLike, n_k: int) -> np.ndarray:
    """Boolean ``(B, n_k)`` key-padding mask: True where ``position < length``."""
    lengths = np.asarray(lengths)
    if lengths.ndim == 0:
        lengths = lengths[None]
    outside = np.where((lengths < 0) | (lengths > n_k))[0]
    if outside.size:
        b = int(outside[0])
        raise ValueError(f"lengths[{b}] = {lengths[b]} is not in [0, n_k] = [0, {n_k}]")
    return np.where(np.arange(n_k)[None, :] < lengths[:, None], True, False)


def combine_masks(causal: ArrayLike, key_padding: ArrayLike) -> np.ndarray:
    """Intersect a causal ``(n_q, n_k)`` mask with a key-padding ``(B, n_k)`` mask."""
    causal = np.asarray(causal, dtype=bool)
    key_padding = np.asarray(key_padding, dtype=bool)
    if causal.shape[-1] != key_padding.shape[-1]:
        raise ValueError(
            f"the masks disagree on the number of keys: causal {causal.shape[-1]}, "
            f"padding {key_padding.shape[-1]}"
        )
    return np.logical_and(causal[np.newaxis, :, :], key_padding[:, np.newaxis, :])


def attention_context(weights: ArrayLike, V: ArrayLike) -> np.ndarray:
    """Context ``weights @ V``: each query's weighted average of value rows."""
    weights = np.asarray(weights)
    V = np.asarray(V)
    if V.ndim < 2:
        raise ValueError(f"V must have shape (..., n_k, d_v), got {V.shape}")
    if weights.shape[-1] != V.shape[-2]:
        raise ValueError(
            f"weights cover n_k = {weights.shape[-1]} keys but V has n_k = {V.shape[-2]} rows"
        )
    return np.matmul(weights, V)


def scaled_dot_product_attention(
    Q: ArrayLike,
    K: ArrayLike,
    V: ArrayLike,
    mask: ArrayLike | None = None,
    scale: float | None = None,
    temperature: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Full attention: scores, masked stable softmax, weighted sum of values."""
    weights = stable_softmax(
        attention_scores(Q, K, scale=scale), mask=mask, temperature=temperature
    )
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
    W_q = np.asarray(W_q)
    W_k = np.asarray(W_k)
    W_v = np.asarray(W_v)
    if X.ndim < 2:
        raise ValueError(f"X must have shape (..., T, d_model), got {X.shape}")
    d_model = X.shape[-1]
    if W_q.ndim != 2 or W_q.shape[0] != d_model:
        raise ValueError(
            f"W_q must have shape ({d_model}, d_k) for d_model = {d_model}, got {W_q.shape}"
        )
    if W_k.ndim != 2 or W_k.shape[0] != d_model:
        raise ValueError(
            f"W_k must have shape ({d_model}, d_k) for d_model = {d_model}, got {W_k.shape}"
        )
    if W_v.ndim != 2 or W_v.shape[0] != d_model:
        raise ValueError(
            f"W_v must have shape ({d_model}, d_v) for d_model = {d_model}, got {W_v.shape}"
        )
    Q = np.matmul(X, W_q)
    K = np.matmul(X, W_k)
    V = np.matmul(X, W_v)
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
    X_dec = np.asarray(X_dec)
    X_enc = np.asarray(X_enc)
    W_q = np.asarray(W_q)
    W_k = np.asarray(W_k)
    W_v = np.asarray(W_v)
    if X_dec.ndim < 2:
        raise ValueError(f"X_dec must have shape (..., n_q, d_dec), got {X_dec.shape}")
    if X_enc.ndim < 2:
        raise ValueError(f"X_enc must have shape (..., n_k, d_enc), got {X_enc.shape}")
    d_dec, d_enc = X_dec.shape[-1], X_enc.shape[-1]
    if W_q.ndim != 2 or W_q.shape[0] != d_dec:
        raise ValueError(f"W_q must have shape ({d_dec}, d_k) for d_dec = {d_dec}, got {W_q.shape}")
    if W_k.ndim != 2 or W_k.shape[0] != d_enc:
        raise ValueError(f"W_k must have shape ({d_enc}, d_k) for d_enc = {d_enc}, got {W_k.shape}")
    if W_v.ndim != 2 or W_v.shape[0] != d_enc:
        raise ValueError(f"W_v must have shape ({d_enc}, d_v) for d_enc = {d_enc}, got {W_v.shape}")
    # No causal mask here: every decoder position may read every encoder position.
    context, weights = scaled_dot_product_attention(
        np.matmul(X_dec, W_q), np.matmul(X_enc, W_k), np.matmul(X_enc, W_v), mask=mask
    )
    return context, weights


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
        raise ValueError(f"Q and K must have the same d_k; got {Q.shape[-1]} and {K.shape[-1]}")
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(f"K has n_k = {K.shape[-2]} rows but V has n_k = {V.shape[-2]} rows")
    dtype = np.result_type(Q.dtype, K.dtype, V.dtype, np.float16)  # ints -> float64
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])

    def to_torch(x: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(np.array(np.broadcast_to(x, batch + x.shape[-2:]), dtype=dtype))

    attn_mask = None
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.shape[-1] != K.shape[-2]:
            raise ValueError(f"the mask covers {mask.shape[-1]} keys but K has {K.shape[-2]}")
        attn_mask = torch.from_numpy(mask.copy())
    context = torch.nn.functional.scaled_dot_product_attention(
        to_torch(Q),
        to_torch(K),
        to_torch(V),
        attn_mask=attn_mask,
        dropout_p=0.0,
        scale=scale if scale is None else float(scale),
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
    if index >= n_k or index < -n_k:
        raise IndexError(f"index {index} is out of range for n_k = {n_k} keys")
    rows = np.arange(n_k)
    target = rows == rows[index]  # handles negative indexes the Python way
    new_value = np.asarray(new_value)
    V_new = np.where(target[:, None], new_value, V)
    if np.issubdtype(V.dtype, np.floating):
        V_new = V_new.astype(V.dtype)  # float32 V stays float32
    context_before, weights_before = scaled_dot_product_attention(Q, K, V, mask=mask)
    context_after, weights_after = scaled_dot_product_attention(Q, K, V_new, mask=mask)
    return {
        "weights_before": weights_before,
        "weights_after": weights_after,
        "context_before": context_before,
        "context_after": context_after,
    }


def score_entry_count(n_q: int, n_k: int, heads: int = 1, batch: int = 1) -> int:
    """Number of score entries dense attention computes: ``batch * heads * n_q * n_k``."""
    for name, value in {"n_q": n_q, "n_k": n_k, "heads": heads, "batch": batch}.items():
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            raise ValueError(f"{name} must be an int, got {value!r}")
        if value < 0:
            raise ValueError(f"{name} must be >= 0, got {value}")
    return int(batch) * int(heads) * int(n_q) * int(n_k)
