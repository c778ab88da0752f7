"""``autograder.base.nbgrader_command`` is nbgrader's own command line, started without
rfc3987_syntax's parsers (``autograder.startup.prepare_process``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from autograder.base.nbgrader_command import nbgrader_command

pytestmark = pytest.mark.slow  # nbgrader processes


def run(command: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120,
                          check=False)


@pytest.mark.parametrize(("args", "status"), [
    (("--version",), 0),
    (("generate_assignment", "no-such-assignment"), 1),  # no source folder: nbgrader's error
])
def test_it_answers_as_nbgrader_does(args, status, tmp_path):
    ours = run(nbgrader_command(*args), tmp_path)
    theirs = run([sys.executable, "-m", "nbgrader", *args], tmp_path)
    assert (ours.returncode, ours.stdout) == (theirs.returncode, theirs.stdout)
    assert ours.returncode == status, ours.stderr


def test_it_starts_without_building_rfc3987_syntaxs_parsers():
    done = run([sys.executable, "-X", "importtime", "-m", "autograder.base.nbgrader_command",
                "--version"])
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert "nbgrader.apps.nbgraderapp" in imported and "jsonschema" in imported, done.stderr
    assert "rfc3987_syntax.syntax_helpers" not in imported
