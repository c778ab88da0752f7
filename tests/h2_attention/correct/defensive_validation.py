"""Correct student: defensive validation first (explicit shape and dtype checks with clear
messages), then the computation, in float64 only where the notebook allows it (integer inputs);
float32 stays float32."""

import math

import numpy as np
import torch
from numpy.typing import ArrayLike

LIMITATION = """
Attention can only retrieve what is already present in the values. The context for each query is
a convex combination of the value rows, so it always lies inside their convex hull: the layer can
mix and average information but cannot create a vector outside that range by itself. If the
needed fact is not in any value, or has been averaged away with unrelated rows, attention alone
cannot recover it, and later layers have to do the real transformation.
"""


def attention_scores(Q: ArrayLike, K: ArrayLike, scale: float | None = None) -> np.ndarray:
    """Scaled dot-product scores ``S = scale * Q @ K^T`` of shape ``(..., n_q, n_k)``."""
    Q, K = np.asarray(Q), np.asarray(K)
    for name, x in (("Q", Q), ("K", K)):
        if x.ndim < 2:
            raise ValueError(f"{name} must have shape (..., n, d_k), got shape {x.shape}")
        if not (np.issubdtype(x.dtype, np.number) or x.dtype == bool):
            raise ValueError(f"{name} must be numeric, got dtype {x.dtype}")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(
            f"d_k of Q ({Q.shape[-1]}) and d_k of K ({K.shape[-1]}) differ: they must agree"
        )
    try:
        batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2])
    except ValueError:
        raise ValueError(
            f"batch dimensions of Q {Q.shape[:-2]} and K {K.shape[:-2]} do not broadcast"
        ) from None
    del batch
    d_k = Q.shape[-1]
    if scale is None:
        if d_k == 0:
            raise ValueError("d_k is 0: the default scale 1/sqrt(d_k) is undefined")
        scale = 1.0 / math.sqrt(d_k)
    scale = float(scale)
    if not np.issubdtype(Q.dtype, np.floating):
        Q = Q.astype(np.float64)  # integers: float64 is allowed
    if not np.issubdtype(K.dtype, np.floating):
        K = K.astype(np.float64)
    return scale * np.matmul(Q, np.swapaxes(K, -1, -2))


def additive_scores(
    Q: ArrayLike, K: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, w_v: ArrayLike
) -> np.ndarray:
    """Additive (Bahdanau) scores ``s_ij = w_v . tanh(q_i W_q + k_j W_k)``."""
    Q, K, W_q, W_k, w_v = (np.asarray(x) for x in (Q, K, W_q, W_k, w_v))
    if Q.ndim < 2:
        raise ValueError(f"Q must have shape (..., n_q, d_q), got {Q.shape}")
    if K.ndim < 2:
        raise ValueError(f"K must have shape (..., n_k, d_k), got {K.shape}")
    if W_q.ndim != 2:
        raise ValueError(f"W_q must have shape (d_q, h), got {W_q.shape}")
    if W_k.ndim != 2:
        raise ValueError(f"W_k must have shape (d_k, h), got {W_k.shape}")
    if w_v.ndim != 1:
        raise ValueError(f"w_v must have shape (h,), got {w_v.shape}")
    if Q.shape[-1] != W_q.shape[0]:
        raise ValueError(f"d_q: Q has {Q.shape[-1]} columns but W_q has {W_q.shape[0]} rows")
    if K.shape[-1] != W_k.shape[0]:
        raise ValueError(f"d_k: K has {K.shape[-1]} columns but W_k has {W_k.shape[0]} rows")
    if W_q.shape[1] != W_k.shape[1]:
        raise ValueError(
            f"h: W_q projects to {W_q.shape[1]} but W_k to {W_k.shape[1]}; they must agree"
        )
    if w_v.shape[0] != W_q.shape[1]:
        raise ValueError(
            f"h: w_v has length {w_v.shape[0]} but the projections have {W_q.shape[1]}"
        )
    projected_q = np.matmul(Q, W_q)[..., :, np.newaxis, :]
    projected_k = np.matmul(K, W_k)[..., np.newaxis, :, :]
    return np.matmul(np.tanh(projected_q + projected_k), w_v)


