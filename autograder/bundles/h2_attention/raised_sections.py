"""Evidence sections the notebook recorded as ``{"error": ...}``: carried forward, never a gift.

The evidence cell records a section whose functions raise as an error (``solutions.evidence``)
and the verifier gives it 0. When the error is what the student's own functions do, and the
function behind it already lost points for that bug in its own part, a second charge here
would cost the mistake twice. So the grader (the bundle's ``provenance``) rebuilds the
section in the sandbox and carries it forward exactly when:

* the rebuild raises the same error: the same exception type, and the same message as the
  evidence cell writes it (``error_text``: trimmed the same way), or one the sandbox had to
  hide (it quoted inputs);
* the function the bug lives in lost points in its own part (it is *charged*), and either
  earned points there or at least computes something (``computes``: it does not answer two
  different inputs with one fixed error, or one fixed value). The function that raised is
  not always where the bug lives: when a building block raised on what an earlier block
  returned wrongly (``attention_scores`` transposed, so ``stable_softmax`` is given scores
  of the wrong shape), the earlier block is named as well, as ``carried_forward`` does;
* it is never an unimplemented stub (``NotImplementedError``): a section cannot earn points
  through a function that does not exist yet.

This module finds who raised and where the bug lives, with a few calls into the sandbox;
the grader's words about it are in ``RaisedSection.note``.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from autograder.base.safe_text import INPUTS_HIDDEN
from autograder.grading.student import StudentError
from autograder.untrusted.errors import ErrorKind
from solutions import attention as reference

from .sections import SDPA

UNIMPLEMENTED = "NotImplementedError"

Call = tuple[str, tuple, dict]  # (function, args, kwargs) of one call into the student's code
Caller = Callable[..., Any]  # student.call, counted


def error_text(type_name: str, message: str) -> str:
    """The text the evidence cell records for an error (``solutions.evidence.build_evidence``)."""
    text = f"{type_name}: {message}".strip().rstrip(":")
    return text[:300] or "an error without a message"


def recorded_type(recorded: str) -> str:
    """The exception type named by a recorded error text ("ValueError: ..." -> "ValueError")."""
    return recorded.split(":", 1)[0].strip()


def unimplemented(recorded: str) -> bool:
    """Whether a recorded error is a stub's: such a section is never carried forward."""
    return recorded_type(recorded) == UNIMPLEMENTED


def type_of(error: BaseException) -> tuple[str, str, bool]:
    """(type name, message, whether it is a NotImplementedError) of what the rebuild raised:
    a ``StudentError`` from the sandbox, or the evidence cell's own error on what the student's
    functions returned (raised here, in the trusted process)."""
    if isinstance(error, StudentError):
        return error.type_name, error.message, error.is_a(UNIMPLEMENTED)
    return type(error).__name__, str(error), isinstance(error, NotImplementedError)


def same_error(recorded: str, error: BaseException) -> bool:
    """Whether the rebuild raised what the file records: same type, same message as the
    evidence cell trims it (or a message the sandbox hid because it quoted inputs)."""
    if isinstance(error, StudentError) and error.kind is not ErrorKind.RAISED:
        return False  # a hang or a crash in the sandbox is not the error the cell recorded
    name, message, _ = type_of(error)
    if recorded == error_text(name, message):
        return True
    return recorded_type(recorded) == name and message == INPUTS_HIDDEN


def shown_type(name: str) -> str:
    """A type name the student may read: a built-in exception's; anything else is text the
    student's code chose, which the grader does not repeat."""
    builtin = isinstance(getattr(builtins, name, None), type) and name.isidentifier()
    return name if builtin else "an exception"


@dataclass(frozen=True)
class RaisedSection:
    """A section carried forward through an error: who raised it and whose part paid."""

    section: str
    title: str  # "the masked case"
    raiser: str  # the student function that raised, or that returned what the cell refused
    type_name: str  # as the student may read it ("ValueError", "an exception")
    culprits: tuple[str, ...]  # where the bug lives: charged in their own parts
    by_cell: bool = False  # the evidence cell itself stopped on what ``raiser`` returned

    def note(self) -> str:
        """What the student reads (after "carried forward: ")."""
        names = _names(self.culprits)
        if self.by_cell:
            what = (f"the evidence cell stopped with {self.type_name} here, on what your "
                    f"`{self.raiser}` returned")
        else:
            what = f"your `{self.raiser}` raised {self.type_name} here"
        wrong = [name for name in self.culprits if name != self.raiser]
        if wrong and not self.by_cell:
            what += f", given what your {_names(tuple(wrong))} returned"
        one = len(self.culprits) == 1
        return (f"{what}, in {self.title} (the grader ran your functions again and got the same "
                f"error); {names} already lost points for this bug in "
                f"{'its own part' if one else 'their own parts'}, so this section keeps its "
                "points: the bug costs points once, there")


def _names(functions: Sequence[str]) -> str:
    quoted = [f"`{name}`" for name in functions]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _agrees(got: Any, want: Any) -> bool:
    try:
        got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    except (TypeError, ValueError):
        return False
    return got.shape == want.shape and bool(np.allclose(got, want, equal_nan=True))


