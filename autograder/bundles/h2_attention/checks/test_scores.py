"""Hidden checks for ``attention_scores``."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import numpy as np
import pytest

from autograder.bundles.h2_attention import misconceptions as mc
from autograder.bundles.h2_attention.checks import probes
from autograder.bundles.h2_attention.checks.properties import expect_float32
from autograder.grading.assertions import call, expect_close, expect_error
from autograder.grading.student import Student, StudentError

NAME = "attention_scores"


def _diagnose(Q: np.ndarray, K: np.ndarray, scale: float | None = None) -> Callable[[object], list[str]]:
    return lambda got: mc.score_signatures(Q, K, scale, got)


@pytest.mark.part(NAME, requires="``scale=None`` means ``1 / sqrt(d_k)``")
def test_hand_example(student: Student, reference: ModuleType) -> None:
    """Scores of the lecture's hand example (one query, three keys)"""
    got = call(student, NAME, probes.HAND_Q, probes.HAND_K)
    want = reference.attention_scores(probes.HAND_Q, probes.HAND_K)
    expect_close(got, want, "the scores", diagnose=_diagnose(probes.HAND_Q, probes.HAND_K))


@pytest.mark.part(NAME, weight=2, requires="Scaled dot-product scores ``S = scale * Q @ np.swapaxes(K, -1, -2)`` of shape ``(..., n_q, n_k)``")
def test_more_keys_than_queries(student: Student, reference: ModuleType) -> None:
    """Scores for n_q != n_k with the default scale 1/sqrt(d_k)"""
    Q, K, _ = probes.qkv(101)
    got = call(student, NAME, Q, K)
    expect_close(got, reference.attention_scores(Q, K), "the scores", diagnose=_diagnose(Q, K))


@pytest.mark.part(NAME, requires="leading (batch/head) dimensions broadcast")
def test_batch_and_head_dimensions(student: Student, reference: ModuleType) -> None:
    """Scores with batch and head dimensions (..., n_q, n_k)"""
    Q, K, _ = probes.qkv(102, lead=(probes.B, probes.H))

    def diagnose_batch(_: object) -> list[str]:
        # K.T reverses every axis: it breaks batched inputs but not a single 2-D example.
        try:
            single = student.call(NAME, Q[0, 0], K[0, 0])
        except StudentError:  # a failing probe just means no diagnosis
            return []
        expected = reference.attention_scores(Q[0, 0], K[0, 0])
        if type(single) is np.ndarray and single.shape == expected.shape and np.allclose(single, expected):
            return ["kt_batch_dims"]
        return []

    got = call(student, NAME, Q, K, on_error=diagnose_batch)
    expect_close(
        got,
        reference.attention_scores(Q, K),
        "the batched scores",
        diagnose=lambda g: mc.score_signatures(Q, K, None, g) or diagnose_batch(g),
    )


@pytest.mark.part(NAME, requires="Scaled dot-product scores ``S = scale * Q @ np.swapaxes(K, -1, -2)``")
def test_explicit_scale(student: Student, reference: ModuleType) -> None:
    """An explicit `scale` replaces 1/sqrt(d_k) (integer inputs accepted)"""
    Q, K, _ = (np.rint(2 * x).astype(np.int64) for x in probes.qkv(103))
    got = call(student, NAME, Q, K, scale=0.25)
    expect_close(got, reference.attention_scores(Q, K, scale=0.25), "the scores", diagnose=_diagnose(Q, K, 0.25))


@pytest.mark.part(NAME, requires="Float32 in, float32 out")
def test_float32_stays_float32(student: Student, reference: ModuleType) -> None:
    """float32 inputs give float32 scores"""
    Q, K, _ = probes.qkv(104, dtype=np.float32)
    expect_float32(call(student, NAME, Q, K), reference.attention_scores(Q, K), "the scores for float32 inputs")


@pytest.mark.part(NAME, requires="Q and K with different ``d_k`` raise ``ValueError``")
def test_mismatched_key_width_raises(student: Student, reference: ModuleType) -> None:
    """Q and K with different d_k raise ValueError"""
    Q, K, _ = probes.qkv(105)
    call(student, NAME, Q, K)  # must work on valid input first
    expect_error(student, NAME, Q, K[:, : probes.DK - 1], errors=["ValueError"],
                 situation="when Q and K have different last dimensions (d_k)")

