"""Why a test skipped, and the one command that gives it what it needs.

A test that needs something this machine lacks skips with ``needs(what, command)`` (or
``install(what, command)``): its reason reads "<what is missing> — <the command>". The run's
closing summary (``tests/conftest.py``'s ``pytest_terminal_summary``) groups the skips by
reason, one line a reason, most first::

    3 skipped: Chromium not installed — install with: apt-get install -y chromium chromium-driver
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import pytest

AS_ROOT = "run the tests as root (CI does): sudo make test"


def needs(what: str, command: str) -> str:
    """A skip's reason: what is missing, then what to run to have it."""
    return f"{what} — {command}"


def install(what: str, command: str) -> str:
    """A skip's reason: what is not installed, then the command that installs it."""
    return needs(what, f"install with: {command}")


def reason(report: pytest.TestReport) -> str:
    """The reason a skipped test's report gives (``pytest.skip``, ``skipif``)."""
    if isinstance(report.longrepr, tuple):  # (path, line, "Skipped: <reason>")
        return str(report.longrepr[2]).removeprefix("Skipped: ")
    return str(report.longrepr)


def summary_lines(reports: Iterable[pytest.TestReport]) -> list[str]:
    """``"<n> skipped: <reason>"`` for each reason of the skipped tests, most first."""
    counts = Counter(reason(report) for report in reports
                     if report.skipped and not hasattr(report, "wasxfail"))
    return [f"{count} skipped: {why}"
            for why, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]
