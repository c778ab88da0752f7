"""The pytest plugin that runs hidden checks against one submission and records verdicts.

It provides the ``student`` and ``reference`` fixtures, registers the
``part`` marker (graded part, points, and ``requires``: the clause of the
release notebook that states the rule the check enforces), and turns each
check's outcome into a ``CheckResult``:
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
from autograder.grading.student import Student, StudentError

Status = Literal["passed", "failed", "error"]
GENERIC_MESSAGE = "This check could not evaluate your function's result."
# What ``describe_item`` knows about a check but a result (results.json) does not carry.
NOT_IN_RESULTS = frozenset({"requires"})


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

    def __init__(self, student: Student, reference: types.ModuleType) -> None:
        self._student = student
        self._reference = reference
        self.results: list[CheckResult] = []
        self.problems: list[str] = []

    def pytest_configure(self, config: pytest.Config) -> None:
        config.addinivalue_line(
            "markers",
            "part(name, points, requires): graded part and points of a check, and the clause of "
            "the release notebook that states the rule it enforces",
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

        order = {part: index for index, part in enumerate(SPEC.function_parts)}
        items.sort(key=lambda item: order.get(describe_item(item)["part"], len(order)))
        for item in items:
            marker = item.get_closest_marker("part")
            if marker is None or not marker.args or "points" not in marker.kwargs:
                self.problems.append(f"{item.nodeid}: missing @pytest.mark.part(name, points=...)")
            elif not _requires(marker):
                self.problems.append(
                    f"{item.nodeid}: missing requires=... in @pytest.mark.part: the clause of the "
                    "release notebook that states the rule this check enforces"
                )

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[Any]) -> Any:
        from autograder.grading.carried_forward import stood_in
        from autograder.grading.runner import stand_ins

        if call.when == "setup":
            stand_ins(self._student)  # those of earlier checks are theirs
        report = yield
        if call.when == "call" or (call.when == "setup" and report.failed):
            self.results.append(stood_in(_verdict(item, call), stand_ins(self._student)))
        return report


def describe_item(item: pytest.Item) -> dict[str, Any]:
    """Name, title, part, points and ``requires`` (the notebook clause the check
    traces to) of a collected check. ``requires`` is for the teaching team and the
    traceability test; ``verdict`` leaves it out of the ``CheckResult``."""
    marker = item.get_closest_marker("part")
    part = str(marker.args[0]) if marker and marker.args else "?"
    max_points = int(marker.kwargs.get("points", 0)) if marker else 0
    module = item.nodeid.split("::")[0].rsplit("/", 1)[-1].removesuffix(".py")
    return {
        "name": f"{module}::{item.name}",
        "title": _title(item),
        "part": part,
        "max_points": max_points,
        "requires": _requires(marker) if marker else "",
    }


def _requires(marker: pytest.Mark) -> str:
    """The marker's ``requires`` clause, stripped; empty if missing or not text."""
    requires = marker.kwargs.get("requires")
    return requires.strip() if isinstance(requires, str) else ""


def _verdict(item: pytest.Item, call: pytest.CallInfo[Any]) -> CheckResult:
    return verdict(describe_item(item), call.excinfo.value if call.excinfo else None)


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
