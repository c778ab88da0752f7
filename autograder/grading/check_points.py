"""A hidden check's points: its share, by weight, of its part's points in the spec.

Points have one home. The spec (a bundle's ``assignment.toml``) holds each part's
points, beside the other parts' and the total they must reach, where an instructor
changes them. A check declares only a relative ``weight`` (``@pytest.mark.part(name,
weight=2, requires=...)``, 1 if left out), beside the code it weighs, where a developer
judges how much it matters within its function. A part's points are shared among its
checks in proportion to their weights by the largest-remainder method: whole numbers
that add up exactly to the part's points, equal to the weights themselves when the part
has as many points as its weights add up to (as every part has today). So a change to a
part's points is one edit in the spec, and the checks follow it.

``autograder.grading.runner.require_consistent_spec`` is what ``sync-solutions``,
``generate-release`` and ``autograde`` call first: a spec that contradicts itself or the
checks is refused before anything is written or graded, in one line (``autograder.cli``).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import floor
from typing import TYPE_CHECKING, NamedTuple

from autograder.spec import SpecError

if TYPE_CHECKING:
    from autograder.assignments import Assignment
    from autograder.spec import AssignmentSpec

DEFAULT_WEIGHT = 1


class WeightedCheck(NamedTuple):
    """What a check says about its worth: its name, the part it grades, its weight."""

    name: str
    part: str
    weight: int


def apportion(total: int, weights: Sequence[int]) -> list[int]:
    """``total`` split into whole numbers in proportion to ``weights`` (largest remainder;
    ties go to the heavier check, then the earlier one, so the split never varies)."""
    whole = sum(weights)
    quotas = [Fraction(total * weight, whole) for weight in weights]
    shares = [floor(quota) for quota in quotas]
    order = sorted(range(len(weights)), key=lambda i: (shares[i] - quotas[i], -weights[i], i))
    for index in order[: total - sum(shares)]:
        shares[index] += 1
    return shares


def check_points(checks: Sequence[WeightedCheck], spec: AssignmentSpec | Assignment) -> list[int]:
    """Each check's points under ``spec``, in the order given; raises ``SpecError`` (one
    line, every disagreement named) if the spec and the checks do not fit together."""
    parts = spec.function_points
    by_part: dict[str, list[int]] = {}
    problems = []
    for index, check in enumerate(checks):
        if check.part in parts:
            by_part.setdefault(check.part, []).append(index)
        else:
            problems.append(f"check {check.name} grades part {check.part!r}, which the spec does not have")
    problems += [f"part {part!r} has no hidden checks" for part in parts if part not in by_part]
    points = [0] * len(checks)
    for part, indices in by_part.items():
        shares = apportion(parts[part], [checks[index].weight for index in indices])
        for index, share in zip(indices, shares, strict=True):
            points[index] = share
        if 0 in shares:
            problems.append(f"part {part!r}: {parts[part]} points shared by weight among its "
                            f"{len(indices)} checks leave some with none")
    if problems:
        raise SpecError("the assignment spec does not fit the hidden checks: " + "; ".join(problems))
    return points

