"""Error carried forward: a part is graded on its own logic, not on the student's earlier bugs.

A function an assignment builds from the student's own earlier functions (its *building
blocks*) may disagree with the reference only because a block is wrong. Then the checks
ask whether it does what the student's own blocks give instead (in the sandbox, plain data
only; the assignment's bundle says how its functions compose and calls them, building an
``Own``). If so, and a block is what differs from the reference, the check passes "carried
forward": the bug is charged once, in the part where it lives. What is here is the same for
every assignment: comparing results, fresh inputs, the verdicts and their notes, and the
settling of every carried-forward pass once all checks ran.

Carried-forward credit moves a charge; it never creates points:

* The composition is confirmed on *fresh* inputs (the check's inputs, perturbed; masks,
  indices and dtypes kept): the building blocks are called on them first, then the
  function, so no block can recognise the recheck by the inputs the function was just given.
* A function whose result does not depend on its inputs (the same value on the check's and
  the fresh inputs), or whose result cannot have the answer's shape, earns nothing by carry-forward.
* A block that raises the same error carries it forward (its own part pays for it), except
  an unimplemented stub (``NotImplementedError``): a function that cannot run without it
  cannot earn points either.
* After all checks ran, ``transfer`` keeps a carried-forward pass only if a block it names
  actually lost points in its own part, on its own checks; otherwise the check fails as it
  would have without carry-forward, and says why. A raised error is carried forward only
  from a block that earned points of its own, or at least fails differently on different
  inputs: one that raises one fixed error in every check runs no better than a stub.

For a bundle's checks (the check API, with ``autograder.grading.assertions``):
``carry_forward`` is the whole of it in one call: after a check of a function built on the
student's own functions failed, it composes those functions as the function should on fresh
inputs, and passes the check carried forward only when the function does exactly that and a
block it uses is what is wrong (docs/adding-an-assignment.md, "Error carried forward").
``settle``, ``Own``, ``fresh``, ``same``, ``attempt``, ``answer`` and ``carried`` are its parts,
for a composition written by hand (a bundle's own module that builds ``Own``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

from autograder.grading.assertions import CarriedForward, CheckFailure, tolerance
from autograder.grading.student import Student, StudentError
from autograder.results.message import named
from autograder.untrusted.errors import ErrorKind

if TYPE_CHECKING:
    from autograder.grading.plugin import CheckResult

FRESH_NOISE = 0.5  # perturbation of a fresh input, relative to the array's RMS (1 if zero)


def same(got: Any, want: Any) -> bool:
    """Equal as the checks compare: arrays of one shape and dtype with close values
    (NaN where the other has NaN), or equal plain values."""
    if type(got) is np.ndarray and type(want) is np.ndarray:
        if got.shape != want.shape or got.dtype != want.dtype or got.dtype.kind not in "biuf":
            return False
        rtol, atol = tolerance(want.dtype)  # the checks' own (assertions.py)
        return bool(np.allclose(got, want, equal_nan=True, rtol=rtol, atol=atol))
    if type(got) in (tuple, list) and type(want) in (tuple, list):
        return len(got) == len(want) and all(same(a, b) for a, b in zip(got, want, strict=True))
    if type(got) is dict and type(want) is dict:
        return got.keys() == want.keys() and all(same(got[k], want[k]) for k in got)
    return type(got) is type(want) and got == want


def shaped_like(got: Any, want: Any) -> bool:
    """Whether ``got`` could be the answer ``want`` is: arrays with at least its number of
    dimensions, pairs of such arrays, dicts with the same keys. A block's bug may change
    sizes, even add an axis (and is carried forward); a bare ``np.zeros(1)`` cannot be it."""
    if type(want) is np.ndarray:
        return type(got) is np.ndarray and got.ndim >= want.ndim
    if type(want) in (tuple, list):
        return (type(got) in (tuple, list) and len(got) == len(want)
                and all(shaped_like(a, b) for a, b in zip(got, want, strict=True)))
    if type(want) is dict:
        return type(got) is dict and got.keys() == want.keys() and all(
            shaped_like(got[k], want[k]) for k in want)
    return True


def fresh(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """The same arrays perturbed (float arrays only; Boolean masks and integers are kept),
    deterministically from their bytes, so a recheck is repeatable but shows no block an
    input it has seen before."""
    digest = hashlib.blake2b(digest_size=8)
    for array in arrays:
        digest.update(np.ascontiguousarray(array).tobytes())
    rng = np.random.default_rng(int.from_bytes(digest.digest(), "little"))
    out = []
    for array in arrays:
        array = np.asarray(array)
        if array.dtype.kind != "f" or array.size == 0:
            out.append(array.copy())
            continue
        finite = array[np.isfinite(array)]
        rms = float(np.sqrt(np.mean(finite.astype(np.float64) ** 2))) if finite.size else 0.0
        noise = rng.standard_normal(array.shape) * FRESH_NOISE * (rms or 1.0)
        out.append((array + noise).astype(array.dtype))
    return tuple(out)


def carried_note(functions: Sequence[str], part: str) -> str:
    """The student-facing note on a check that passed by error carried forward; it is said
    after the label "carried forward from <functions>" (``Message.label``: the check's
    ``carried_from`` says it is one, the words never do)."""
    return (f"your `{part}` uses "
            f"{'it' if len(functions) == 1 else 'them'} correctly, so the bug costs points "
            f"only in {named(functions)}")


def carried(
    failure: CheckFailure, functions: Sequence[str], part: str, raised: bool = False,
) -> CarriedForward:
    """The verdict "passed, carried forward from ``functions``" (``raised``: an error one of
    them raised), keeping the failure the check stands on should ``transfer`` refuse it."""
    return CarriedForward(carried_note(functions, part), blocks=tuple(functions),
                          failure=failure, raised=raised)


def stood_in(result: CheckResult, blocks: Sequence[str]) -> CheckResult:
    """A check that passed while the grader answered the calls to ``blocks`` (they hung or
    crashed earlier; ``SandboxStudent`` stands in for them) passed carried forward from them:
    ``transfer`` keeps it only if they lost points in their own part, as any other."""
    if not blocks or result.status != "passed" or result.carried_from:
        return result
    failure = replace(result, points=0, status="failed",
                      message=f"It needs your {named(blocks)}, which did not finish or crashed.")
    plural = len(blocks) > 1
    note = (f"{'they' if plural else 'it'} stopped "
            f"earlier (an endless loop or a crash), so your `{result.part}` was checked with "
            f"a correct {named(blocks)} in {'their' if plural else 'its'} place; the bug costs "
            f"points only in {named(blocks)}")
    return replace(result, message=note, carried_from=tuple(blocks), instead=failure)


@dataclass(frozen=True)
class Own:
    """What the student's own building blocks give on fresh inputs, which of them differ,
    and what the graded function itself gives on those inputs."""

    value: Any  # the composed result (None when a block raised)
    wrong: tuple[str, ...]  # blocks that disagree with the reference on these inputs
    error: StudentError | None = None  # the error a block raised, if one did
    raised_by: str = ""
    again: Any = None  # the graded function's own result on the fresh inputs
    again_error: StudentError | None = None  # or the error it raised there
    want: Any = None  # the reference's answer on the fresh inputs


def attempt(call: Callable[[], Any]) -> tuple[Any, StudentError | None]:
    """``(result, None)`` of a call into the student's code, or ``(None, the error)``."""
    try:
        return call(), None
    except StudentError as error:
        return None, error


