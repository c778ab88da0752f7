"""A cohort released with an older notebook is refused, not charged for parts it never had.

When a part is added to the assignment (self- and cross-attention were), a course root
whose ``release/`` predates it holds a notebook without that part's cell. Grading it
with the current checks would cost every student those points; ``autograde`` and
``cohort grade`` refuse with one line instead, naming the missing parts.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.authoring.release import missing_parts
from autograder.authoring.sync import grade_id
from autograder.integrations.cohorts.config import Cohort
from autograder.integrations.cohorts.workflow import WorkflowError, grade
from tests.support.cli import one_line_error
from tests.support.h2 import SPEC

OLDER_PARTS = ("self_attention", "cross_attention")
RELEASE_DIR = SPEC.release_dir


def older_release(folder: Path) -> Path:
    """A copy of the current release without the cells of ``OLDER_PARTS`` (as released before them)."""
    shutil.copytree(RELEASE_DIR, folder)
    notebook = nbformat.read(folder / SPEC.notebook, as_version=4)
    dropped = {name for part in OLDER_PARTS for name in (part, SPEC.part(part).grade_cell)}
    notebook.cells = [cell for cell in notebook.cells if grade_id(cell) not in dropped]
    nbformat.write(notebook, folder / SPEC.notebook)
    return folder


def test_the_current_release_has_every_part():
    assert missing_parts(RELEASE_DIR, SPEC) == []


def test_an_older_release_names_the_parts_it_lacks(tmp_path):
    assert missing_parts(older_release(tmp_path / "release"), SPEC) == list(OLDER_PARTS)


def test_autograde_refuses_a_course_released_with_an_older_notebook(tmp_path, course_factory):
    root = course_factory(tmp_path / "course", {"s1": "correct"})
    older_release(root / "release" / SPEC.name)
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "autograde", SPEC.name, "--root", str(root)],
        capture_output=True, text=True, timeout=120,
    )
    line = one_line_error(done)
    assert "self_attention, cross_attention" in line and "older notebook" in line
    assert not (root / "autograded").exists()  # nobody was charged


def test_cohort_grade_refuses_a_cohort_released_with_an_older_notebook(tmp_path):
    root = tmp_path / "cohort-a"
    older_release(root / "release" / SPEC.name)
    (root / "nbgrader_config.py").write_text("c = get_config()\n")
    cohort = Cohort(name="a", course_id="h2-a", due=None, root=root, exchange=tmp_path / "exchange",
                    assignment=SPEC.name)
    with pytest.raises(WorkflowError, match="self_attention, cross_attention"):
        grade(cohort)
