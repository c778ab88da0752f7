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

from autograder.grading import misconceptions
from autograder.grading.plugin import CheckResult
from autograder.spec import SPEC


@dataclass(frozen=True)
class PartScore:
    """Points and feedback for one graded part."""

    part: str
    points: float
    max_points: float
    messages: tuple[str, ...] = ()
    diagnoses: tuple[str, ...] = ()
    checks: tuple[CheckResult, ...] = ()
    needs_review: bool = False

    def explanations(self) -> tuple[str, ...]:
        """Student-facing text of this part's diagnoses."""
        return tuple(misconceptions.explain(code) for code in self.diagnoses if code in misconceptions.MISCONCEPTIONS)


def score_parts(results: Iterable[CheckResult], part_points: Mapping[str, int] | None = None) -> dict[str, PartScore]:
    """Points per part (in ``part_points`` order, the spec's function parts by default);
    raises if checks and parts disagree."""
    part_points = SPEC.function_points if part_points is None else part_points
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
        scores[part] = PartScore(
            part=part,
            points=sum(c.points for c in checks),
            max_points=available,
            messages=_messages(checks),
            diagnoses=_diagnoses(checks),
            checks=tuple(checks),
        )
    return scores


def _messages(checks: list[CheckResult]) -> tuple[str, ...]:
    failed = [c for c in checks if c.status != "passed"]
    carried = sorted({c.message for c in checks if c.status == "passed" and c.message})
    if not failed:
        return tuple(carried)
    errors = {c.student_error for c in failed}
    if len(failed) == len(checks) and len(errors) == 1 and None not in errors:
        # Missing or raising everywhere: say it once, not once per check.
        same = len({c.message for c in failed}) == 1
        return (failed[0].message if failed[0].status == "error" or same
                else _error_text(failed[0]),)
    grouped: dict[str, list[str]] = {}
    for check in failed:
        grouped.setdefault(check.message, []).append(check.title)
    return tuple(f"{'; '.join(titles)}: {message}" for message, titles in grouped.items()) + tuple(
        carried)


def _error_text(check: CheckResult) -> str:
    kind, type_name, message = check.student_error or ("", "", "")
    function = f"`{check.part}`"
    if kind == "missing":
        return f"{function} was not found: define it (with this exact name) in its solution cell"
    if kind == "raised":
        return f"{function} raised {type_name}" + (f": {message}" if message else "")
    return check.message


def _diagnoses(checks: list[CheckResult]) -> tuple[str, ...]:
    order = list(misconceptions.MISCONCEPTIONS)
    found = {code for c in checks for code in c.diagnoses}
    return tuple(sorted(found, key=lambda code: (order.index(code) if code in order else len(order), code)))


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
