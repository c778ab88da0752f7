"""How H2's functions compose, for error carried forward (``autograder.grading.carried_forward``).

``scaled_dot_product_attention`` is meant to be built from the student's own
``attention_scores``, ``stable_softmax`` and ``attention_context``, and
``value_intervention``, ``self_attention`` and ``cross_attention`` from their own
``scaled_dot_product_attention``. When such a function disagrees with the reference,
its check calls one of the ``own_*`` functions here: the student's own blocks on fresh
inputs (the engine's ``fresh``), which of them differ from the reference, and what the
graded function gives there; the engine's ``settle`` decides the verdict from that.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from types import ModuleType
from typing import Any

import numpy as np

from autograder.grading.carried_forward import Own, answer, attempt, fresh, same
from autograder.grading.student import Student, StudentError

from .sections import SDPA


def _kwargs(mask: np.ndarray | None) -> dict:
    return {} if mask is None else {"mask": mask}


def _blocks(
    student: Student, reference: ModuleType, Q: np.ndarray, K: np.ndarray, V: np.ndarray,
    mask: np.ndarray | None,
) -> Own:
    """``(context, weights)`` from the student's own three blocks on these inputs, which of
    them are wrong (each judged on the input the student's next block received), or the
    error one raised."""
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


def own_attention(
    student: Student, reference: ModuleType, Q: np.ndarray, K: np.ndarray, V: np.ndarray,
    mask: np.ndarray | None = None,
) -> Own:
    """The student's three blocks, then their ``scaled_dot_product_attention``, on fresh
    inputs shaped like ``Q``, ``K`` and ``V`` (the same mask)."""
    Q, K, V = fresh(Q, K, V)
    blocks = _blocks(student, reference, Q, K, V, mask)
    again, again_error = attempt(lambda: student.call(SDPA, Q, K, V, **_kwargs(mask)))
    want = answer(lambda: reference.scaled_dot_product_attention(Q, K, V, **_kwargs(mask)))
    return replace(blocks, again=again, again_error=again_error, want=want)


def own_intervention(
    student: Student, reference: ModuleType, Q: np.ndarray, K: np.ndarray, V: np.ndarray,
    index: int, new_value: np.ndarray, mask: np.ndarray | None = None,
) -> Own:
    """On fresh inputs: the four arrays from the student's own
    ``scaled_dot_product_attention``, called before and after the value row changes (as the
    reference does it), then their ``value_intervention``."""
    Q, K, V, new_value = fresh(Q, K, V, np.asarray(new_value))
    after = np.array(V, copy=True)
    try:
        after[..., index, :] = new_value
    except (IndexError, ValueError):  # the check's index is out of range: nothing to compose
        return Own(None, ())
    pairs, error = attempt(lambda: (student.call(SDPA, Q, K, V, **_kwargs(mask)),
                                     student.call(SDPA, Q, K, after, **_kwargs(mask))))
    again, again_error = attempt(lambda: student.call(
        "value_intervention", Q, K, V, index, new_value, **_kwargs(mask)))
    want = answer(lambda: reference.value_intervention(Q, K, V, index, new_value, **_kwargs(mask)))
    if error is not None:
        # Their SDPA may only pass on the error of one of its own blocks: blame that block.
        behind = _blocks(student, reference, Q, K, V, mask)
        if behind.error is not None and behind.error.signature() == error.signature():
            return replace(behind, again=again, again_error=again_error, want=want)
        return Own(None, (SDPA,), error, SDPA, again, again_error, want)
    before_pair, after_pair = pairs
    if not all(type(pair) in (tuple, list) and len(pair) == 2 for pair in (before_pair, after_pair)):
        return Own(None, (), None, "", again, again_error, want)
    right = same(tuple(before_pair),
                 answer(lambda: reference.scaled_dot_product_attention(Q, K, V, **_kwargs(mask))))
    return Own({
        "context_before": before_pair[0], "weights_before": before_pair[1],
        "context_after": after_pair[0], "weights_after": after_pair[1],
    }, () if right else (SDPA,), None, "", again, again_error, want)


def own_projected(
    student: Student, reference: ModuleType, part: str, X_q: np.ndarray, X_kv: np.ndarray | None,
    W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray, mask: np.ndarray | None = None,
) -> Own:
    """On fresh inputs: ``(context, weights)`` from the student's own
    ``scaled_dot_product_attention`` on the right projections ``X_q @ W_q``, ``X_kv @ W_k``
    and ``X_kv @ W_v`` (computed here, on the trusted side), then the graded ``part``:
    ``self_attention`` (``X_kv`` is None: the same X) or ``cross_attention``.

    The blame goes where the bug lives: when their SDPA is itself only carrying a bug of
    its own blocks forward (it gives what those blocks give, or raises their error), the
    blocks are named, not the SDPA, which keeps its points."""
    if X_kv is None:
        X, W_q, W_k, W_v = fresh(X_q, W_q, W_k, W_v)
        X_q = X_kv = X
        arguments: tuple[np.ndarray, ...] = (X, W_q, W_k, W_v)
    else:
        X_q, X_kv, W_q, W_k, W_v = fresh(X_q, X_kv, W_q, W_k, W_v)
        arguments = (X_q, X_kv, W_q, W_k, W_v)
    Q, K, V = X_q @ W_q, X_kv @ W_k, X_kv @ W_v
    theirs = _blocks_of_sdpa(student, reference, Q, K, V, mask)
    again, again_error = attempt(lambda: student.call(part, *arguments, **_kwargs(mask)))
    want = answer(lambda: getattr(reference, part)(*arguments, **_kwargs(mask)))
    return replace(theirs, again=again, again_error=again_error, want=want)


def _blocks_of_sdpa(
    student: Student, reference: ModuleType, Q: np.ndarray, K: np.ndarray, V: np.ndarray,
    mask: np.ndarray | None,
) -> Own:
    """The student's SDPA on these inputs as a building block: its value, and whether the
    SDPA or, behind it, one of its own blocks is what is wrong."""
    pair, error = attempt(lambda: student.call(SDPA, Q, K, V, **_kwargs(mask)))
    if error is not None:
        blocks = _blocks(student, reference, Q, K, V, mask)
        if blocks.error is not None and blocks.error.signature() == error.signature():
            return blocks
        return Own(None, (SDPA,), error, SDPA)
    if same(pair, answer(lambda: reference.scaled_dot_product_attention(Q, K, V, **_kwargs(mask)))):
        return Own(pair, ())
    blocks = _blocks(student, reference, Q, K, V, mask)
    if blocks.error is None and blocks.wrong and same(pair, blocks.value):
        return Own(pair, blocks.wrong)
    return Own(pair, (SDPA,))
