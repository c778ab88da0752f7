"""Scales the caller's Q in place (Q *= 1/sqrt(d_k)), then asks SDPA for scale=1."""
# ruff: noqa: F403, F405
import math

import numpy as np

from solutions.attention import *

EXPECTED_PART = "torch_sdpa"
EXPECTED_DIAGNOSIS = "mutates_input"
ALSO_AFFECTS = set()


def torch_sdpa(Q, K, V, mask=None, scale=None):
    import torch
    import torch.nn.functional as F

    Q = np.asarray(Q)  # no copy
    Q *= 1.0 / math.sqrt(Q.shape[-1]) if scale is None else scale  # BUG: writes into the input
    q, k, v = (torch.from_numpy(np.array(x)) for x in (Q, K, V))
    attn_mask = None if mask is None else torch.from_numpy(np.array(mask, dtype=bool))
    with torch.no_grad():
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, dropout_p=0.0, scale=1.0)
    return out.numpy()
