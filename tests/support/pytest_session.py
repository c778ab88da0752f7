"""The hidden checks run as a full pytest session: the tests' second way of running them.

The grader calls the collected checks directly (``autograder.grading.runner.run_checks``);
a test proves that gives exactly what a pytest session with fixtures, markers and report
hooks gives (``tests/grading/test_fast_runner.py``), and may select checks with ``-k``.
"""

from __future__ import annotations

import contextlib
import io
import types
from typing import Any

import pytest

from autograder.assignments import Assignment
from autograder.grading.carried_forward import stood_in
from autograder.grading.check_points import check_points
from autograder.grading.plugin import CheckResult, CheckValidator, describe_item, verdict, weighted
from autograder.grading.runner import (
    GradingError,
    own_pytest_environment,
    pytest_args,
    settled,
    stand_ins,
)
from autograder.grading.student import Student
from autograder.spec import AssignmentSpec, SpecError


class CheckPlugin(CheckValidator):
    """Passed to ``pytest.main(plugins=[...])``: the ``student`` and ``reference`` fixtures,
    the checks in ``spec``'s part order with their points under it, and ``results``."""

    def __init__(self, student: Student, reference: types.ModuleType | None,
                 spec: AssignmentSpec | Assignment) -> None:
        super().__init__()
        self._student = student
        self._reference = reference
        self._spec = spec
        self.results: list[CheckResult] = []
        self.points: dict[str, int] = {}  # nodeid -> the check's points under the spec
        self.spec_error: SpecError | None = None

    @pytest.fixture
    def student(self) -> Student:
        return self._student

    @pytest.fixture
    def reference(self) -> types.ModuleType | None:
        return self._reference

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        super().pytest_collection_modifyitems(items)
        order = {part: index for index, part in enumerate(self._spec.function_parts)}
        items.sort(key=lambda item: order.get(describe_item(item)["part"], len(order)))
        if self.problems:
            return
        try:
            points = check_points([weighted(describe_item(item)) for item in items], self._spec)
        except SpecError as error:
            self.spec_error = error
            return
        self.points = {item.nodeid: share for item, share in zip(items, points, strict=True)}

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[Any]) -> Any:
        if call.when == "setup":
            stand_ins(self._student)  # those of earlier checks are theirs
        report = yield
        if call.when == "call" or (call.when == "setup" and report.failed):
            common = {**describe_item(item), "max_points": self.points.get(item.nodeid, 0)}
            result = verdict(common, call.excinfo.value if call.excinfo else None)
            self.results.append(stood_in(result, stand_ins(self._student)))
        return report


def run_in_pytest_session(student: Student, assignment: Assignment, *,
                          select: str | None = None) -> list[CheckResult]:
    """What ``run_checks(student, assignment)`` gives, from one pytest session over the
    assignment's checks (only those a ``-k`` expression ``select`` picks, if given)."""
    plugin = CheckPlugin(student, assignment.reference, assignment)
    args = pytest_args(assignment.checks_dir)
    if select:
        args += ["-k", select]
    sink = io.StringIO()
    with own_pytest_environment(), contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        exit_code = pytest.main(args, plugins=[plugin])
    if plugin.spec_error is not None:
        raise plugin.spec_error
    if plugin.problems or exit_code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        raise GradingError(f"hidden checks did not run cleanly (exit {exit_code}): "
                           f"{plugin.problems}\n{sink.getvalue()[-3000:]}")
    return settled(plugin.results, assignment.function_parts)
