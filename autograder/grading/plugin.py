"""What a hidden check is and what its verdict is: collection checks, description, verdict.

A check is a pytest test marked ``@pytest.mark.part(name, weight=..., requires=...)``: the
graded part (a function of the student's), its ``weight`` within the part, and the clause of
the release notebook that states the rule it enforces. ``CheckValidator`` refuses, at
collection, a check marked otherwise; ``describe_item`` reads a collected check;
``verdict`` turns how a check ended into a ``CheckResult``:
``CheckFailure`` -> its student-facing message; a ``StudentError`` that
escaped a check -> that error, stated plainly; anything else -> a generic
message (the detail is kept in ``internal`` for the teaching team, never
shown to the student). Running the checks is ``autograder.grading.runner``'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import pytest

from autograder.grading.assertions import CarriedForward, CheckFailure
from autograder.grading.check_points import DEFAULT_WEIGHT, WeightedCheck
from autograder.grading.student import StudentError, reached_out

Status = Literal["passed", "failed", "error"]
GENERIC_MESSAGE = "This check could not evaluate your function's result."
# What ``describe_item`` knows about a check but a result (results.json) does not carry.
NOT_IN_RESULTS = frozenset({"requires", "weight"})


@dataclass(frozen=True)
class CheckResult:
    """One hidden check's verdict on one submission."""

    name: str
    title: str
    part: str
    max_points: int
    points: int
    status: Status
    message: str = ""
    diagnoses: tuple[str, ...] = ()
    student_error: tuple[str, str, str] | None = None
    internal: str = field(default="", compare=True)
    # A pass carried forward: the building blocks it names, and the verdict without it
    # (what stands if none of them lost points in its own part: carried_forward.transfer).
    carried_from: tuple[str, ...] = ()
    instead: CheckResult | None = None
    carried_error: bool = False  # what was carried forward is an error a block raised
    # The student's code named a path of the grading machine (hidden from ``message``): it
    # reached outside its submission, and a person looks at the submission.
    reached_out: bool = False


class CheckValidator:
    """pytest hooks that refuse a check marked otherwise than a check must be (no part, no
    ``requires``, points of its own, a weight that is not a whole number >= 1): passed to
    ``pytest.main(plugins=[...])`` when the checks are collected; ``problems`` says which."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def pytest_configure(self, config: pytest.Config) -> None:
        config.addinivalue_line(
            "markers",
            "part(name, weight, requires): graded part of a check, its weight within the part "
            "(default 1; the part's points are the spec's), and the clause of the release "
            "notebook that states the rule it enforces",
        )

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.problems.append(f"collection failed: {report.nodeid}: {report.longreprtext[-2000:]}")

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            marker = item.get_closest_marker("part")
            if marker is None or not marker.args:
                self.problems.append(f"{item.nodeid}: missing @pytest.mark.part(name, requires=...)")
            elif "points" in marker.kwargs:
                self.problems.append(
                    f"{item.nodeid}: points=... in @pytest.mark.part: a part's points are the "
                    "spec's; give the check a weight=... within its part instead"
                )
            elif not _is_weight(marker.kwargs.get("weight", DEFAULT_WEIGHT)):
                self.problems.append(f"{item.nodeid}: weight= must be a whole number >= 1")
            elif not _requires(marker):
                self.problems.append(
                    f"{item.nodeid}: missing requires=... in @pytest.mark.part: the clause of the "
                    "release notebook that states the rule this check enforces"
                )


def describe_item(item: pytest.Item) -> dict[str, Any]:
    """Name, title, part, weight and ``requires`` (the notebook clause the check
    traces to) of a collected check. Its points are not the check's to say: they are
    its share of the part's (``check_points``), added as ``max_points`` once every
    check is known. ``requires`` and ``weight`` are for the teaching team and the
    tests; ``verdict`` leaves them out of the ``CheckResult``."""
    marker = item.get_closest_marker("part")
    part = str(marker.args[0]) if marker and marker.args else "?"
    weight = marker.kwargs.get("weight", DEFAULT_WEIGHT) if marker else DEFAULT_WEIGHT
    module = item.nodeid.split("::")[0].rsplit("/", 1)[-1].removesuffix(".py")
    return {
        "name": f"{module}::{item.name}",
        "title": _title(item),
        "part": part,
        "weight": weight,
        "requires": _requires(marker) if marker else "",
    }


def weighted(common: dict[str, Any]) -> WeightedCheck:
    """The fields of ``describe_item``'s answer that decide a check's points."""
    return WeightedCheck(common["name"], common["part"], common["weight"])


def _is_weight(value: object) -> bool:
    return type(value) is int and value >= 1


def _requires(marker: pytest.Mark) -> str:
    """The marker's ``requires`` clause, stripped; empty if missing or not text."""
    requires = marker.kwargs.get("requires")
    return requires.strip() if isinstance(requires, str) else ""


def verdict(common: dict[str, Any], exc: BaseException | None) -> CheckResult:
    """A check's result from how it ended: no exception, a ``CheckFailure``, a
    ``StudentError`` that escaped, or anything else (a generic message)."""
    common = {key: value for key, value in common.items() if key not in NOT_IN_RESULTS}
    max_points = common["max_points"]
    if exc is None:
        return CheckResult(**common, points=max_points, status="passed")
    if isinstance(exc, CarriedForward):
        instead = verdict(common, exc.failure) if exc.failure is not None else None
        return CheckResult(**common, points=max_points, status="passed", message=exc.message,
                           carried_from=exc.blocks, instead=instead, carried_error=exc.raised)
    if isinstance(exc, CheckFailure):
        error = exc.student_error.signature() if exc.student_error else None
        return CheckResult(
            **common, points=0, status="failed", message=exc.message,
            diagnoses=exc.diagnoses, student_error=error,
            reached_out=exc.reached_out,
        )
    if isinstance(exc, StudentError):
        return CheckResult(
            **common, points=0, status="error", message=exc.describe(),
            student_error=exc.signature(), reached_out=reached_out(exc),
        )
    detail = f"{type(exc).__name__}: {exc}"[:2000]
    return CheckResult(**common, points=0, status="error", message=GENERIC_MESSAGE, internal=detail)


def _title(item: pytest.Item) -> str:
    """First docstring line of the check: what it verifies, in student terms."""
    doc = getattr(getattr(item, "function", None), "__doc__", None) or item.name
    return doc.strip().splitlines()[0].rstrip(".")