def answer(call: Callable[[], Any]) -> Any:
    """The reference's answer, or None where it has none (e.g. a fresh all-masked row)."""
    try:
        return call()
    except Exception:  # noqa: BLE001 - no answer to compare
        return None


def settle(
    failure: CheckFailure, own: Own, part: str, agrees: Callable[[Any, Any], bool],
    first: Any = None,
) -> None:
    """After ``failure`` against the reference: raise ``CarriedForward`` when the graded
    function, on the fresh inputs, does what the student's own (wrong) blocks do there
    (``agrees(its result, the blocks' result)``) and its result depends on its inputs (it
    differs from ``first``, its result on the check's own inputs); else ``failure``, its
    message naming the block that raised when one did."""
    if own.error is not None:
        if own.error.is_a("NotImplementedError"):
            raise CheckFailure(f"{failure.message} It needs your `{own.raised_by}`, which is not "
                               "implemented yet.", failure.diagnoses, failure.student_error) from None
        if failure.student_error is None:  # it did not raise: a block's error is not the cause
            raise failure
        if own.error.kind is ErrorKind.RAISED and own.again_error is not None and (
            own.again_error.signature() == own.error.signature()
        ):
            # A block given another block's wrong result may raise: the wrong one is the cause.
            raise carried(failure, [*own.wrong, own.raised_by], part, raised=True) from None
        stop = "" if failure.message.rstrip().endswith((".", "!", "?")) else "."
        raise CheckFailure(f"{failure.message.rstrip()}{stop} The cause is in your `{own.raised_by}`: "
                           f"{_what_it_did(own.error, own.raised_by)}.", failure.diagnoses,
                           failure.student_error) from None
    if (own.value is not None and own.wrong and own.again_error is None
            and own.again is not None and agrees(own.again, own.value)
            and (own.want is None or shaped_like(own.again, own.want))
            and not (first is not None and same(first, own.again))):
        raise carried(failure, own.wrong, part) from None
    raise failure


