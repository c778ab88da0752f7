"""Correct student: torch-heavy (compute with torch tensors wherever the notebook allows it,
convert back to NumPy with the inputs' dtype)."""

import math

import numpy as np
import torch
from numpy.typing import ArrayLike

LIMITATION = """
A large attention weight is easy to read as importance, but the weight only says how well a
query matched a key. How much that key changed the output also depends on its value vector: if
the value is close to the others, removing the key barely moves the context. So a heatmap of
weights is not a faithful explanation, and to know what mattered we need interventions on the
values or on the rest of the network, not just a picture of where the softmax put its mass.
"""


def attention_scores(Q: ArrayLike, K: ArrayLike, scale: float | None = None) -> np.ndarray:
    """Scaled dot-product scores ``S = scale * Q @ K^T`` of shape ``(..., n_q, n_k)``."""
    Q_np, K_np = np.asarray(Q), np.asarray(K)
    if Q_np.ndim < 2 or K_np.ndim < 2:
        raise ValueError("Q and K must have shape (..., n, d_k)")
    if Q_np.shape[-1] != K_np.shape[-1]:
        raise ValueError(f"d_k of Q ({Q_np.shape[-1]}) and of K ({K_np.shape[-1]}) must agree")
    np.broadcast_shapes(Q_np.shape[:-2], K_np.shape[:-2])  # ValueError if batches disagree
    dtype = np.result_type(Q_np, K_np, 1.0)  # float32 stays float32, integers become float64
    q = torch.from_numpy(np.array(Q_np, dtype=dtype))
    k = torch.from_numpy(np.array(K_np, dtype=dtype))
    factor = 1.0 / math.sqrt(Q_np.shape[-1]) if scale is None else float(scale)
    return (torch.matmul(q, k.transpose(-1, -2)) * factor).numpy()


def additive_scores(
    Q: ArrayLike, K: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, w_v: ArrayLike
) -> np.ndarray:
    """Additive (Bahdanau) scores ``s_ij = w_v . tanh(q_i W_q + k_j W_k)``."""
    arrays = [np.asarray(x) for x in (Q, K, W_q, W_k, w_v)]
    Q_np, K_np, Wq_np, Wk_np, wv_np = arrays
    if Q_np.ndim < 2 or K_np.ndim < 2:
        raise ValueError("Q and K must have shape (..., n, d)")
    if Wq_np.ndim != 2 or Wk_np.ndim != 2 or wv_np.ndim != 1:
        raise ValueError("W_q must be (d_q, h), W_k (d_k, h) and w_v (h,)")
    if Q_np.shape[-1] != Wq_np.shape[0]:
        raise ValueError(f"Q has d_q = {Q_np.shape[-1]} but W_q has {Wq_np.shape[0]} rows")
    if K_np.shape[-1] != Wk_np.shape[0]:
        raise ValueError(f"K has d_k = {K_np.shape[-1]} but W_k has {Wk_np.shape[0]} rows")
    if Wq_np.shape[1] != Wk_np.shape[1]:
        raise ValueError(f"W_q and W_k have different widths h: {Wq_np.shape[1]}, {Wk_np.shape[1]}")
    if wv_np.shape[0] != Wq_np.shape[1]:
        raise ValueError(f"w_v has length {wv_np.shape[0]}, not h = {Wq_np.shape[1]}")
    np.broadcast_shapes(Q_np.shape[:-2], K_np.shape[:-2])
    dtype = np.result_type(*arrays, 1.0)
    q, k, wq, wk, wv = (torch.from_numpy(np.array(x, dtype=dtype)) for x in arrays)
    hidden = torch.tanh((q @ wq).unsqueeze(-2) + (k @ wk).unsqueeze(-3))
    return (hidden @ wv).numpy()