def stable_softmax(
    scores: ArrayLike, mask: ArrayLike | None = None, temperature: float = 1.0
) -> np.ndarray:
    """Row-wise softmax over the last axis; masked and ``-inf`` entries get exactly 0."""
    scores = np.asarray(scores)
    if scores.ndim < 1:
        raise ValueError("scores must have at least one axis (the keys)")
    if not (np.issubdtype(scores.dtype, np.number) or scores.dtype == bool):
        raise ValueError(f"scores must be numeric, got dtype {scores.dtype}")
    if isinstance(temperature, bool) or not isinstance(
        temperature, int | float | np.integer | np.floating
    ):
        raise ValueError(f"temperature must be a number, got {temperature!r}")
    if not math.isfinite(temperature) or temperature <= 0:
        raise ValueError(f"temperature must be a finite number > 0, got {temperature}")
    if not np.issubdtype(scores.dtype, np.floating):
        scores = scores.astype(np.float64)
    permitted = scores != -np.inf
    if mask is not None:
        mask = np.asarray(mask)
        if mask.dtype != bool:
            raise ValueError(f"mask must be Boolean (True = may attend), got dtype {mask.dtype}")
        if mask.ndim > scores.ndim:
            raise ValueError(f"mask of shape {mask.shape} has more axes than scores {scores.shape}")
        if mask.ndim >= 1 and mask.shape[-1] not in (1, scores.shape[-1]):
            raise ValueError(
                f"mask has {mask.shape[-1]} keys but the scores have n_k = {scores.shape[-1]}"
            )
        try:
            mask = np.broadcast_to(mask, scores.shape)
        except ValueError:
            raise ValueError(
                f"mask of shape {mask.shape} does not broadcast to scores of shape {scores.shape}"
            ) from None
        permitted = permitted & mask
    empty_rows = ~np.any(permitted, axis=-1)
    if np.any(empty_rows):
        first = tuple(int(i) for i in np.argwhere(empty_rows)[0]) if scores.ndim > 1 else (0,)
        where = f"row {first[-1]}"
        if len(first) > 1:
            where += f" (at batch index {first[:-1]})"
        raise ValueError(f"{where} has no permitted key: every entry is masked or -inf")
    safe = np.where(permitted, scores, -np.inf)
    row_max = np.max(safe, axis=-1, keepdims=True)
    exps = np.exp((safe - row_max) / float(temperature))
    return exps / np.sum(exps, axis=-1, keepdims=True)


def causal_mask(n_q: int, n_k: int | None = None) -> np.ndarray:
    """Boolean ``(n_q, n_k)`` mask: query i may attend to key j iff ``j <= i``."""
    if n_k is None:
        n_k = n_q
    for name, n in (("n_q", n_q), ("n_k", n_k)):
        if isinstance(n, bool) or not isinstance(n, int | np.integer):
            raise ValueError(f"{name} must be an integer, got {n!r}")
        if n < 0:
            raise ValueError(f"{name} must be >= 0, got {n}")
    return np.tril(np.ones((int(n_q), int(n_k)), dtype=bool))


def padding_mask(lengths: ArrayLike, n_k: int) -> np.ndarray:
    """Boolean ``(B, n_k)`` key-padding mask: True where ``position < length``."""
    if isinstance(n_k, bool) or not isinstance(n_k, int | np.integer) or n_k < 0:
        raise ValueError(f"n_k must be a non-negative integer, got {n_k!r}")
    lengths = np.asarray(lengths)
    if lengths.ndim != 1:
        raise ValueError(
            f"lengths must be one length per sequence, shape (B,), got {lengths.shape}"
        )
    if lengths.size and not np.all(np.equal(np.mod(lengths, 1), 0)):
        raise ValueError(f"lengths must be whole numbers, got {lengths.tolist()}")
    for b, length in enumerate(lengths.tolist()):
        if not 0 <= length <= n_k:
            raise ValueError(f"lengths[{b}] = {length} is outside [0, n_k] = [0, {n_k}]")
    return np.arange(n_k)[np.newaxis, :] < lengths[:, np.newaxis]