def close(got: Any, want: Any) -> bool:
    """Equal as numbers, the checks' way: arrays or numbers (a NumPy number arrives as a 0-d
    array) of one shape whose values agree within ``want``'s tolerance; otherwise ``same``."""
    if _numeric(got) and _numeric(want):
        got, want = np.asarray(got), np.asarray(want)
        if got.shape != want.shape or got.dtype.kind not in "biuf" or want.dtype.kind not in "biuf":
            return False
        rtol, atol = tolerance(want.dtype if want.dtype.kind == "f" else np.float64)
        return bool(np.allclose(got, want, equal_nan=True, rtol=rtol, atol=atol))
    return same(got, want)


def _numeric(value: Any) -> bool:
    return isinstance(value, int | float | np.number | np.ndarray) and not isinstance(
        value, bool | np.bool_)


class _Stopped(Exception):
    """A building block raised: the composition stops there."""


@dataclass
class Blocks:
    """The student's own building blocks, as ``compose`` calls them: ``blocks(name, *args)``
    is the student's ``name`` on ``args`` (in the sandbox), judged against the reference's on
    the same arguments (those the composition gives it, so each block is judged on what the
    student's earlier block gave it)."""

    student: Student
    reference: ModuleType
    wrong: list[str] = field(default_factory=list)  # blocks that disagreed with the reference
    error: StudentError | None = None  # the error a block raised, if one did
    raised_by: str = ""

    def __call__(self, name: str, *args: Any) -> Any:
        try:
            got = self.student.call(name, *args)
        except StudentError as error:
            self.error, self.raised_by = error, name
            raise _Stopped from None
        want = answer(lambda: getattr(self.reference, name)(*args))
        if (want is None or not close(got, want)) and name not in self.wrong:
            self.wrong.append(name)
        return got


def carry_forward(
    failure: CheckFailure, student: Student, reference: ModuleType, part: str, *inputs: Any,
    compose: Callable[..., Any], agrees: Callable[[Any, Any], bool] = close, first: Any = None,
) -> NoReturn:
    """After ``failure`` (a check of the function ``part`` on ``inputs``): raise
    ``CarriedForward`` ("passed, carried forward") when ``part`` does on fresh inputs what the
    student's own building blocks give there and one of them is what differs from the
    reference; else re-raise ``failure``. Never returns.

    ``compose(blocks, *inputs)`` says how ``part`` is built: ``blocks(name, *args)`` calls the
    student's own block ``name`` (``lambda blocks, a: a / blocks("norm", a)``); it runs here, on
    plain data. Float arrays among ``inputs`` are perturbed (``fresh``); other inputs are kept.
    ``agrees(part's result, the composition's)``: ``close`` unless given. ``first``: ``part``'s
    result on the check's own inputs (a function that gives it again on the fresh ones does not
    depend on its inputs, and earns nothing). The charge is kept only if a block named lost
    points in its own part (``transfer``, after every check ran)."""
    arrays = [index for index, value in enumerate(inputs) if isinstance(value, np.ndarray)]
    again_inputs = list(inputs)
    for index, value in zip(arrays, fresh(*(inputs[i] for i in arrays)), strict=True):
        again_inputs[index] = value
    blocks = Blocks(student, reference)
    try:
        value = compose(blocks, *again_inputs)
    except _Stopped:
        value = None
    except Exception:  # noqa: BLE001 - the blocks' results do not compose (a str for a number)
        value, blocks.wrong = None, []
    again, again_error = attempt(lambda: student.call(part, *again_inputs))
    want = answer(lambda: getattr(reference, part)(*again_inputs))
    settle(failure, Own(value, tuple(blocks.wrong), blocks.error, blocks.raised_by, again,
                        again_error, want), part, agrees, first)
    raise failure  # settle always raises; this line is for the type checker


