"""From check verdicts to points per part, with one message per distinct problem.

A part is the sum of its checks, so a mostly-right function earns most of its
points. When a function is missing or raises the same error in every check,
the part says so once instead of once per check. Evidence parts come from the
evidence verifier (``autograder.grading.evidence_parts``); ``merge_part_scores``
joins such scores with the code parts'.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from autograder.grading import diagnoses
from autograder.grading.plugin import CheckResult
from autograder.grading.student import StudentError
from autograder.results.message import Message
from autograder.untrusted.errors import ErrorKind

if TYPE_CHECKING:
    from autograder.assignments import Assignment


@dataclass(frozen=True)
class PartScore:
    """Points and feedback for one graded part (``explanations``: the student-facing text
    of its ``diagnoses``)."""

    part: str
    points: float
    max_points: float
    messages: tuple[Message, ...] = ()
    diagnoses: tuple[str, ...] = ()
    checks: tuple[CheckResult, ...] = ()
    needs_review: bool = False
    explanations: tuple[str, ...] = ()


def score_parts(results: Iterable[CheckResult], assignment: Assignment) -> dict[str, PartScore]:
    """Points per function part of ``assignment`` (in its order); raises if its checks and
    its parts disagree."""
    part_points = assignment.function_points
    table = diagnoses.known(assignment)
    by_part: dict[str, list[CheckResult]] = {part: [] for part in part_points}
    for result in results:
        if result.part not in by_part:
            raise ValueError(f"check {result.name} grades unknown part {result.part!r}")
        by_part[result.part].append(result)
    scores = {}
    for part, checks in by_part.items():
        available = sum(c.max_points for c in checks)
        if available != part_points[part]:
            raise ValueError(f"checks of {part} are worth {available} points, the spec says {part_points[part]}")
        codes = diagnoses.in_order((code for c in checks for code in c.diagnoses), table)
        scores[part] = PartScore(
            part=part,
            points=sum(c.points for c in checks),
            max_points=available,
            messages=_messages(checks),
            diagnoses=codes,
            checks=tuple(checks),
            explanations=diagnoses.explanations(codes, table),
        )
    return scores


def check_message(check: CheckResult) -> Message:
    """What one check said: its failure's reason, or the note of a pass carried forward."""
    if check.status == "passed" and check.carried_from:
        return Message(check.message, carried=True, carried_from=list(check.carried_from))
    return Message(check.message)


def _messages(checks: list[CheckResult]) -> tuple[Message, ...]:
    failed = [c for c in checks if c.status != "passed"]
    carried = [check_message(c) for c in checks if c.status == "passed" and c.carried_from]
    carried = sorted({m.flat(): m for m in carried}.values(), key=Message.flat)
    if not failed:
        return tuple(carried)
    errors = {c.student_error for c in failed}
    if len(failed) == len(checks) and len(errors) == 1 and None not in errors:
        # Missing or raising everywhere: say it once, not once per check.
        same = len({c.message for c in failed}) == 1
        return (Message(failed[0].message if failed[0].status == "error" or same
                        else _error_text(failed[0])),)
    grouped: dict[str, list[str]] = {}
    for check in failed:
        grouped.setdefault(check.message, []).append(check.title)
    return tuple(Message(f"{'; '.join(titles)}: {message}")
                 for message, titles in grouped.items()) + tuple(carried)


def _error_text(check: CheckResult) -> str:
    """The error every check of a part met, told of the part's function: a missing function
    or what it raised (any other error, a hang or a crash, as its checks told it)."""
    kind, type_name, message = check.student_error or ("", "", "")
    if kind not in (ErrorKind.MISSING, ErrorKind.RAISED):
        return check.message
    return StudentError(kind, type_name, message, function=check.part).describe()


def total(scores: Mapping[str, PartScore]) -> tuple[float, float]:
    """(points, max_points) over all parts."""
    return sum(s.points for s in scores.values()), sum(s.max_points for s in scores.values())


# ------------------------------------------------------------ other parts


def merge_part_scores(
    code_scores: Mapping[str, PartScore], extra_scores: Mapping[str, PartScore]
) -> dict[str, PartScore]:
    """All parts in one mapping (code parts first); a part may come from one source only."""
    overlap = set(code_scores) & set(extra_scores)
    if overlap:
        raise ValueError(f"parts graded twice: {sorted(overlap)}")
    merged = dict(code_scores)
    merged.update({part: replace(score) for part, score in extra_scores.items()})
    return merged
