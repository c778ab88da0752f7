"""Error carried forward: a part is graded on its own logic, not on the student's earlier bugs.

``scaled_dot_product_attention`` is meant to be built from the student's own
``attention_scores``, ``stable_softmax`` and ``attention_context``, and
``value_intervention``, ``self_attention`` and ``cross_attention`` from their own
``scaled_dot_product_attention``. When such a function disagrees with the reference,
the checks recompute what the student's own building blocks give on the same inputs
(in the sandbox, plain data only). If the function agrees with *that*, and a building
block is what differs from the reference, the check passes "carried forward": the bug is
charged once, in the part where it lives. A building block that raises the same error
also carries forward (its own part pays for it), except an unimplemented stub
(``NotImplementedError``): a function that cannot run without it cannot earn points either.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from autograder.grading.assertions import CarriedForward, CheckFailure
from autograder.grading.student import Student, StudentError
from autograder.results.result import CARRIED_FORWARD

COMPONENTS = ("attention_scores", "stable_softmax", "attention_context")
SDPA = "scaled_dot_product_attention"
RTOL, ATOL = 1e-7, 1e-9  # float64: any correct formula agrees far closer (assertions.py)
RTOL_F32, ATOL_F32 = 1e-4, 1e-5


def same(got: Any, want: Any) -> bool:
    """Equal as the checks compare: arrays of one shape and dtype with close values
    (NaN where the other has NaN), or equal plain values."""
    if type(got) is np.ndarray and type(want) is np.ndarray:
        if got.shape != want.shape or got.dtype != want.dtype or got.dtype.kind not in "biuf":
            return False
        single = want.dtype == np.float32
        return bool(np.allclose(got, want, equal_nan=True, rtol=RTOL_F32 if single else RTOL,
                                atol=ATOL_F32 if single else ATOL))
    if type(got) in (tuple, list) and type(want) in (tuple, list):
        return len(got) == len(want) and all(same(a, b) for a, b in zip(got, want, strict=True))
    if type(got) is dict and type(want) is dict:
        return got.keys() == want.keys() and all(same(got[k], want[k]) for k in got)
    return type(got) is type(want) and got == want


def named(functions: Sequence[str]) -> str:
    return " and ".join(f"`{name}`" for name in functions)


def carried_note(functions: Sequence[str], part: str) -> str:
    """The student-facing note on a check that passed by error carried forward (it starts
    with ``CARRIED_FORWARD``: the feedback page shows it as such, not as a problem)."""
    return (f"{CARRIED_FORWARD} from {named(functions)}: your `{part}` uses "
            f"{'it' if len(functions) == 1 else 'them'} correctly, so the bug costs points "
            f"only in {named(functions)}")


@dataclass(frozen=True)
class Own:
    """What the student's own building blocks give, and which of them differ."""

    value: Any  # the composed result (None when a block raised)
    wrong: tuple[str, ...]  # blocks that disagree with the reference on these inputs
    error: StudentError | None = None  # the error a block raised, if one did
    raised_by: str = ""


def _kwargs(mask: np.ndarray | None) -> dict:
    return {} if mask is None else {"mask": mask}


def own_attention(
    student: Student, reference: ModuleType, Q: np.ndarray, K: np.ndarray, V: np.ndarray,
    mask: np.ndarray | None = None,
) -> Own:
    """``(context, weights)`` from the student's own three blocks, which of them are wrong
    (each judged on the same input the student's next block received), or the error one
    raised."""
    steps: list[tuple[str, Callable[[], Any], Callable[[], Any]]] = []
    values: dict[str, Any] = {}
    steps.append(("attention_scores", lambda: student.call("attention_scores", Q, K),
                  lambda: reference.attention_scores(Q, K)))
    steps.append(("stable_softmax",
                  lambda: student.call("stable_softmax", values["attention_scores"], **_kwargs(mask)),
                  lambda: reference.stable_softmax(values["attention_scores"], **_kwargs(mask))))
    steps.append(("attention_context",
                  lambda: student.call("attention_context", values["stable_softmax"], V),
                  lambda: reference.attention_context(values["stable_softmax"], V)))
    wrong = []
    for name, theirs, ours in steps:
        try:
            values[name] = theirs()
        except StudentError as error:
            return Own(None, tuple(wrong), error, name)
        try:
            expected = ours()
        except Exception:  # noqa: BLE001 - the reference refuses the student's own input
            expected = None
        if expected is None or not same(values[name], expected):
            wrong.append(name)
    return Own((values["attention_context"], values["stable_softmax"]), tuple(wrong))


