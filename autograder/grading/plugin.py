"""The pytest plugin that runs hidden checks against one submission and records verdicts.

It provides the ``student`` and ``reference`` fixtures, registers the
``part`` marker (graded part, ``weight`` within it, and ``requires``: the clause
of the release notebook that states the rule the check enforces), gives each
check its share of the part's points in the spec (``check_points``), and turns
each check's outcome into a ``CheckResult``:
``CheckFailure`` -> its student-facing message; a ``StudentError`` that
escaped a check -> that error, stated plainly; anything else -> a generic
message (the detail is kept in ``internal`` for the teaching team, never
shown to the student).
"""

from __future__ import annotations

import types
from dataclasses import dataclass, field
from typing import Any, Literal

import pytest

from autograder.grading.assertions import CarriedForward, CheckFailure
from autograder.grading.check_points import DEFAULT_WEIGHT, WeightedCheck, check_points
from autograder.grading.student import Student, StudentError
from autograder.spec import AssignmentSpec, SpecError

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


class CheckPlugin:
    """Passed to ``pytest.main(plugins=[...])``; collects ``results``."""

    def __init__(
        self, student: Student, reference: types.ModuleType, spec: AssignmentSpec | None = None
    ) -> None:
        self._student = student
        self._reference = reference
        self._spec = spec
        self.results: list[CheckResult] = []
        self.problems: list[str] = []
        self.points: dict[str, int] = {}  # nodeid -> the check's points under the spec
        self.spec_error: SpecError | None = None

    def pytest_configure(self, config: pytest.Config) -> None:
        config.addinivalue_line(
            "markers",
            "part(name, weight, requires): graded part of a check, its weight within the part "
            "(default 1; the part's points are the spec's), and the clause of the release "
            "notebook that states the rule it enforces",
        )

    @pytest.fixture
    def student(self) -> Student:
        """The submission, reachable only by function name with plain data."""
        return self._student

    @pytest.fixture
    def reference(self) -> types.ModuleType:
        """The reference solution module (``solutions``)."""
        return self._reference

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.problems.append(f"collection failed: {report.nodeid}: {report.longreprtext[-2000:]}")

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        # Building blocks are checked before the functions built on them, so a block that
        # hangs or crashes does so first in its own checks, where it is charged; the calls
        # other functions make to it are then answered for it (autograder.sandbox.client).
        from autograder.spec import SPEC

        spec = SPEC if self._spec is None else self._spec
        order = {part: index for index, part in enumerate(spec.function_parts)}
        items.sort(key=lambda item: order.get(describe_item(item)["part"], len(order)))
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
        if self.problems:
            return
        described = [describe_item(item) for item in items]
        try:
            points = check_points([weighted(common) for common in described], spec)
        except SpecError as error:
            self.spec_error = error
            return
        self.points = {item.nodeid: share for item, share in zip(items, points, strict=True)}

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[Any]) -> Any:
        from autograder.grading.carried_forward import stood_in
        from autograder.grading.runner import stand_ins

        if call.when == "setup":
            stand_ins(self._student)  # those of earlier checks are theirs
        report = yield
        if call.when == "call" or (call.when == "setup" and report.failed):
            self.results.append(stood_in(self._verdict(item, call), stand_ins(self._student)))
        return report

    def _verdict(self, item: pytest.Item, call: pytest.CallInfo[Any]) -> CheckResult:
        common = {**describe_item(item), "max_points": self.points.get(item.nodeid, 0)}
        return verdict(common, call.excinfo.value if call.excinfo else None)


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
            diagnoses=exc.diagnosis, student_error=error,
        )
    if isinstance(exc, StudentError):
        return CheckResult(
            **common, points=0, status="error", message=exc.describe(), student_error=exc.signature()
        )
    detail = f"{type(exc).__name__}: {exc}"[:2000]
    return CheckResult(**common, points=0, status="error", message=GENERIC_MESSAGE, internal=detail)


def _title(item: pytest.Item) -> str:
    """First docstring line of the check: what it verifies, in student terms."""
    doc = getattr(getattr(item, "function", None), "__doc__", None) or item.name
    return doc.strip().splitlines()[0].rstrip(".")