def stable_softmax(
    scores: ArrayLike, mask: ArrayLike | None = None, temperature: float = 1.0
) -> np.ndarray:
    """Row-wise softmax over the last axis; masked and ``-inf`` entries get exactly 0."""
    scores_np = np.asarray(scores)
    try:
        t = float(temperature)
    except (TypeError, ValueError):
        raise ValueError(f"temperature must be a finite number > 0, got {temperature!r}") from None
    if not math.isfinite(t) or t <= 0:
        raise ValueError(f"temperature must be a finite number > 0, got {temperature}")
    s = torch.from_numpy(np.array(scores_np, dtype=np.result_type(scores_np, 1.0)))
    allowed = ~torch.isneginf(s)
    if mask is not None:
        mask_np = np.asarray(mask, dtype=bool)
        if mask_np.ndim and s.ndim and mask_np.shape[-1] not in (1, s.shape[-1]):
            raise ValueError(f"the mask has {mask_np.shape[-1]} keys, the scores {s.shape[-1]}")
        allowed = allowed & torch.from_numpy(np.array(np.broadcast_to(mask_np, scores_np.shape)))
    empty = ~allowed.any(dim=-1)
    if bool(empty.any()):
        first = torch.nonzero(empty)[0].tolist() if empty.dim() else []
        where = f"row {first[-1] if first else 0}"
        if len(first) > 1:
            where += f" of batch {tuple(first[:-1])}"
        raise ValueError(f"{where} has no permitted key")
    filled = s.masked_fill(~allowed, float("-inf"))
    row_max = filled.amax(dim=-1, keepdim=True)
    return torch.softmax((filled - row_max) / t, dim=-1).numpy()


def causal_mask(n_q: int, n_k: int | None = None) -> np.ndarray:
    """Boolean ``(n_q, n_k)`` mask: query i may attend to key j iff ``j <= i``."""
    n_k = n_q if n_k is None else n_k
    return torch.ones(int(n_q), int(n_k), dtype=torch.bool).tril().numpy()


def padding_mask(lengths: ArrayLike, n_k: int) -> np.ndarray:
    """Boolean ``(B, n_k)`` key-padding mask: True where ``position < length``."""
    lengths_t = torch.as_tensor(np.atleast_1d(np.array(lengths)))
    if bool(((lengths_t < 0) | (lengths_t > n_k)).any()):
        raise ValueError(f"lengths must lie in [0, {n_k}], got {lengths_t.tolist()}")
    return (torch.arange(int(n_k)).unsqueeze(0) < lengths_t.unsqueeze(-1)).numpy()


def combine_masks(causal: ArrayLike, key_padding: ArrayLike) -> np.ndarray:
    """Intersect a causal ``(n_q, n_k)`` mask with a key-padding ``(B, n_k)`` mask."""
    c = torch.from_numpy(np.array(causal, dtype=bool))
    p = torch.from_numpy(np.array(key_padding, dtype=bool))
    if c.shape[-1] != p.shape[-1]:
        raise ValueError(f"the causal mask has {c.shape[-1]} keys, the padding mask {p.shape[-1]}")
    return (c & p.unsqueeze(-2)).numpy()


def attention_context(weights: ArrayLike, V: ArrayLike) -> np.ndarray:
    """Context ``weights @ V``: each query's weighted average of value rows."""
    W_np, V_np = np.asarray(weights), np.asarray(V)
    if W_np.ndim < 2 or V_np.ndim < 2:
        raise ValueError("weights must be (..., n_q, n_k) and V (..., n_k, d_v)")
    if W_np.shape[-1] != V_np.shape[-2]:
        raise ValueError(
            f"n_k of the weights ({W_np.shape[-1]}) and of V ({V_np.shape[-2]}) differ"
        )
    np.broadcast_shapes(W_np.shape[:-2], V_np.shape[:-2])
    dtype = np.result_type(W_np, V_np)
    w = torch.from_numpy(np.array(W_np, dtype=dtype))
    v = torch.from_numpy(np.array(V_np, dtype=dtype))
    return torch.matmul(w, v).numpy()


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
    return attention_context(weights, V), weights