def own_intervention(
    student: Student, reference: ModuleType, Q: np.ndarray, K: np.ndarray, V: np.ndarray,
    index: int, new_value: np.ndarray, mask: np.ndarray | None = None,
) -> Own:
    """The four arrays from the student's own ``scaled_dot_product_attention``, called
    before and after the value row changes (as the reference does it)."""
    after = np.array(V, copy=True)
    after[..., index, :] = new_value
    try:
        before_pair = student.call("scaled_dot_product_attention", Q, K, V, **_kwargs(mask))
        after_pair = student.call("scaled_dot_product_attention", Q, K, after, **_kwargs(mask))
    except StudentError as error:
        return Own(None, ("scaled_dot_product_attention",), error, "scaled_dot_product_attention")
    if not all(type(pair) in (tuple, list) and len(pair) == 2 for pair in (before_pair, after_pair)):
        return Own(None, ())
    right = same(tuple(before_pair), reference.scaled_dot_product_attention(Q, K, V, **_kwargs(mask)))
    return Own({
        "context_before": before_pair[0], "weights_before": before_pair[1],
        "context_after": after_pair[0], "weights_after": after_pair[1],
    }, () if right else ("scaled_dot_product_attention",))


def own_projected(
    student: Student, reference: ModuleType, X_q: np.ndarray, X_kv: np.ndarray,
    W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray, mask: np.ndarray | None = None,
) -> Own:
    """``(context, weights)`` from the student's own ``scaled_dot_product_attention`` on the
    right projections ``X_q @ W_q``, ``X_kv @ W_k`` and ``X_kv @ W_v`` (computed here, on
    the trusted side), as ``self_attention`` (``X_q`` is ``X_kv``) and ``cross_attention``
    should call it.

    The blame goes where the bug lives: when their SDPA is itself only carrying a bug of
    its own blocks forward (it gives what those blocks give, or raises their error), the
    blocks are named, not the SDPA, which keeps its points."""
    X_q, X_kv, W_q, W_k, W_v = (np.asarray(x) for x in (X_q, X_kv, W_q, W_k, W_v))
    Q, K, V = X_q @ W_q, X_kv @ W_k, X_kv @ W_v
    try:
        pair = student.call(SDPA, Q, K, V, **_kwargs(mask))
    except StudentError as error:
        blocks = own_attention(student, reference, Q, K, V, mask)
        if blocks.error is not None and blocks.error.signature() == error.signature():
            return blocks
        return Own(None, (SDPA,), error, SDPA)
    if same(pair, reference.scaled_dot_product_attention(Q, K, V, **_kwargs(mask))):
        return Own(pair, ())
    blocks = own_attention(student, reference, Q, K, V, mask)
    if blocks.error is None and blocks.wrong and same(pair, blocks.value):
        return Own(pair, blocks.wrong)
    return Own(pair, (SDPA,))


def settle(failure: CheckFailure, own: Own, part: str, agrees: Callable[[Any], bool]) -> None:
    """After ``failure`` against the reference: raise ``CarriedForward`` when the result
    agrees with the student's own (wrong) blocks, else ``failure``, its message naming the
    block that raised when one did."""
    if own.error is not None:
        if own.error.is_a("NotImplementedError"):
            raise CheckFailure(f"{failure.message} It needs your `{own.raised_by}`, which is not "
                               "implemented yet.", failure.diagnosis, failure.student_error) from None
        if failure.student_error is None:  # it did not raise: a block's error is not the cause
            raise failure
        if own.error.kind == "raised" and (
            failure.student_error.signature() == own.error.signature()
        ):
            raise CarriedForward(carried_note([own.raised_by], part)) from None
        raise CheckFailure(f"{failure.message} The cause is in your `{own.raised_by}`: "
                           f"{own.error.describe()}.", failure.diagnosis,
                           failure.student_error) from None
    if own.value is not None and own.wrong and agrees(own.value):
        raise CarriedForward(carried_note(own.wrong, part)) from None
    raise failure
