"""``autograder.base.nbgrader_command`` is nbgrader's own command line, started without
rfc3987_syntax's parsers (``autograder.startup.prepare_process``)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from nbgrader.dbutil import _temp_alembic_ini

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


def test_a_new_gradebook_is_stamped_with_alembics_head_without_the_alembic_command(tmp_path):
    """nbgrader finds the head by running ``alembic heads`` through PATH; ours reads the same
    revision in-process, so it works (and costs no subprocess) where ``alembic`` is not on PATH."""
    bin_dir = Path(sys.executable).parent
    with _temp_alembic_ini("sqlite:////tmp/unused.db") as ini:
        heads = run([str(bin_dir / "alembic"), "-c", ini, "heads"])
    expected = heads.stdout.split()[0]
    no_alembic = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    args = ("db", "student", "add", "ada", f"--CourseDirectory.root={tmp_path}")
    theirs = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=tmp_path,
                            env=no_alembic, capture_output=True, text=True, timeout=120)
    assert theirs.returncode != 0 and "alembic" in theirs.stderr  # nbgrader needs the command
    (tmp_path / "gradebook.db").unlink(missing_ok=True)
    ours = subprocess.run(nbgrader_command(*args), cwd=tmp_path, env=no_alembic,
                          capture_output=True, text=True, timeout=120)
    assert ours.returncode == 0, ours.stderr
    with sqlite3.connect(tmp_path / "gradebook.db") as db:
        assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [(expected,)]
        assert db.execute("SELECT id FROM student").fetchall() == [("ada",)]
