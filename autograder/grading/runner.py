"""Run the hidden checks in-process with pytest, for one submission.

Torch and the reference are imported once by the trusted process; each run
re-uses the imported check modules, so a run costs pytest's bookkeeping plus
the student's calls. Results come back in a fixed order (notebook part
order, then collection order), so grading twice gives identical results.
"""

from __future__ import annotations

import contextlib
import io
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest

from autograder.grading.carried_forward import stood_in
from autograder.grading.check_points import check_points
from autograder.grading.plugin import CheckPlugin, CheckResult, describe_item, verdict, weighted
from autograder.grading.student import Student
from autograder.spec import SPEC, AssignmentSpec

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


@cache
def collect_checks() -> tuple[CollectedCheck, ...]:
    """Collect the checks once per process (pytest's own collection, markers checked), with
    their points under the packaged spec (``SpecError`` if it does not fit them)."""
    plugin = _CollectPlugin()
    validator = CheckPlugin(None, None)  # type: ignore[arg-type]  (only its collection hooks run)
    checks_dir = SPEC.checks_dir
    args = [str(checks_dir), "-c", str(checks_dir / "pytest.ini"), "--rootdir", str(checks_dir),
            *PYTEST_ARGS, "--collect-only"]
    sink = io.StringIO()
    with _no_plugin_autoload(), contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        exit_code = pytest.main(args, plugins=[plugin, _CollectionValidator(validator)])
    if validator.problems or exit_code != pytest.ExitCode.OK or not plugin.items:
        raise GradingError(f"hidden checks did not collect (exit {exit_code}): {validator.problems}\n"
                           f"{sink.getvalue()[-3000:]}")
    if any(set(item.fixturenames) - FIXTURES for item in plugin.items):
        raise GradingError("a check uses a fixture other than `student` and `reference`")
    return with_points(tuple(CollectedCheck(describe_item(item), item.function) for item in plugin.items), SPEC)


def with_points(checks: tuple[CollectedCheck, ...], spec: AssignmentSpec) -> tuple[CollectedCheck, ...]:
    """``checks`` with their points under ``spec``: each check's share of its part's points."""
    points = check_points([weighted(check.common) for check in checks], spec)
    return tuple(CollectedCheck({**check.common, "max_points": share}, check.function)
                 for check, share in zip(checks, points, strict=True))


class _CollectionValidator:
    """Reuses CheckPlugin's collection checks (every check has a part, points and requires)."""

    def __init__(self, plugin: CheckPlugin) -> None:
        self.pytest_configure = plugin.pytest_configure
        self.pytest_collectreport = plugin.pytest_collectreport
        self.pytest_collection_modifyitems = plugin.pytest_collection_modifyitems


def run_checks(
    student: Student, *, select: str | None = None, via_pytest: bool = False,
    spec: AssignmentSpec | None = None,
) -> list[CheckResult]:
    """Every hidden check's verdict on ``student``, worth its share of its part's points
    in ``spec`` (the packaged spec by default; another one to try a change of points).

    The checks are pytest tests, collected once per process; each submission
    then calls them directly with the two fixtures they take (about 20x less
    overhead than a pytest session per submission). ``via_pytest`` (or a ``-k``
    expression in ``select``) runs a full pytest session instead; a test proves
    both give identical results.
    """
    import solutions  # the reference; imported here so importing this module stays cheap

    spec = SPEC if spec is None else spec
    if not via_pytest and not select:
        checks = collect_checks() if spec is SPEC else with_points(collect_checks(), spec)
        results = []
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            for check in checks:
                stand_ins(student)  # those of earlier checks are theirs
                try:
                    check.function(student=student, reference=solutions)
                except (KeyboardInterrupt, SystemExit):
                    raise
                except BaseException as exc:  # noqa: BLE001 - every failure is a verdict
                    result = verdict(dict(check.common), exc)
                else:
                    result = verdict(dict(check.common), None)
                results.append(stood_in(result, stand_ins(student)))
        return _in_part_order(results, spec)

    plugin = CheckPlugin(student, solutions, spec)
    checks_dir = SPEC.checks_dir
    args = [str(checks_dir), "-c", str(checks_dir / "pytest.ini"), "--rootdir", str(checks_dir), *PYTEST_ARGS]
    if select:
        args += ["-k", select]
    sink = io.StringIO()
    with _no_plugin_autoload(), contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        exit_code = pytest.main(args, plugins=[plugin])
    if plugin.spec_error is not None:
        raise plugin.spec_error
    if plugin.problems or exit_code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        raise GradingError(f"hidden checks did not run cleanly (exit {exit_code}): {plugin.problems}\n{sink.getvalue()[-3000:]}")
    return _in_part_order(plugin.results, spec)


def stand_ins(student: Student) -> tuple[str, ...]:
    """The blocks the sandbox answered for since last asked (none outside a sandbox)."""
    take = getattr(student, "take_stand_ins", None)
    return take() if callable(take) else ()


def _in_part_order(results: list[CheckResult], spec: AssignmentSpec) -> list[CheckResult]:
    """In the spec's part order, carried-forward passes kept only where a block lost points."""
    from autograder.grading.carried_forward import transfer

    order = {part: index for index, part in enumerate(spec.function_parts)}
    return sorted(transfer(results, spec.function_parts), key=lambda r: order.get(r.part, len(order)))


@contextlib.contextmanager
def _no_plugin_autoload() -> object:
    """Third-party pytest plugins (xdist, randomly...) must not shape a grading run."""
    previous = os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
        else:
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = previous
