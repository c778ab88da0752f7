"""Importing the package changes nothing in the process; a grader process's entry point sets
up what it needs (``autograder.startup``)."""

from __future__ import annotations

import subprocess
import sys

BLOCKED = "print(sys.modules.get('rfc3987_syntax', 'absent') is None)"


def _run(code: str) -> str:
    """``code`` in a fresh interpreter (this one has been prepared by conftest)."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip().splitlines()[-1]


def test_importing_the_package_and_its_sandbox_changes_nothing():
    modules = "autograder, autograder.cli, autograder.sandbox.client, autograder.untrusted.worker"
    assert _run(f"import sys, {modules}\n{BLOCKED}") == "False"


def test_the_command_line_prepares_its_process_before_dispatch():
    code = f"""
import sys
from autograder.cli import main
try:
    main(["--help"])
except SystemExit:
    pass
{BLOCKED}
"""
    assert _run(code) == "True"
