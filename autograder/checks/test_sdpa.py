"""Hidden checks for ``scaled_dot_product_attention`` (8 points).

The function is graded on its own outputs. It calls the student's own
``attention_scores``, ``stable_softmax`` and ``attention_context`` (as the
notebook asks), so a bug there can also show up here.
"""

from __future__ import annotations

import math
from types import ModuleType

import numpy as np
import pytest

from autograder.checks import probes
from autograder.grading import misconceptions as mc
from autograder.grading.assertions import (
    CheckFailure,
    call,
    expect,
    expect_close,
    expect_dtype,
    expect_error,
)
from autograder.grading.student import Student

NAME = "scaled_dot_product_attention"


def _pair(got: object) -> tuple[object, object]:
    """The (context, weights) pair, or a failure saying what was returned instead."""
    if type(got) not in (tuple, list) or len(got) != 2:
        raise CheckFailure("Expected a pair (context, weights) to be returned.")
    return got[0], got[1]


def _check(
    student: Student, reference: ModuleType, Q: np.ndarray, K: np.ndarray, V: np.ndarray,
    mask: np.ndarray | None = None, what: str = "", readonly: bool = False,
) -> np.ndarray:
    kwargs = {} if mask is None else {"mask": mask}
    context, weights = _pair(call(student, NAME, Q, K, V, readonly=readonly, **kwargs))
    want_context, want_weights = reference.scaled_dot_product_attention(Q, K, V, **kwargs)
    scaled = np.asarray(Q, float) @ np.swapaxes(np.asarray(K, float), -1, -2) / math.sqrt(Q.shape[-1])

    def diagnose(got: object) -> list[str]:
        codes = mc.implied_scale_signatures(Q, K, V.shape[-1], got) if mask is None else []
        return codes + mc.softmax_signatures(scaled, mask, 1.0, got)

    expect_close(weights, want_weights, f"the weights{what}", diagnose=diagnose)
    return expect_close(context, want_context, f"the context{what}",
                        diagnose=lambda g: mc.context_signatures(V, g, want_weights))


@pytest.mark.part(NAME, points=1)
def test_hand_example(student: Student, reference: ModuleType) -> None:
    """Context and weights of the lecture's hand example"""
    _check(student, reference, probes.HAND_Q, probes.HAND_K, probes.HAND_V)


@pytest.mark.part(NAME, points=2)
def test_batched_default_scale(student: Student, reference: ModuleType) -> None:
    """Batched attention with n_q, n_k, d_k, d_v all different (default scale)"""
    _check(student, reference, *probes.qkv(601, lead=(probes.B, probes.H)))


@pytest.mark.part(NAME, points=2)
def test_causal_and_padding_mask(student: Student, reference: ModuleType) -> None:
    """A combined causal and key-padding mask (B, 1, n_q, n_k) blocks keys"""
    Q, K, V = probes.qkv(611, lead=(probes.B, probes.H))
    mask = (probes.causal(probes.NQ, probes.NK)[None] & probes.padding([4, 2], probes.NK)[:, None])[:, None]
    _check(student, reference, Q, K, V, mask=mask, what=" with a mask")


@pytest.mark.part(NAME, points=1)
def test_all_masked_row_raises(student: Student, reference: ModuleType) -> None:
    """A query row with no permitted key raises ValueError"""
    Q, K, V = probes.qkv(621)
    mask = probes.mixed_mask(622, probes.NQ, probes.NK)
    call(student, NAME, Q, K, V, mask=mask)  # valid input works first
    mask[2] = False
    empty = ~mask.any(axis=-1)

    def diagnose(got: object) -> list[str]:
        if type(got) in (tuple, list) and len(got) == 2:
            return mc.all_masked_signatures(got[1], empty) or mc.context_all_masked_signatures(got[0], empty, V)
        return []

    expect_error(student, NAME, Q, K, V, mask=mask, errors=["ValueError"],
                 situation="when a query row has no permitted key", diagnose=diagnose)


@pytest.mark.part(NAME, points=1)
def test_float32_stays_float32(student: Student, reference: ModuleType) -> None:
    """float32 inputs give float32 context and weights"""
    Q, K, V = probes.qkv(631, dtype=np.float32)
    context = _check(student, reference, Q, K, V, what=" (float32)")
    expect_dtype(context, np.float32, "the context for float32 inputs",
                 diagnosis=mc.dtype_signatures(np.dtype(np.float32), context))
    weights = student.call(NAME, Q, K, V)[1]
    expect(type(weights) is np.ndarray and weights.dtype == np.float32,
           "Expected the weights for float32 inputs to be float32.", mc.dtype_signatures(np.dtype(np.float32), weights))


@pytest.mark.part(NAME, points=1)
def test_inputs_not_modified(student: Student, reference: ModuleType) -> None:
    """Works on read-only inputs (inputs are not modified)"""
    Q, K, V = probes.qkv(641, lead=(probes.B,))
    _check(student, reference, Q, K, V, mask=probes.mixed_mask(642, probes.NQ, probes.NK), readonly=True)
