"""Passes the inverted mask to PyTorch's SDPA (True = blocked, MultiheadAttention habit)."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "torch_sdpa"
EXPECTED_DIAGNOSIS = "sdpa_inverted_mask"
ALSO_AFFECTS = set()


def torch_sdpa(Q, K, V, mask=None, scale=None):
    import torch
    import torch.nn.functional as F

    q, k, v = (torch.from_numpy(np.array(x)) for x in (Q, K, V))
    attn_mask = None if mask is None else torch.from_numpy(~np.array(mask, dtype=bool))  # BUG
    with torch.no_grad():
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, dropout_p=0.0, scale=scale)
    return out.numpy()
