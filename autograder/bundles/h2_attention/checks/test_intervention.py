"""Hidden checks for ``value_intervention``."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

from autograder.bundles.h2_attention import misconceptions as mc
from autograder.bundles.h2_attention.checks import probes
from autograder.bundles.h2_attention.checks.properties import IgnoresInputs, works_readonly
from autograder.bundles.h2_attention.composition import own_intervention
from autograder.grading.assertions import (
    CheckFailure,
    call,
    expect_array,
    expect_close,
    expect_error,
)
from autograder.grading.carried_forward import same, settle
from autograder.grading.student import Student

NAME = "value_intervention"
KEYS = ("weights_before", "weights_after", "context_before", "context_after")


def _result(got: object) -> dict:
    if type(got) is not dict:
        raise CheckFailure("Expected a dict with keys " + ", ".join(KEYS) + ".")
    missing = [key for key in KEYS if key not in got]
    if missing:
        raise CheckFailure("The returned dict is missing the key(s) " + ", ".join(missing) + ".")
    return got


def _check(
    student: Student, reference: ModuleType, args: tuple, keys: tuple[str, ...] = KEYS, readonly: bool = False, **kwargs: Any
) -> None:
    want = reference.value_intervention(*args, **kwargs)
    got: dict | None = None
    try:
        got = _result(call(student, NAME, *args, readonly=readonly,
                           mutation_code="intervention_mutates_v", **kwargs))
        for key in keys:
            expect_close(got[key], want[key], f"`{key}`",
                         diagnose=lambda _: mc.intervention_signatures(got, want))
    except CheckFailure as failure:
        # Error carried forward: right if it is what the student's own SDPA gives.
        own = own_intervention(student, reference, *args, **kwargs)
        settle(failure, own, NAME, lambda again, value: type(again) is dict and all(
            same(again.get(key), value[key]) for key in keys), first=got)


def _random(seed: int, lead: tuple[int, ...] = (probes.B, probes.H)) -> tuple:
    Q, K, V = probes.qkv(seed, lead=lead)
    return Q, K, V, 2, probes.normal(seed + 1, probes.DV)


@pytest.mark.part(NAME, requires="Replace value row ``index`` and report what changes (and what does not)")
def test_hand_example(student: Student, reference: ModuleType) -> None:
    """The lecture's intervention: value B -> [0, 20] changes the context, not the weights"""
    _check(student, reference, (probes.HAND_Q, probes.HAND_K, probes.HAND_V, 1, np.array([0.0, 20.0])))


@pytest.mark.part(NAME, requires="Returns a dict with ``weights_before``, ``weights_after``, ``context_before`` and ``context_after``")
def test_returns_all_four_arrays(student: Student, reference: ModuleType) -> None:
    """Returns a dict with weights and context, before and after, of the right shapes"""
    args = _random(801)
    want = reference.value_intervention(*args)
    got: dict | None = None
    try:
        got = _result(call(student, NAME, *args))
        for key in KEYS:
            expect_array(got[key], f"`{key}`", shape=want[key].shape)
    except CheckFailure as failure:
        settle(failure, own_intervention(student, reference, *args), NAME,
               lambda again, value: type(again) is dict and all(
                   np.shape(again.get(key)) == np.shape(value[key]) for key in KEYS), first=got)


@pytest.mark.part(NAME, requires="The weights depend only on Q and K, so they stay the same")
def test_weights_do_not_change(student: Student, reference: ModuleType) -> None:
    """With a mask and batch/head dimensions the weights stay the same"""
    args = _random(811)
    _check(student, reference, args, keys=("weights_before", "weights_after"),
           mask=probes.mixed_mask(813, probes.NQ, probes.NK))


@pytest.mark.part(NAME, requires="the context moves by ``weights[..., :, [index]] * (new_value - V[..., [index], :])``, of shape ``(..., n_q, d_v)``")
def test_context_moves_by_weight_times_change(student: Student, reference: ModuleType) -> None:
    """The context moves by each query's weight on key index times the change of that value row"""
    _check(student, reference, _random(821), keys=("context_before", "context_after"))


@pytest.mark.part(NAME, requires="``V`` is not modified")
def test_value_rows_not_modified(student: Student, reference: ModuleType) -> None:
    """Works on a read-only V: the caller's values are not modified"""
    args = _random(831)
    got: object = None
    try:
        got = works_readonly(student, NAME, *args, want=reference.value_intervention(*args),
                             mutation_code="intervention_mutates_v")
    except CheckFailure as failure:
        # Error carried forward: an error their own SDPA raises is charged there.
        settle(failure, own_intervention(student, reference, *args), NAME,
               lambda again, value: type(again) is dict and all(
                   same(again.get(key), value[key]) for key in KEYS),
               first=failure.result if isinstance(failure, IgnoresInputs) else got)


@pytest.mark.part(NAME, requires="A negative index counts from the end (index -1 is the last key)")
def test_negative_index(student: Student, reference: ModuleType) -> None:
    """A negative index counts from the end (index -1 is the last key)"""
    Q, K, V, _, new_value = _random(841, lead=())
    _check(student, reference, (Q, K, V, -1, new_value))


@pytest.mark.part(NAME, requires="an index outside the keys raises ``IndexError``")
def test_index_out_of_range_raises(student: Student, reference: ModuleType) -> None:
    """An index outside the value rows raises IndexError"""
    Q, K, V, _, new_value = _random(851, lead=())
    try:
        call(student, NAME, Q, K, V, 0, new_value)  # valid input works first
    except CheckFailure as failure:  # it cannot run at all: maybe its own SDPA cannot
        settle(failure, own_intervention(student, reference, Q, K, V, 0, new_value), NAME,
               lambda again, value: False)
    expect_error(student, NAME, Q, K, V, probes.NK, new_value, errors=["IndexError", "ValueError"],
                 situation="for an index outside the value rows")