def self_attention(
    X: ArrayLike,
    W_q: ArrayLike,
    W_k: ArrayLike,
    W_v: ArrayLike,
    mask: ArrayLike | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Self-attention: queries, keys and values are three projections of the same X."""
    arrays = [np.asarray(a) for a in (X, W_q, W_k, W_v)]
    X_np = arrays[0]
    if X_np.ndim < 2:
        raise ValueError(f"X must have shape (..., T, d_model), got {X_np.shape}")
    for name, W_np in zip(("W_q", "W_k", "W_v"), arrays[1:], strict=True):
        if W_np.ndim != 2 or W_np.shape[0] != X_np.shape[-1]:
            raise ValueError(
                f"{name} must be (d_model, d) with d_model = {X_np.shape[-1]}, got {W_np.shape}"
            )
    dtype = np.result_type(*arrays, 1.0)  # float32 stays float32, integers become float64
    x, wq, wk, wv = (torch.from_numpy(np.array(a, dtype=dtype)) for a in arrays)
    with torch.no_grad():
        q, k, v = (x @ w for w in (wq, wk, wv))
    return scaled_dot_product_attention(q.numpy(), k.numpy(), v.numpy(), mask=mask)


def cross_attention(
    X_dec: ArrayLike,
    X_enc: ArrayLike,
    W_q: ArrayLike,
    W_k: ArrayLike,
    W_v: ArrayLike,
    mask: ArrayLike | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Cross-attention: queries from the decoder, keys and values from the encoder."""
    arrays = [np.asarray(a) for a in (X_dec, X_enc, W_q, W_k, W_v)]
    dec_np, enc_np, Wq_np, Wk_np, Wv_np = arrays
    if dec_np.ndim < 2 or enc_np.ndim < 2:
        raise ValueError("X_dec must be (..., n_q, d_dec) and X_enc (..., n_k, d_enc)")
    for name, W_np, width in (
        ("W_q", Wq_np, dec_np.shape[-1]),
        ("W_k", Wk_np, enc_np.shape[-1]),
        ("W_v", Wv_np, enc_np.shape[-1]),
    ):
        if W_np.ndim != 2 or W_np.shape[0] != width:
            raise ValueError(f"{name} must have {width} rows (its input's width), got {W_np.shape}")
    dtype = np.result_type(*arrays, 1.0)
    dec, enc, wq, wk, wv = (torch.from_numpy(np.array(a, dtype=dtype)) for a in arrays)
    with torch.no_grad():
        q = torch.matmul(dec, wq)
        k = torch.matmul(enc, wk)
        v = torch.matmul(enc, wv)
    return scaled_dot_product_attention(q.numpy(), k.numpy(), v.numpy(), mask=mask)


def torch_sdpa(
    Q: ArrayLike,
    K: ArrayLike,
    V: ArrayLike,
    mask: ArrayLike | None = None,
    scale: float | None = None,
) -> np.ndarray:
    """Context from PyTorch's ``scaled_dot_product_attention``, as a NumPy array."""
    arrays = [np.asarray(x) for x in (Q, K, V)]
    if any(x.ndim < 2 for x in arrays):
        raise ValueError("Q, K and V must have shape (..., n, d)")
    Q_np, K_np, V_np = arrays
    if Q_np.shape[-1] != K_np.shape[-1]:
        raise ValueError(f"d_k of Q ({Q_np.shape[-1]}) and of K ({K_np.shape[-1]}) must agree")
    if K_np.shape[-2] != V_np.shape[-2]:
        raise ValueError(f"n_k of K ({K_np.shape[-2]}) and of V ({V_np.shape[-2]}) must agree")
    dtype = np.result_type(*arrays, 1.0)
    batch = np.broadcast_shapes(*(x.shape[:-2] for x in arrays))
    q, k, v = (
        torch.from_numpy(np.array(x, dtype=dtype)).expand(*batch, *x.shape[-2:]) for x in arrays
    )
    attn_mask = None
    if mask is not None:
        attn_mask = torch.from_numpy(np.array(mask, dtype=bool))
        if attn_mask.shape[-1] != K_np.shape[-2]:
            raise ValueError(f"the mask has {attn_mask.shape[-1]} keys, K has {K_np.shape[-2]}")
    with torch.no_grad():
        out = torch.nn.functional.scaled_dot_product_attention(
            q.contiguous(),
            k.contiguous(),
            v.contiguous(),
            attn_mask=attn_mask,
            dropout_p=0.0,
            scale=None if scale is None else float(scale),
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
    V_np = np.asarray(V)
    n_k = V_np.shape[-2]
    if not -n_k <= index < n_k:
        raise IndexError(f"index {index} is outside the {n_k} keys")
    dtype = np.result_type(V_np, 1.0)
    v_after = torch.from_numpy(np.array(V_np, dtype=dtype))  # a copy: V is not modified
    v_after[..., index, :] = torch.from_numpy(np.array(new_value, dtype=dtype))
    context_before, weights_before = scaled_dot_product_attention(Q, K, V_np, mask=mask)
    context_after, weights_after = scaled_dot_product_attention(Q, K, v_after.numpy(), mask=mask)
    return {
        "weights_before": weights_before,
        "weights_after": weights_after,
        "context_before": context_before,
        "context_after": context_after,
    }


def score_entry_count(n_q: int, n_k: int, heads: int = 1, batch: int = 1) -> int:
    """Number of score entries dense attention computes: ``batch * heads * n_q * n_k``."""
    sizes = [n_q, n_k, heads, batch]
    for size in sizes:
        if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < 0:
            raise ValueError(f"every size must be a non-negative integer, got {size!r}")
    return math.prod(int(size) for size in sizes)
