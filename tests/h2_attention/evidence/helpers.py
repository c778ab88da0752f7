"""Constants and helpers shared by the evidence tests."""

from __future__ import annotations

import json

STUDENT = "s001"
OTHER_STUDENT = "s002"
COHORT = "c1"
GOOD_LIMITATION = (
    "Attention weights are not causal explanations: a large weight on a key only says where "
    "the query looked, while the values, the residual path and later layers also shape the "
    "output, so a high weight does not prove that token caused the prediction."
)


def dump(data: object) -> bytes:
    """Strict JSON bytes, as the evidence cell writes them."""
    return (json.dumps(data, indent=2, allow_nan=False) + "\n").encode("utf-8")
