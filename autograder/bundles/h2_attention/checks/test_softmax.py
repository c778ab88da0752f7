"""Hidden checks for ``stable_softmax``."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

from autograder.bundles.h2_attention import misconceptions as mc
from autograder.bundles.h2_attention.checks import probes
from autograder.bundles.h2_attention.checks.properties import expect_float32, works_readonly
from autograder.grading.assertions import call, expect, expect_close, expect_error
from autograder.grading.student import Student, StudentError

NAME = "stable_softmax"


def _square_probe(student: Student) -> list[str]:
    """A shape error on n_q != n_k may be a lost keepdims: a square input shows it."""
    square = probes.normal(300, 6, 6)
    try:
        got = student.call(NAME, square)
    except StudentError:
        return []
    return [c for c in mc.softmax_signatures(square, None, 1.0, got) if c == "softmax_missing_keepdims"]


def _check(
    student: Student, reference: ModuleType, scores: np.ndarray, mask: np.ndarray | None = None,
    temperature: float = 1.0, what: str = "the weights", readonly: bool = False,
) -> np.ndarray:
    kwargs = {} if mask is None else {"mask": mask}
    if temperature != 1.0:
        kwargs["temperature"] = temperature
    got = call(student, NAME, scores, readonly=readonly, on_error=lambda _: _square_probe(student), **kwargs)
    want = reference.stable_softmax(scores, **kwargs)
    return expect_close(got, want, what, diagnose=lambda g: mc.softmax_signatures(scores, mask, temperature, g))


def _blocked_are_zero(got: np.ndarray, blocked: np.ndarray, what: str) -> None:
    weights = np.broadcast_to(blocked, got.shape)
    expect(bool(np.all(got[weights] == 0.0)), f"{what}: blocked entries must be exactly 0.0.")


@pytest.mark.part(NAME, requires="Row-wise softmax over the last axis")
def test_rows_are_distributions(student: Student, reference: ModuleType) -> None:
    """Each query row is a probability distribution over the keys (n_q != n_k)"""
    _check(student, reference, probes.normal(301, probes.NQ, probes.NK, scale=3.0))


@pytest.mark.part(NAME, requires="``mask`` is Boolean and broadcastable to ``scores``")
def test_batched_scores_with_broadcast_mask(student: Student, reference: ModuleType) -> None:
    """Batched scores (B, heads, n_q, n_k) with a mask (n_q, n_k) that broadcasts"""
    scores = probes.normal(311, probes.B, probes.H, probes.NQ, probes.NK)
    _check(student, reference, scores, mask=probes.mixed_mask(312, probes.NQ, probes.NK))


@pytest.mark.part(NAME, weight=2, requires="so scores like ``[1000, 1001, 1002]`` do not overflow")
def test_large_scores_do_not_overflow(student: Student, reference: ModuleType) -> None:
    """Scores around 1000 give finite weights (no overflow)"""
    scores = 1000.0 + probes.normal(321, 4, probes.NK, scale=2.0)
    scores[0, :3] = [1000.0, 1001.0, 1002.0]
    _check(student, reference, scores)


@pytest.mark.part(NAME, requires="The row maximum over *permitted* entries is subtracted before ``exp``")
def test_rows_far_apart(student: Student, reference: ModuleType) -> None:
    """Each row is shifted by its own maximum over permitted keys (rows 1e4 apart; a large score on a blocked key)"""
    scores = probes.normal(331, 4, probes.NK)
    scores[1] += 1e4
    scores[2] -= 1e4
    _check(student, reference, scores)
    # A blocked key holding the row's largest score must not take part in the shift.
    scores = probes.normal(332, probes.NQ, probes.NK)
    mask = probes.mixed_mask(333, probes.NQ, probes.NK)
    scores[:3][~mask[:3]] += 1e4  # rows 3 and 4 keep ordinary scores: a global max differs
    _check(student, reference, scores, mask=mask, what="the weights with a large score on a blocked key")


@pytest.mark.part(NAME, requires="Blocked entries and ``-inf`` scores get weight exactly 0.0")
def test_minus_infinity_gets_zero_weight(student: Student, reference: ModuleType) -> None:
    """A score of -inf gets weight exactly 0"""
    scores = probes.normal(341, probes.NQ, probes.NK)
    blocked = probes.mixed_mask(342, probes.NQ, probes.NK)
    scores[blocked] = -np.inf
    got = _check(student, reference, scores)
    _blocked_are_zero(got, blocked, "the weights of -inf scores")


@pytest.mark.part(NAME, requires="True = may attend. Blocked entries and ``-inf`` scores get weight exactly 0.0")
def test_mask_blocks_keys(student: Student, reference: ModuleType) -> None:
    """Masked keys (False) get weight exactly 0 and each row still sums to one"""
    scores = probes.normal(351, probes.NQ, probes.NK, scale=2.0)
    mask = probes.mixed_mask(352, probes.NQ, probes.NK)
    got = _check(student, reference, scores, mask=mask)
    _blocked_are_zero(got, ~mask, "the weights")


@pytest.mark.part(NAME, requires="``temperature`` (> 0) divides the scores: below 1 sharpens, above 1 flattens")
def test_temperature_divides(student: Student, reference: ModuleType) -> None:
    """A temperature above 1 flattens the weights (scores are divided by it)"""
    _check(student, reference, probes.normal(361, probes.NQ, probes.NK, scale=2.0), temperature=2.5)


def _all_masked_inputs(seed: int, empty_row: int) -> tuple[np.ndarray, np.ndarray]:
    scores = probes.normal(seed, 6, probes.NK)
    mask = probes.mixed_mask(seed + 1, 6, probes.NK)
    mask[empty_row] = False
    return scores, mask


@pytest.mark.part(NAME, requires="A row with no permitted finite score has no softmax: it raises ``ValueError``")
def test_all_masked_row_raises(student: Student, reference: ModuleType) -> None:
    """A row where every key is masked raises ValueError (no NaN, no made-up weights)"""
    scores, mask = _all_masked_inputs(371, empty_row=3)
    call(student, NAME, scores, mask=probes.mixed_mask(373, *mask.shape))  # valid input works first
    empty = ~mask.any(axis=-1)
    expect_error(student, NAME, scores, mask=mask, errors=["ValueError"],
                 situation="for a row where every key is masked",
                 diagnose=lambda got: mc.all_masked_signatures(got, empty))


@pytest.mark.part(NAME, requires='naming the row by its 0-based query index (e.g. "row 2" for the third query)')
def test_all_masked_error_names_row(student: Student, reference: ModuleType) -> None:
    """The error for a fully masked row says which row it is"""
    scores, mask = _all_masked_inputs(381, empty_row=4)
    call(student, NAME, scores, mask=probes.mixed_mask(383, *mask.shape))  # valid input works first
    error = expect_error(student, NAME, scores, mask=mask, errors=["ValueError"],
                         situation="for a row where every key is masked")
    expect("4" in error.message, "The ValueError for a fully masked row should name the row (its index).")


@pytest.mark.part(NAME, requires="a temperature that is not a finite number > 0 raises ``ValueError``")
def test_non_positive_temperature_raises(student: Student, reference: ModuleType) -> None:
    """A temperature that is not a finite number > 0 (0, -1, inf, NaN) raises ValueError"""
    scores = probes.normal(391, probes.NQ, probes.NK)
    call(student, NAME, scores)  # must work on valid input first
    for temperature, situation in ((0.0, "for a temperature <= 0"), (-1.0, "for a temperature <= 0"),
                                   (np.inf, "for an infinite temperature"),
                                   (np.nan, "for a temperature that is NaN")):
        expect_error(student, NAME, scores, temperature=temperature, errors=["ValueError"],
                     situation=situation)


@pytest.mark.part(NAME, requires="The inputs are not modified.")
def test_inputs_not_modified(student: Student, reference: ModuleType) -> None:
    """Works on read-only scores and mask (inputs are not modified)"""
    scores = probes.normal(401, probes.NQ, probes.NK, scale=50.0)
    mask = probes.mixed_mask(402, probes.NQ, probes.NK)
    works_readonly(student, NAME, scores, mask=mask, want=reference.stable_softmax(scores, mask=mask))


@pytest.mark.part(NAME, requires="Float32 in, float32 out")
def test_float32_stays_float32(student: Student, reference: ModuleType) -> None:
    """float32 scores give float32 weights"""
    scores = probes.normal(411, probes.NQ, probes.NK, scale=3.0).astype(np.float32)
    expect_float32(call(student, NAME, scores), reference.stable_softmax(scores), "the weights for float32 scores")
