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
from pathlib import Path

import pytest

from autograder.grading.plugin import CheckPlugin, CheckResult
from autograder.grading.points import PART_POINTS
from autograder.student import Student

CHECKS_DIR = Path(__file__).resolve().parent.parent / "checks"
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


class GradingError(RuntimeError):
    """The checks themselves could not run (a grader bug, not a student's)."""


def run_checks(student: Student, *, select: str | None = None) -> list[CheckResult]:
    """Every hidden check's verdict on ``student``; ``select`` is a pytest ``-k`` expression."""
    import solutions  # the reference; imported here so importing this module stays cheap

    plugin = CheckPlugin(student, solutions)
    args = [str(CHECKS_DIR), "-c", str(CHECKS_DIR / "pytest.ini"), "--rootdir", str(CHECKS_DIR), *PYTEST_ARGS]
    if select:
        args += ["-k", select]
    sink = io.StringIO()
    with _no_plugin_autoload(), contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        exit_code = pytest.main(args, plugins=[plugin])
    if plugin.problems or exit_code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        raise GradingError(f"hidden checks did not run cleanly (exit {exit_code}): {plugin.problems}\n{sink.getvalue()[-3000:]}")
    order = {part: index for index, part in enumerate(PART_POINTS)}
    return sorted(plugin.results, key=lambda r: order.get(r.part, len(order)))


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
