"""Hidden checks for ``self_attention``.

The function projects X three times and hands the projections to the student's own
``scaled_dot_product_attention`` (as the notebook asks); a bug there is carried
forward (``autograder.grading.carried_forward``), charged only in the part where it
lives. Sizes are pairwise distinct (T=5, d_model=6, d_k=9, d_v=4), so mixed-up
projections give other values or a shape error; one check uses square projections
(d_model = d_k = d_v), where a transposed W or V = X @ W_k are silently wrong.
"""

from __future__ import annotations

import math
from types import ModuleType

import numpy as np
import pytest

from autograder.bundles.h2_attention import misconceptions as mc
from autograder.bundles.h2_attention.checks import probes
from autograder.bundles.h2_attention.checks.properties import expect_float32
from autograder.bundles.h2_attention.composition import own_projected
from autograder.grading.assertions import (
    CheckFailure,
    call,
    expect_close,
    expect_pair,
)
from autograder.grading.carried_forward import same, settle
from autograder.grading.student import Student

NAME = "self_attention"
T, D_MODEL, D_SQUARE = probes.NQ, 6, 3  # d_k = probes.DK = 9, d_v = probes.DV = 4
NOTHING = object()  # what the student returned, before the call returns

# Hand-sized: T=4 tokens of width d_model=2, d_k=3, d_v=5; W_q W_k^T is not symmetric,
# so swapping the query and key projections changes the weights.
HAND_X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, -1.0]])
HAND_W_Q = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
HAND_W_K = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, -1.0]])
HAND_W_V = np.array([[1.0, 0.0, 0.0, 2.0, 1.0], [0.0, 1.0, 1.0, 0.0, -1.0]])


def _inputs(
    seed: int, lead: tuple[int, ...] = (), d_model: int = D_MODEL, d_k: int = probes.DK,
    d_v: int = probes.DV, dtype: type = np.float64,
) -> tuple[np.ndarray, ...]:
    """X ``(*lead, T, d_model)``, W_q and W_k ``(d_model, d_k)``, W_v ``(d_model, d_v)``;
    the weights are scaled by 1/sqrt(d_model) so the softmax is not saturated."""
    X = probes.normal(seed, *lead, T, d_model)
    scale = 1.0 / math.sqrt(d_model)
    W_q = probes.normal(seed + 1, d_model, d_k, scale=scale)
    W_k = probes.normal(seed + 2, d_model, d_k, scale=scale)
    W_v = probes.normal(seed + 3, d_model, d_v, scale=scale)
    return tuple(x.astype(dtype) for x in (X, W_q, W_k, W_v))



def _check(
    student: Student, reference: ModuleType, args: tuple[np.ndarray, ...],
    mask: np.ndarray | None = None, what: str = "", readonly: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    kwargs = {} if mask is None else {"mask": mask}
    want_context, want_weights = reference.self_attention(*args, **kwargs)
    got: object = NOTHING

    def diagnose(_: object) -> list[str]:
        return mc.self_attention_signatures(*args, mask, got)

    try:
        got = call(student, NAME, *args, readonly=readonly, **kwargs)
        pair = expect_pair(got, "context", "weights")
        weights = expect_close(pair[1], want_weights, f"the weights{what}", diagnose=diagnose)
        return expect_close(pair[0], want_context, f"the context{what}", diagnose=diagnose), weights
    except CheckFailure as failure:
        # Error carried forward: right if it is what the student's own SDPA gives.
        own = own_projected(student, reference, NAME, args[0], None, *args[1:], mask)
        settle(failure, own, NAME, same, first=None if got is NOTHING else got)
        raise  # not reached: settle always raises


@pytest.mark.part(NAME, requires="Self-attention: queries, keys and values are three projections of the same X")
def test_hand_example(student: Student, reference: ModuleType) -> None:
    """Context and weights of a hand-sized example (4 tokens, d_model=2, d_k=3, d_v=5)"""
    _check(student, reference, (HAND_X, HAND_W_Q, HAND_W_K, HAND_W_V))


@pytest.mark.part(NAME, requires="returns ``(context, weights)`` of shapes ``(..., T, d_v)`` and ``(..., T, T)``")
def test_batched_distinct_sizes(student: Student, reference: ModuleType) -> None:
    """Batched self-attention with T, d_model, d_k and d_v all different"""
    _check(student, reference, _inputs(1001, lead=(probes.B, probes.H)))


@pytest.mark.part(NAME, requires="Computes ``Q = X @ W_q``, ``K = X @ W_k`` and ``V = X @ W_v``")
def test_square_projections(student: Student, reference: ModuleType) -> None:
    """Square projections (d_model = d_k = d_v): each W is used as it is, for its own role"""
    _check(student, reference, _inputs(1011, lead=(probes.B,), d_model=D_SQUARE, d_k=D_SQUARE, d_v=D_SQUARE))


@pytest.mark.part(NAME, requires="``mask`` is passed on as it is (a decoder passes a causal mask)")
def test_causal_mask_passed_on(student: Student, reference: ModuleType) -> None:
    """A causal (T, T) mask is passed on to the attention"""
    _check(student, reference, _inputs(1021, lead=(probes.B,)), mask=probes.causal(T, T),
           what=" with a causal mask")


@pytest.mark.part(NAME, requires="Float32 in, float32 out")
def test_float32_stays_float32(student: Student, reference: ModuleType) -> None:
    """float32 (read-only) inputs give float32 context and weights"""
    args = _inputs(1031, lead=(probes.B,), dtype=np.float32)
    want_context, want_weights = reference.self_attention(*args)
    got: tuple[object, object] | None = None
    try:
        got = expect_pair(call(student, NAME, *args, readonly=True), "context", "weights")
        expect_float32(got[0], want_context, "the context for float32 inputs")
        expect_float32(got[1], want_weights, "the weights for float32 inputs")
    except CheckFailure as failure:
        # Error carried forward: a float64 block makes their self-attention float64 too.
        own = own_projected(student, reference, NAME, args[0], None, *args[1:])
        if own.wrong:  # the dtype comes from a block of theirs: its misconception is diagnosed there
            failure = CheckFailure(failure.message, (), failure.student_error)
        settle(failure, own, NAME, same, first=got)