def _what_it_did(error: StudentError, function: str) -> str:
    """The error's account after "The cause is in your `function`:" without naming the
    function a second time ("it did not finish in time", not "`f` did not finish")."""
    text = error.describe()
    who = f"`{function}` "
    return "it " + text[len(who):] if text.startswith(who) else text


# ------------------------------------------------------------ after all checks


NOT_CARRIED = ("This is not carried forward: your {blocks} {verb} all of {its} own checks, "
               "so the difference is charged here.")
NEVER_RUNS = ("This is not carried forward: your {blocks} {verb} every one of {its} own checks, "
              "and a function cannot earn points through a building block that never works.")


def transfer(results: Iterable[CheckResult], order: Sequence[str]) -> list[CheckResult]:
    """Keep a carried-forward pass only where a block it names, or a block behind it (one
    that block itself carries forward from), lost points in its own part; the note names
    those blocks. Parts are taken in ``order`` (building blocks before the functions that
    use them). Any other carried-forward pass becomes the failure it stood on."""
    results = list(results)
    rank = {part: index for index, part in enumerate(order)}
    positions = sorted(range(len(results)), key=lambda i: rank.get(results[i].part, len(rank)))
    for index in positions:
        check = results[index]
        if not check.carried_from or check.instead is None:
            continue
        losers = _culprits(results, check.carried_from)
        working = tuple(block for block in losers if not check.carried_error
                        or _earned_points(results, block) or _computes(results, block))
        if working:
            if working != check.carried_from:
                results[index] = replace(check, message=carried_note(working, check.part),
                                         carried_from=working)
            continue
        blocks = losers or check.carried_from
        plural = len(blocks) > 1
        template, verbs = (NEVER_RUNS, ("fails", "fail")) if losers else (NOT_CARRIED, ("passes", "pass"))
        note = template.format(blocks=named(blocks), verb=verbs[plural], its="their" if plural else "its")
        message = check.instead.message.rstrip()
        stop = "" if message.endswith((".", "!", "?")) else "."
        results[index] = replace(check.instead, message=f"{message}{stop} {note}")
    return results


def _culprits(results: Sequence[CheckResult], blocks: Sequence[str]) -> tuple[str, ...]:
    """The blocks that lost points, following a block that kept them because it only carries
    a bug of its own blocks forward (already settled: it comes earlier in the order)."""
    found: list[str] = []
    for block in blocks:
        if _lost_points(results, block):
            behind: Sequence[str] = (block,)
        else:
            behind = [name for check in results if check.part == block
                      for name in check.carried_from if _lost_points(results, name)]
        for name in behind:  # each SDPA check names its blocks: say each block once
            if name not in found:
                found.append(name)
    return tuple(found)


def _lost_points(results: Sequence[CheckResult], part: str) -> bool:
    return any(check.part == part and check.points < check.max_points for check in results)


def _earned_points(results: Sequence[CheckResult], part: str) -> bool:
    return any(check.part == part and check.points > 0 for check in results)


def _computes(results: Sequence[CheckResult], part: str) -> bool:
    """Whether a block that fails every check at least fails differently on different
    inputs (a shape error that names the shapes): it computes something, as a stub that
    raises one fixed error does not."""
    return len({check.student_error for check in results
                if check.part == part and check.student_error is not None}) > 1
