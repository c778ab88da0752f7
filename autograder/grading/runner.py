"""Run an assignment's hidden checks in-process, for one submission.

The checks are pytest tests: pytest collects them once per process (its own collection,
markers checked), and each submission then calls them directly with the two fixtures
they take (``student`` and ``reference``), about 20x less overhead than a pytest session
per submission. The reference and the checks' libraries are imported once by the trusted
process. Results come back in a fixed order (the assignment's part order, then collection
order), so grading twice gives identical results.
"""

from __future__ import annotations

import contextlib
import io
import os
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from autograder.base.stages import stage
from autograder.grading.carried_forward import stood_in, transfer
from autograder.grading.check_modules import check_module_names
from autograder.grading.check_points import check_points
from autograder.grading.plugin import CheckResult, CheckValidator, describe_item, verdict, weighted
from autograder.grading.student import Student

if TYPE_CHECKING:
    from autograder.assignments import Assignment
    from autograder.spec import AssignmentSpec

PYTEST_ARGS = (
    "-q",
    "-p", "no:cacheprovider",
    "-p", "no:randomly",
    "-p", "no:xdist",
    "-p", "no:faulthandler",
    "-p", "no:logging",
    "-p", "no:junitxml",
    "-p", "no:pastebin",
    "-p", "no:doctest",
    "-p", "no:warnings",
    "-p", "no:unraisableexception",  # its teardown runs gc.collect() twice per session
    "-p", "no:threadexception",
    "--assert=plain",
    "--tb=no",
    "--capture=no",
    "--no-header",
    "-o", "console_output_style=classic",
)


FIXTURES = frozenset({"student", "reference"})


class GradingError(RuntimeError):
    """The checks themselves could not run (a grader bug, not a student's)."""


@dataclass(frozen=True)
class CollectedCheck:
    """A hidden check as pytest collected it: what it grades (``describe_item``'s fields
    and ``max_points``, its share of its part's points) and the function to call."""

    common: dict[str, Any]
    function: Callable[..., Any]


class _CollectPlugin:
    def __init__(self) -> None:
        self.items: list[pytest.Item] = []

    @pytest.fixture
    def student(self) -> None:  # collection only needs the fixtures to exist
        return None

    @pytest.fixture
    def reference(self) -> None:
        return None

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.items = list(session.items)


def pytest_args(checks_dir: Path) -> list[str]:
    """How pytest is run on a folder of checks: its own ``pytest.ini`` and rootdir, none of
    the project's configuration, no plugin that would shape a grading run."""
    return [str(checks_dir), "-c", str(checks_dir / "pytest.ini"), "--rootdir", str(checks_dir),
            *PYTEST_ARGS]


@cache
def collect_checks(assignment: Assignment) -> tuple[CollectedCheck, ...]:
    """``assignment``'s checks, collected once per process, in its part order, each with its
    points under its spec (``SpecError`` if the spec does not fit them, or if a module of its
    checks folder would be imported as another of the same name)."""
    check_module_names(assignment.checks_dir, assignment.name)
    return with_points(in_part_order(_collected(assignment.checks_dir),
                                     assignment.function_parts), assignment)


@cache
def _collected(checks_dir: Path) -> tuple[CollectedCheck, ...]:
    """pytest's collection of a folder of checks (once per folder and process)."""
    plugin = _CollectPlugin()
    validator = CheckValidator()
    sink = io.StringIO()
    with own_pytest_environment(), contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        exit_code = pytest.main([*pytest_args(checks_dir), "--collect-only"],
                                plugins=[plugin, validator])
    if validator.problems or exit_code != pytest.ExitCode.OK or not plugin.items:
        raise GradingError(f"hidden checks did not collect (exit {exit_code}): {validator.problems}\n"
                           f"{sink.getvalue()[-3000:]}")
    if any(set(item.fixturenames) - FIXTURES for item in plugin.items):
        raise GradingError("a check uses a fixture other than `student` and `reference`")
    return tuple(CollectedCheck(describe_item(item), item.function) for item in plugin.items)


def require_consistent_spec(assignment: Assignment) -> None:
    """Raise ``SpecError`` unless ``assignment``'s spec is sound and fits its hidden checks.

    Loading the spec checks it against itself (sections add up to the evidence part,
    parts to the total); collecting the checks gives each its points under it
    (``check_points``). Called first by the commands that release or grade, so a bad spec
    stops them before they write a notebook or a grade, instead of turning every
    submission into a grader error."""
    collect_checks(assignment)


def in_part_order(checks: Sequence[CollectedCheck], parts: Sequence[str]) -> tuple[CollectedCheck, ...]:
    """``checks`` in the order of ``parts`` (collection order within a part). Building
    blocks come before the functions built on them, so a block that hangs or crashes does so
    first in its own checks, where it is charged; the calls other functions make to it are
    then answered for it (``autograder.sandbox.client``)."""
    order = {part: index for index, part in enumerate(parts)}
    return tuple(sorted(checks, key=lambda check: order.get(check.common["part"], len(order))))


def with_points(checks: Sequence[CollectedCheck], spec: AssignmentSpec | Assignment) -> tuple[CollectedCheck, ...]:
    """``checks`` with their points under ``spec``: each check's share of its part's points."""
    points = check_points([weighted(check.common) for check in checks], spec)
    return tuple(CollectedCheck({**check.common, "max_points": share}, check.function)
                 for check, share in zip(checks, points, strict=True))


def run_checks(student: Student, assignment: Assignment) -> list[CheckResult]:
    """Every hidden check of ``assignment``'s verdict on ``student``, worth its share of its
    part's points in the assignment's spec."""
    reference = assignment.reference
    results = []
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        for check in collect_checks(assignment):
            stand_ins(student)  # those of earlier checks are theirs
            try:
                with stage(f"checks: {check.common['part']}"):
                    check.function(student=student, reference=reference)
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as exc:  # noqa: BLE001 - every failure is a verdict
                result = verdict(dict(check.common), exc)
            else:
                result = verdict(dict(check.common), None)
            results.append(stood_in(result, stand_ins(student)))
    return settled(results, assignment.function_parts)


def stand_ins(student: Student) -> tuple[str, ...]:
    """The blocks the sandbox answered for since last asked (none outside a sandbox)."""
    take = getattr(student, "take_stand_ins", None)
    return take() if callable(take) else ()


def settled(results: list[CheckResult], parts: Sequence[str]) -> list[CheckResult]:
    """In the order of ``parts``, carried-forward passes kept only where a block lost points."""
    order = {part: index for index, part in enumerate(parts)}
    return sorted(transfer(results, parts), key=lambda r: order.get(r.part, len(order)))


# What pytest reads from the environment besides its arguments, and the value a collection of
# hidden checks runs with: no third-party plugin (xdist, randomly...) loaded by itself or by
# name, and no option a TA's shell (or the suite running the grader) adds to every pytest.
PYTEST_ENVIRONMENT = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTEST_PLUGINS": None,
                      "PYTEST_ADDOPTS": None}


@contextlib.contextmanager
def own_pytest_environment() -> Iterator[None]:
    """Nothing of the environment's pytest settings shapes a grading run (a stray
    ``PYTEST_ADDOPTS=--some-plugin-option`` once made every check a grader error)."""
    previous = {name: os.environ.get(name) for name in PYTEST_ENVIRONMENT}
    _set(PYTEST_ENVIRONMENT)
    try:
        yield
    finally:
        _set(previous)


def _set(values: dict[str, str | None]) -> None:
    for name, value in values.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
