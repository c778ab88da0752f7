"""Hidden checks for ``torch_sdpa``."""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from autograder.bundles.h2_attention import misconceptions as mc
from autograder.bundles.h2_attention.checks import probes
from autograder.bundles.h2_attention.checks.properties import expect_float32, works_readonly
from autograder.grading.assertions import call, expect_close
from autograder.grading.student import Student, StudentError

NAME = "torch_sdpa"


def _effective_weights_diagnosis(student: Student, Q: np.ndarray, K: np.ndarray, mask: np.ndarray | None) -> list[str]:
    """With V = identity, the context *is* the weights SDPA used: compare them with known bugs."""
    n_k = K.shape[-2]
    V = np.broadcast_to(np.eye(n_k), (*K.shape[:-2], n_k, n_k)).copy()
    kwargs = {} if mask is None else {"mask": mask}
    try:
        effective = student.call(NAME, Q, K, V, **kwargs)
    except StudentError:
        return []
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
    return mc.sdpa_signatures(scores, mask, effective)


def _check(
    student: Student, reference: ModuleType, Q: np.ndarray, K: np.ndarray, V: np.ndarray,
    mask: np.ndarray | None = None, what: str = "the context", readonly: bool = False, **extra: Any,
) -> np.ndarray:
    kwargs = dict(extra) if mask is None else {"mask": mask, **extra}
    got = call(student, NAME, Q, K, V, readonly=readonly, **kwargs)
    want = reference.torch_sdpa(Q, K, V, **kwargs)

    def diagnose(g: object) -> list[str]:
        codes = mc.dtype_signatures(want.dtype, g)
        if not extra:
            codes += _effective_weights_diagnosis(student, Q.astype(np.float64), K.astype(np.float64), mask)
        return codes

    return expect_close(got, want, what, diagnose=diagnose)


@pytest.mark.part(NAME, requires="Context from PyTorch's ``scaled_dot_product_attention``, as a NumPy array")
def test_matches_reference(student: Student, reference: ModuleType) -> None:
    """float64 parity with batch and head dimensions (no mask)"""
    _check(student, reference, *probes.qkv(701, lead=(probes.B, probes.H)))


@pytest.mark.part(NAME, requires="the mask is passed as a Boolean tensor, where SDPA also reads True = may attend")
def test_boolean_mask_convention(student: Student, reference: ModuleType) -> None:
    """A Boolean mask (True = may attend) blocks exactly the masked keys"""
    Q, K, _ = probes.qkv(711, lead=(probes.B, probes.H))
    V = np.broadcast_to(np.eye(probes.NK), (probes.B, probes.H, probes.NK, probes.NK)).copy()
    _check(student, reference, Q, K, V, mask=probes.mixed_mask(712, probes.NQ, probes.NK),
           what="the context (with a mask)")


@pytest.mark.part(NAME, requires="A Boolean mask means `True` = *this query may attend to this key*")
def test_combined_mask_values(student: Student, reference: ModuleType) -> None:
    """A combined causal and padding mask (B, 1, n_q, n_k) on real values"""
    Q, K, V = probes.qkv(721, lead=(probes.B, probes.H))
    mask = (probes.causal(probes.NQ, probes.NK)[None] & probes.padding([5, 3], probes.NK)[:, None])[:, None]
    _check(student, reference, Q, K, V, mask=mask, what="the context (with a mask)")


@pytest.mark.part(NAME, requires="The dtype is preserved")
def test_float32_stays_float32(student: Student, reference: ModuleType) -> None:
    """float32 inputs give a float32 context"""
    Q, K, V = probes.qkv(731, lead=(probes.B,), dtype=np.float32)
    expect_float32(call(student, NAME, Q, K, V), reference.torch_sdpa(Q, K, V), "the context for float32 inputs")


@pytest.mark.part(NAME, requires="``scale`` is passed on to SDPA")
def test_explicit_scale(student: Student, reference: ModuleType) -> None:
    """An explicit `scale` is passed on to PyTorch"""
    _check(student, reference, *probes.qkv(741, lead=(probes.B,)), scale=0.2)


@pytest.mark.part(NAME, requires="The grader passes read-only arrays: build new arrays instead of writing into your arguments")
def test_inputs_not_modified(student: Student, reference: ModuleType) -> None:
    """Works on read-only inputs (inputs are not modified)"""
    Q, K, V = probes.qkv(751, lead=(probes.B,))
    mask = probes.mixed_mask(752, probes.NQ, probes.NK)
    works_readonly(student, NAME, Q, K, V, mask=mask, want=reference.torch_sdpa(Q, K, V, mask=mask))
