"""Hidden checks for ``cross_attention``.

Queries come from the decoder, keys and values from the encoder, and the
projections go to the student's own ``scaled_dot_product_attention``; a bug there is
carried forward (``autograder.grading.carried_forward``). Sizes are pairwise distinct
(n_q=5, n_k=7, d_k=9, d_v=4; d_dec=3, d_enc=6), except where both sequences share one
model width (6, as in a Transformer): there taking keys and values, or queries, from
the wrong sequence gives other values instead of a shape error.
"""

from __future__ import annotations

import math
from types import ModuleType

import numpy as np
import pytest

from autograder.bundles.h2_attention import misconceptions as mc
from autograder.bundles.h2_attention.checks import probes
from autograder.bundles.h2_attention.composition import own_projected
from autograder.grading.assertions import (
    CheckFailure,
    call,
    expect_close,
    expect_pair,
)
from autograder.grading.carried_forward import same, settle
from autograder.grading.student import Student

NAME = "cross_attention"
D_DEC, D_ENC, D_MODEL = 3, 6, 6
NOTHING = object()  # what the student returned, before the call returns


def _inputs(
    seed: int, lead: tuple[int, ...] = (), d_dec: int = D_DEC, d_enc: int = D_ENC,
) -> tuple[np.ndarray, ...]:
    """X_dec ``(*lead, n_q, d_dec)``, X_enc ``(*lead, n_k, d_enc)``, W_q ``(d_dec, d_k)``,
    W_k ``(d_enc, d_k)``, W_v ``(d_enc, d_v)``; weights scaled so the softmax is not saturated."""
    X_dec = probes.normal(seed, *lead, probes.NQ, d_dec)
    X_enc = probes.normal(seed + 1, *lead, probes.NK, d_enc)
    W_q = probes.normal(seed + 2, d_dec, probes.DK, scale=1.0 / math.sqrt(d_dec))
    W_k = probes.normal(seed + 3, d_enc, probes.DK, scale=1.0 / math.sqrt(d_enc))
    W_v = probes.normal(seed + 4, d_enc, probes.DV, scale=1.0 / math.sqrt(d_enc))
    return X_dec, X_enc, W_q, W_k, W_v



def _check(
    student: Student, reference: ModuleType, args: tuple[np.ndarray, ...],
    mask: np.ndarray | None = None, what: str = "",
) -> None:
    kwargs = {} if mask is None else {"mask": mask}
    want_context, want_weights = reference.cross_attention(*args, **kwargs)
    got: object = NOTHING

    def diagnose(_: object) -> list[str]:
        return mc.cross_attention_signatures(*args, mask, got)

    try:
        got = call(student, NAME, *args, **kwargs)
        pair = expect_pair(got, "context", "weights")
        expect_close(pair[1], want_weights, f"the weights{what}", diagnose=diagnose)
        expect_close(pair[0], want_context, f"the context{what}", diagnose=diagnose)
    except CheckFailure as failure:
        # Error carried forward: right if it is what the student's own SDPA gives.
        own = own_projected(student, reference, NAME, *args, mask)
        settle(failure, own, NAME, same, first=None if got is NOTHING else got)


@pytest.mark.part(NAME, requires="where ``n_q`` and ``n_k`` may differ")
def test_different_lengths_and_widths(student: Student, reference: ModuleType) -> None:
    """n_q != n_k and d_dec != d_enc: context (n_q, d_v) and weights (n_q, n_k)"""
    _check(student, reference, _inputs(1101))


@pytest.mark.part(NAME, requires="Computes ``Q = X_dec @ W_q``, ``K = X_enc @ W_k`` and ``V = X_enc @ W_v``")
def test_batched_shared_width(student: Student, reference: ModuleType) -> None:
    """Batched cross-attention where decoder and encoder share one model width"""
    _check(student, reference, _inputs(1111, lead=(probes.B, probes.H), d_dec=D_MODEL, d_enc=D_MODEL))


@pytest.mark.part(NAME, requires="No causal mask: every decoder position may read every encoder position")
def test_no_causal_mask(student: Student, reference: ModuleType) -> None:
    """Without a mask every decoder position attends to every encoder position"""
    _check(student, reference, _inputs(1121, lead=(probes.B,), d_dec=D_MODEL, d_enc=D_MODEL))


@pytest.mark.part(NAME, requires="``mask`` (e.g. the encoder's key padding) is passed on as it is")
def test_encoder_padding_mask(student: Student, reference: ModuleType) -> None:
    """An encoder key-padding mask (B, 1, n_k) is passed on to the attention"""
    mask = probes.padding([probes.NK, 3], probes.NK)[:, None, :]
    _check(student, reference, _inputs(1131, lead=(probes.B,), d_dec=D_MODEL, d_enc=D_MODEL), mask=mask,
           what=" with a key-padding mask")
