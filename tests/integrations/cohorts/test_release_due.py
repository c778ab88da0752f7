"""A student sees the due date before submitting (issue 50, item 6): `cohort release` states
it, with the late policy and how extensions work, in the cohort's ``cohort.json`` and at the
top of the notebook it releases to the exchange; the repository's own release/ stays as
generated from source/ (it belongs to no cohort)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.integrations.cohorts import announce, workflow
from autograder.integrations.cohorts.config import get_cohort
from autograder.spec import REPO
from tests.support.h2 import SPEC

pytestmark = pytest.mark.slow

DUE_AS_WRITTEN = "2030-01-15 00:59:00 +01:00"
DUE_SHOWN = "2030-01-15 00:59 +01:00 = 2030-01-14 23:59 UTC"


def _config(tmp: Path, late_policy: str) -> Path:
    path = tmp / "cohorts.toml"
    path.write_text(f"""
[defaults]
courses_root = "{tmp / 'courses'}"
exchange = "{tmp / 'exchange'}"
{late_policy}
[cohorts.fall-a]
due = "{DUE_AS_WRITTEN}"
""")
    return path


def _release(config: Path) -> subprocess.CompletedProcess:
    bin_dir = str(Path(sys.executable).parent)  # nbgrader's own commands live beside it
    return subprocess.run(
        [sys.executable, "-m", "autograder", "cohort", "--config", str(config), "release",
         "fall-a"], cwd=REPO, capture_output=True, text=True, timeout=600, check=False,
        env={"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(config.parent)})


def test_cohort_release_states_the_due_date_in_cohort_json_and_atop_the_notebook(tmp_path):
    config = _config(tmp_path, "[late_policy]\npercent = 10\nper = \"day\"\ncap = 50\n")
    released = _release(config)
    assert released.returncode == 0, released.stderr
    cohort = get_cohort("fall-a", config)
    outbound = tmp_path / "exchange" / cohort.course_id / "outbound" / SPEC.name

    stated = json.loads((outbound / SPEC.cohort_file).read_text(encoding="utf-8"))
    assert stated["cohort"] == "fall-a"  # what the notebook reads, unchanged
    assert stated["due"] == "2030-01-14T23:59:00+00:00"
    assert stated["due_text"] == DUE_SHOWN
    assert stated["late_policy"].startswith("10% of the maximum per started day late, at most 50%")
    assert "extension" in stated["extensions"]

    notebook = nbformat.read(outbound / SPEC.notebook, as_version=4)
    top = notebook.cells[0]
    assert top.cell_type == "markdown" and top.metadata[announce.MARKER]
    assert f"**Due: {DUE_SHOWN}** (cohort `fall-a`)" in top.source
    assert "10% of the maximum per started day late, at most 50%" in top.source
    assert "**Extensions:**" in top.source
    # Nothing else of the release moved: the rest is the repository's release, cell by cell.
    repo = nbformat.read(SPEC.release_notebook, as_version=4)
    assert [c.source for c in notebook.cells[1:]] == [c.source for c in repo.cells]
    assert announce.MARKER not in SPEC.release_notebook.read_text(encoding="utf-8")


def test_prepare_root_puts_one_due_cell_however_often_it_runs_and_says_no_penalty(tmp_path):
    """Without a late policy the student is told late work is marked, not penalised; a
    second release replaces the cell, never adds one."""
    cohort = get_cohort("fall-a", _config(tmp_path, ""))
    for _ in range(2):
        workflow.prepare_root(cohort)
    source = cohort.root / "source" / SPEC.name
    cells = nbformat.read(source / SPEC.notebook, as_version=4).cells
    assert sum(announce.MARKER in c.metadata for c in cells) == 1
    assert "no points are taken off for late work" in cells[0].source
    stated = json.loads((source / SPEC.cohort_file).read_text(encoding="utf-8"))
    assert stated["late_policy"].startswith("no points are taken off")
