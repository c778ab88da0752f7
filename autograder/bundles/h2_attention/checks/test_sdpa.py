"""Hidden checks for ``scaled_dot_product_attention``.

The function is graded on its own logic: it should call the student's own
``attention_scores``, ``stable_softmax`` and ``attention_context`` (as the
notebook asks), and a bug there is carried forward
(``autograder.grading.carried_forward``), charged only in the part where it lives.
"""

from __future__ import annotations

import math
from types import ModuleType

import numpy as np
import pytest

from autograder.bundles.h2_attention import misconceptions as mc
from autograder.bundles.h2_attention.checks import probes
from autograder.bundles.h2_attention.checks.properties import (
    IgnoresInputs,
    expect_float32,
    works_readonly,
)
from autograder.bundles.h2_attention.composition import own_attention
from autograder.grading.assertions import (
    CheckFailure,
    call,
    expect_close,
    expect_error,
    expect_pair,
)
from autograder.grading.carried_forward import carried, same, settle
from autograder.grading.student import Student

NAME = "scaled_dot_product_attention"



def _in_order(got: tuple[object, object], context: np.ndarray, weights: np.ndarray) -> None:
    """A pair returned as (weights, context) is named as such, not as wrong values."""
    shapes = tuple(np.shape(x) if type(x) is np.ndarray else None for x in got)
    if context.shape != weights.shape and shapes == (weights.shape, context.shape):
        raise CheckFailure(
            f"`{NAME}` returned (weights, context); return (context, weights), in that order.",
            "sdpa_pair_order",
        )


def _check(
    student: Student, reference: ModuleType, Q: np.ndarray, K: np.ndarray, V: np.ndarray,
    mask: np.ndarray | None = None, what: str = "", readonly: bool = False,
) -> np.ndarray:
    kwargs = {} if mask is None else {"mask": mask}
    want_context, want_weights = reference.scaled_dot_product_attention(Q, K, V, **kwargs)
    scaled = np.asarray(Q, float) @ np.swapaxes(np.asarray(K, float), -1, -2) / math.sqrt(Q.shape[-1])

    def diagnose(got: object) -> list[str]:
        codes = mc.implied_scale_signatures(Q, K, V.shape[-1], got) if mask is None else []
        return codes + mc.softmax_signatures(scaled, mask, 1.0, got)

    got: tuple[object, object] | None = None
    try:
        got = expect_pair(call(student, NAME, Q, K, V, readonly=readonly, **kwargs),
                          "context", "weights")
        _in_order(got, want_context, want_weights)
        expect_close(got[1], want_weights, f"the weights{what}", diagnose=diagnose)
        return expect_close(got[0], want_context, f"the context{what}",
                            diagnose=lambda g: mc.context_signatures(V, g, want_weights))
    except CheckFailure as failure:
        # Error carried forward: right if it is what the student's own blocks give.
        own = own_attention(student, reference, Q, K, V, mask)
        settle(failure, own, NAME, same, first=got)
        raise  # not reached: settle always raises


@pytest.mark.part(NAME, requires="Full attention: scores, masked stable softmax, weighted sum of values")
def test_hand_example(student: Student, reference: ModuleType) -> None:
    """Context and weights of the lecture's hand example"""
    _check(student, reference, probes.HAND_Q, probes.HAND_K, probes.HAND_V)


@pytest.mark.part(NAME, weight=2, requires="Returns ``(context, weights)`` with shapes ``(..., n_q, d_v)`` and ``(..., n_q, n_k)``, in that order")
def test_batched_default_scale(student: Student, reference: ModuleType) -> None:
    """Batched attention with n_q, n_k, d_k, d_v all different (default scale)"""
    _check(student, reference, *probes.qkv(601, lead=(probes.B, probes.H)))


@pytest.mark.part(NAME, weight=2, requires="A Boolean mask means `True` = *this query may attend to this key*")
def test_causal_and_padding_mask(student: Student, reference: ModuleType) -> None:
    """A combined causal and key-padding mask (B, 1, n_q, n_k) blocks keys"""
    Q, K, V = probes.qkv(611, lead=(probes.B, probes.H))
    mask = (probes.causal(probes.NQ, probes.NK)[None] & probes.padding([4, 2], probes.NK)[:, None])[:, None]
    _check(student, reference, Q, K, V, mask=mask, what=" with a mask")


@pytest.mark.part(NAME, requires="a query row with no permitted key raises ``ValueError``")
def test_all_masked_row_raises(student: Student, reference: ModuleType) -> None:
    """A query row with no permitted key raises ValueError"""
    Q, K, V = probes.qkv(621)
    mask = probes.mixed_mask(622, probes.NQ, probes.NK)
    valid = mask.copy()
    mask[2] = False
    empty = ~mask.any(axis=-1)

    def diagnose(got: object) -> list[str]:
        if type(got) in (tuple, list) and len(got) == 2:
            return mc.all_masked_signatures(got[1], empty) or mc.context_all_masked_signatures(got[0], empty, V)
        return []

    try:
        call(student, NAME, Q, K, V, mask=valid)  # valid input works first
        expect_error(student, NAME, Q, K, V, mask=mask, errors=["ValueError"],
                     situation="when a query row has no permitted key", diagnose=diagnose)
    except CheckFailure as failure:
        first = own_attention(student, reference, Q, K, V, valid)
        if first.error is not None:  # it could not even run on valid input
            settle(failure, first, NAME, lambda again, value: False)
        own = own_attention(student, reference, Q, K, V, mask)
        if own.error is None and "stable_softmax" in own.wrong and own.again is not None:
            # Their own softmax does not raise for this row either: charged there.
            raise carried(failure, ["stable_softmax"], NAME) from None
        settle(failure, own, NAME, lambda again, value: False)


@pytest.mark.part(NAME, requires="Float32 in, float32 out")
def test_float32_stays_float32(student: Student, reference: ModuleType) -> None:
    """float32 inputs give float32 context and weights"""
    Q, K, V = probes.qkv(631, dtype=np.float32)
    want_context, want_weights = reference.scaled_dot_product_attention(Q, K, V)
    got: tuple[object, object] | None = None
    try:
        got = expect_pair(call(student, NAME, Q, K, V), "context", "weights")
        expect_float32(got[0], want_context, "the context for float32 inputs")
        expect_float32(got[1], want_weights, "the weights for float32 inputs")
    except CheckFailure as failure:
        # Error carried forward: a float64 block makes their SDPA float64 too.
        own = own_attention(student, reference, Q, K, V)
        if own.wrong:  # the dtype comes from a block of theirs: its misconception is diagnosed there
            failure = CheckFailure(failure.message, (), failure.student_error)
        settle(failure, own, NAME, same, first=got)


@pytest.mark.part(NAME, requires="The grader passes read-only arrays: build new arrays instead of writing into your arguments")
def test_inputs_not_modified(student: Student, reference: ModuleType) -> None:
    """Works on read-only inputs (inputs are not modified)"""
    Q, K, V = probes.qkv(641, lead=(probes.B,))
    mask = probes.mixed_mask(642, probes.NQ, probes.NK)
    got: object = None
    try:
        got = works_readonly(student, NAME, Q, K, V, mask=mask,
                             want=reference.scaled_dot_product_attention(Q, K, V, mask=mask))
    except CheckFailure as failure:
        # Error carried forward: an error one of their own blocks raises is charged there.
        own = own_attention(student, reference, Q, K, V, mask)
        settle(failure, own, NAME, same,
               first=failure.result if isinstance(failure, IgnoresInputs) else got)
