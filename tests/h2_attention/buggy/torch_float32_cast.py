"""Converts everything to float32 tensors: float64 inputs come back as float32."""
# ruff: noqa: F403, F405
import numpy as np

from solutions.attention import *

EXPECTED_PART = "torch_sdpa"
EXPECTED_DIAGNOSIS = "dtype_not_preserved"
ALSO_AFFECTS = set()


def torch_sdpa(Q, K, V, mask=None, scale=None):
    import torch
    import torch.nn.functional as F

    q, k, v = (torch.tensor(np.array(x), dtype=torch.float32) for x in (Q, K, V))  # BUG
    attn_mask = None if mask is None else torch.from_numpy(np.array(mask, dtype=bool))
    with torch.no_grad():
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, dropout_p=0.0, scale=scale)
    return out.numpy()