def _attempt(call: Callable[[], Any]) -> tuple[Any, StudentError | None]:
    try:
        return call(), None
    except StudentError as error:
        return None, error


def raised_by(call: Caller, failing: Call, error: StudentError) -> tuple[str, tuple[str, ...]]:
    """(the function that raised, the functions the bug may live in), following the failing
    call into the student's building blocks: ``value_intervention`` into their SDPA, the SDPA
    into its three blocks, each given what the student's previous block returned. A block is
    named when it raised the same error, or returned what the reference would not have (on
    the same input) before a later block raised."""
    name, args, kwargs = failing
    signature = error.signature()
    if name == "value_intervention" and len(args) >= 3:
        _, again = _attempt(lambda: call(SDPA, *args[:3], **kwargs))
        if again is None or again.signature() != signature:
            return name, (name,)
        name, args = SDPA, args[:3]
    if name != SDPA or len(args) < 3:
        return name, (name,)
    Q, K, V = args[:3]
    mask = {"mask": kwargs["mask"]} if kwargs.get("mask") is not None else {}
    wrong: list[str] = []
    scores, raised = _attempt(lambda: call("attention_scores", Q, K))
    if raised is not None:
        return _blame("attention_scores", raised, signature, wrong)
    if not _agrees(scores, _quiet(lambda: reference.attention_scores(Q, K))):
        wrong.append("attention_scores")
    weights, raised = _attempt(lambda: call("stable_softmax", scores, **mask))
    if raised is not None:
        return _blame("stable_softmax", raised, signature, wrong)
    if not _agrees(weights, _quiet(lambda: reference.stable_softmax(scores, **mask))):
        wrong.append("stable_softmax")
    _, raised = _attempt(lambda: call("attention_context", weights, V))
    if raised is not None:
        return _blame("attention_context", raised, signature, wrong)
    return SDPA, (SDPA,)  # its blocks ran: the SDPA's own code raised


def _blame(block: str, raised: StudentError, signature: tuple, wrong: list[str]
           ) -> tuple[str, tuple[str, ...]]:
    if raised.signature() == signature:
        return block, (*wrong, block)
    return SDPA, (SDPA,)  # the block fails otherwise on its own: nothing says it is the cause


def _quiet(compute: Callable[[], Any]) -> Any:
    try:
        with np.errstate(all="ignore"):
            return compute()
    except Exception:  # noqa: BLE001 - the reference refuses the student's input: no answer
        return None


def computes(call: Caller, function: str, inputs: dict) -> bool:
    """Whether ``function`` answers two evidence inputs of different shapes differently (two
    values, a value and an error, two errors): a function that raises one fixed error, or
    returns one fixed value, whatever it is given earns nothing by carrying forward."""
    first, second = (_outcome(call, function, arguments)
                     for arguments in _probe_arguments(function, inputs))
    return first != second


def _outcome(call: Caller, function: str, arguments: tuple[tuple, dict]) -> object:
    args, kwargs = arguments
    value, error = _attempt(lambda: call(function, *args, **kwargs))
    if error is not None:
        return ("raised", error.signature())
    try:
        return ("returned", repr(np.asarray(value, dtype=object).tolist()))
    except Exception:  # noqa: BLE001 - whatever the function returned
        return ("returned", repr(value))


def _probe_arguments(function: str, inputs: dict) -> list[tuple[tuple, dict]]:
    """Arguments for ``function`` from the hand example (1 query, 3 keys) and from the masked
    case (4 queries, 5 keys, a mask): the student's own evidence inputs, two shapes."""
    hand = inputs["hand_example"]
    q, k, v = (np.array(hand[key]) for key in ("queries", "keys", "values"))
    case = inputs["masked_case"]
    Q, K, V = (np.array(case[key]) for key in ("queries", "keys", "values"))
    mask = np.array(case["mask"], dtype=bool)
    index = int(inputs["intervention"]["index"])
    new_value = np.array(inputs["intervention"]["new_value"])
    small = reference.attention_scores(q, k)
    large = reference.attention_scores(Q, K)
    by_function: dict[str, list[tuple[tuple, dict]]] = {
        "attention_scores": [((q, k), {}), ((Q, K), {})],
        "stable_softmax": [((small,), {}), ((large,), {"mask": mask})],
        "attention_context": [((reference.stable_softmax(small), v), {}),
                              ((reference.stable_softmax(large, mask=mask), V), {})],
        "value_intervention": [((q, k, v, 0, v[0] + 1.0), {}),
                               ((Q, K, V, index, new_value), {"mask": mask})],
    }
    return by_function.get(function, [((q, k, v), {}), ((Q, K, V), {"mask": mask})])


def working(culprits: Sequence[str], call: Caller, inputs: dict, *,
            charged: Collection[str] | None, failed: Collection[str]) -> tuple[str, ...]:
    """The culprits an error may be carried forward from: charged in their own part (lost
    points there), and earned points there or at least compute something."""
    lost = [name for name in culprits if charged is None or name in charged]
    return tuple(name for name in lost
                 if name not in failed or computes(call, name, inputs))
