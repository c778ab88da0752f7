"""A run's closing summary says why tests were skipped and what to run to have them run
(issue 41): the skips grouped by reason, most first, each reason with its command
(``tests/conftest.py``'s ``pytest_terminal_summary``, ``tests/support/skips.py``). Checked
by pytest itself on a tiny file of skips, in one process and on two workers as ``make test``
runs."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from autograder.spec import REPO
from tests.support.skips import install, needs, summary_lines

TINY = '''
import pytest

from tests.support.skips import install, needs

CHROMIUM = install("Chromium not installed", "apt-get install -y chromium chromium-driver")


@pytest.mark.parametrize("page", ["feedback", "report", "notebook"])
def test_a_page(page):
    pytest.skip(CHROMIUM)


@pytest.mark.skipif(True, reason=needs("needs root", "run the tests as root"))
def test_as_root():
    pass


def test_that_runs():
    pass


@pytest.mark.xfail(strict=True, reason="an expected failure is not a skip")
def test_expected_to_fail():
    assert False
'''

EXPECTED = ["3 skipped: Chromium not installed — install with: apt-get install -y chromium "
            "chromium-driver",
            "1 skipped: needs root — run the tests as root"]


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one process", "two workers"])
def test_the_summary_groups_the_skips_by_reason_with_the_command_each_needs(tmp_path, workers):
    (tmp_path / "test_tiny.py").write_text(TINY, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:cacheprovider",
         "-q", *workers, "test_tiny.py"],
        cwd=tmp_path, capture_output=True, text=True, encoding="utf-8", timeout=300,
        env={**os.environ, "PYTHONPATH": str(REPO), "PYTHONIOENCODING": "utf-8"}, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "skipped: what each needs" in done.stdout, done.stdout
    summary = done.stdout.split("skipped: what each needs", 1)[1]
    assert [line for line in summary.splitlines() if " skipped: " in line] == EXPECTED
    assert "1 passed, 4 skipped, 1 xfailed" in summary.splitlines()[-1]


def test_a_run_without_skips_says_nothing_of_them():
    assert summary_lines([]) == []


def test_the_reasons_read_what_is_missing_then_the_command():
    assert install("zip not installed", "apt-get install -y zip") == (
        "zip not installed — install with: apt-get install -y zip")
    assert needs("no /opt", "sudo mkdir /opt") == "no /opt — sudo mkdir /opt"