def combine_masks(causal: ArrayLike, key_padding: ArrayLike) -> np.ndarray:
    """Intersect a causal ``(n_q, n_k)`` mask with a key-padding ``(B, n_k)`` mask."""
    causal, key_padding = np.asarray(causal), np.asarray(key_padding)
    if causal.ndim != 2:
        raise ValueError(f"the causal mask must have shape (n_q, n_k), got {causal.shape}")
    if key_padding.ndim != 2:
        raise ValueError(f"the key-padding mask must have shape (B, n_k), got {key_padding.shape}")
    if causal.shape[1] != key_padding.shape[1]:
        raise ValueError(
            f"number of keys differs: the causal mask has n_k = {causal.shape[1]}, "
            f"the key-padding mask has n_k = {key_padding.shape[1]}"
        )
    return causal.astype(bool)[np.newaxis, :, :] & key_padding.astype(bool)[:, np.newaxis, :]


def attention_context(weights: ArrayLike, V: ArrayLike) -> np.ndarray:
    """Context ``weights @ V``: each query's weighted average of value rows."""
    weights, V = np.asarray(weights), np.asarray(V)
    if weights.ndim < 2:
        raise ValueError(f"weights must have shape (..., n_q, n_k), got {weights.shape}")
    if V.ndim < 2:
        raise ValueError(f"V must have shape (..., n_k, d_v), got {V.shape}")
    if weights.shape[-1] != V.shape[-2]:
        raise ValueError(
            f"n_k of the weights ({weights.shape[-1]}) and n_k of V ({V.shape[-2]}) differ"
        )
    try:
        np.broadcast_shapes(weights.shape[:-2], V.shape[:-2])
    except ValueError:
        raise ValueError(
            f"batch dimensions of weights {weights.shape[:-2]} and V {V.shape[:-2]} do not match"
        ) from None
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
    K_shape, V_shape = np.shape(K), np.shape(V)
    if len(K_shape) >= 2 and len(V_shape) >= 2 and K_shape[-2] != V_shape[-2]:
        raise ValueError(f"K has n_k = {K_shape[-2]} rows but V has {V_shape[-2]}: they must agree")
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
        raise ValueError(f"X must have shape (..., T, d_model), got shape {X.shape}")
    if not (np.issubdtype(X.dtype, np.number) or X.dtype == bool):
        raise ValueError(f"X must be numeric, got dtype {X.dtype}")
    d_model = X.shape[-1]
    weights_in = {"W_q": np.asarray(W_q), "W_k": np.asarray(W_k), "W_v": np.asarray(W_v)}
    for name, W in weights_in.items():
        if W.ndim != 2:
            raise ValueError(f"{name} must have shape (d_model, d), got shape {W.shape}")
        if not (np.issubdtype(W.dtype, np.number) or W.dtype == bool):
            raise ValueError(f"{name} must be numeric, got dtype {W.dtype}")
        if W.shape[0] != d_model:
            raise ValueError(
                f"d_model: {name} has {W.shape[0]} rows but X has {d_model} columns; they must agree"
            )
    if weights_in["W_q"].shape[1] != weights_in["W_k"].shape[1]:
        raise ValueError(
            f"d_k: W_q projects to {weights_in['W_q'].shape[1]} but W_k to "
            f"{weights_in['W_k'].shape[1]}; they must agree"
        )
    if not np.issubdtype(X.dtype, np.floating):
        X = X.astype(np.float64)  # integers: float64 is allowed
    Q, K, V = (np.matmul(X, W) for W in weights_in.values())
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
    W_q, W_k, W_v = np.asarray(W_q), np.asarray(W_k), np.asarray(W_v)
    for name, x in (("X_dec", X_dec), ("X_enc", X_enc)):
        if x.ndim < 2:
            raise ValueError(f"{name} must have shape (..., n, d), got shape {x.shape}")
    for name, x in (("X_dec", X_dec), ("X_enc", X_enc), ("W_q", W_q), ("W_k", W_k), ("W_v", W_v)):
        if not (np.issubdtype(x.dtype, np.number) or x.dtype == bool):
            raise ValueError(f"{name} must be numeric, got dtype {x.dtype}")
    for name, W in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v)):
        if W.ndim != 2:
            raise ValueError(f"{name} must have shape (d_in, d_out), got shape {W.shape}")
    if W_q.shape[0] != X_dec.shape[-1]:
        raise ValueError(
            f"d_dec: W_q has {W_q.shape[0]} rows but X_dec has {X_dec.shape[-1]} columns"
        )
    for name, W in (("W_k", W_k), ("W_v", W_v)):
        if W.shape[0] != X_enc.shape[-1]:
            raise ValueError(
                f"d_enc: {name} has {W.shape[0]} rows but X_enc has {X_enc.shape[-1]} columns"
            )
    if W_q.shape[1] != W_k.shape[1]:
        raise ValueError(f"d_k: W_q projects to {W_q.shape[1]} but W_k to {W_k.shape[1]}")
    try:
        np.broadcast_shapes(X_dec.shape[:-2], X_enc.shape[:-2])
    except ValueError:
        raise ValueError(
            f"batch dimensions of X_dec {X_dec.shape[:-2]} and X_enc {X_enc.shape[:-2]} "
            "do not broadcast"
        ) from None
    if not np.issubdtype(X_dec.dtype, np.floating):
        X_dec = X_dec.astype(np.float64)
    if not np.issubdtype(X_enc.dtype, np.floating):
        X_enc = X_enc.astype(np.float64)
    Q = np.matmul(X_dec, W_q)
    K = np.matmul(X_enc, W_k)
    V = np.matmul(X_enc, W_v)
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
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    for name, x in (("Q", Q), ("K", K), ("V", V)):
        if x.ndim < 2:
            raise ValueError(f"{name} must have shape (..., n, d), got {x.shape}")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"d_k of Q ({Q.shape[-1]}) and d_k of K ({K.shape[-1]}) differ")
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(f"n_k of K ({K.shape[-2]}) and n_k of V ({V.shape[-2]}) differ")
    try:
        batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    except ValueError:
        raise ValueError("the batch dimensions of Q, K and V do not broadcast") from None
    dtype = np.result_type(Q, K, V)
    if not np.issubdtype(dtype, np.floating):
        dtype = np.dtype(np.float64)
    tensors = [
        torch.from_numpy(np.array(np.broadcast_to(x, batch + x.shape[-2:]), dtype=dtype))
        for x in (Q, K, V)
    ]
    attn_mask = None
    if mask is not None:
        mask = np.asarray(mask)
        if mask.dtype != bool:
            raise ValueError(f"mask must be Boolean (True = may attend), got dtype {mask.dtype}")
        if mask.ndim >= 1 and mask.shape[-1] != K.shape[-2]:
            raise ValueError(f"mask has {mask.shape[-1]} keys but K has n_k = {K.shape[-2]}")
        attn_mask = torch.from_numpy(np.array(mask))
    context = torch.nn.functional.scaled_dot_product_attention(
        *tensors,
        attn_mask=attn_mask,
        dropout_p=0.0,
        scale=None if scale is None else float(scale),
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
    new_value = np.asarray(new_value)
    if V.ndim < 2:
        raise ValueError(f"V must have shape (..., n_k, d_v), got {V.shape}")
    if isinstance(index, bool) or not isinstance(index, int | np.integer):
        raise IndexError(f"index must be an integer, got {index!r}")
    n_k, d_v = V.shape[-2], V.shape[-1]
    if not -n_k <= index < n_k:
        raise IndexError(f"index {index} is out of range for n_k = {n_k} keys")
    if new_value.ndim < 1 or new_value.shape[-1] != d_v:
        raise ValueError(f"new_value must have d_v = {d_v} entries, got shape {new_value.shape}")
    dtype = V.dtype if np.issubdtype(V.dtype, np.floating) else np.dtype(np.float64)
    V_after = np.array(V, dtype=dtype, copy=True)
    V_after[..., int(index), :] = new_value
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
    sizes = {"n_q": n_q, "n_k": n_k, "heads": heads, "batch": batch}
    for name, size in sizes.items():
        if isinstance(size, bool) or not isinstance(size, int | np.integer):
            raise ValueError(f"{name} must be an integer, got {type(size).__name__} {size!r}")
        if size < 0:
            raise ValueError(f"{name} must be non-negative, got {size}")
    return int(n_q) * int(n_k) * int(heads) * int(batch)
