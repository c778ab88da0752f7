"""`make demo`'s `nbgrader export` reads the demo's own gradebook, not the repository's.

The export runs from the repository (whose ``nbgrader_config.py`` nbgrader loads first)
with ``--CourseDirectory.root`` pointing at a graded course root: every student graded
there must be in the export, with the score we gave.
"""

from __future__ import annotations

import csv
import re
import shlex
import subprocess
import sys

import pytest

from autograder.authoring.release import nbgrader_env
from autograder.base.course import RESULTS_JSON
from autograder.results.result import STATUS_GRADED, load
from autograder.spec import REPO
from tests.support.h2 import SPEC
from tests.support.shared_roots import copy_of

pytestmark = pytest.mark.slow


def makefile_export_command(root: str) -> list[str]:
    """The demo target's `nbgrader export` line, with the Makefile's variables filled in."""
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    lines = [line.strip() for line in makefile.splitlines() if "nbgrader export" in line]
    assert len(lines) == 1, "the Makefile should run `nbgrader export` once (make demo)"
    line = lines[0].replace("$(PY)", sys.executable).replace("$(DEMO)", root)
    line = line.replace("$(CURDIR)", str(REPO))
    assert not re.search(r"\$\(", line), f"a Makefile variable the test does not know: {line}"
    return shlex.split(line)


def test_the_demos_export_lists_every_graded_student(tmp_path, graded_sample_cohort):
    """On a copy of the sample cohort graded as the demo grades it (the run's
    ``graded_sample_cohort``): its ungradable notebook has no number in the export."""
    root = copy_of(graded_sample_cohort, tmp_path / "demo")
    results = [load(path) for path in sorted(root.glob(f"autograded/*/{SPEC.name}/{RESULTS_JSON}"))]
    ours = {result.student: result.score for result in results if result.status == STATUS_GRADED}
    assert len(ours) == len(results) - 1 and ours["s001-correct"] == 100

    command = makefile_export_command(str(root))
    done = subprocess.run(command, cwd=REPO, env=nbgrader_env(), capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    with (root / "nbgrader-export.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    theirs = {row["student_id"]: float(row["score"]) for row in rows}
    assert theirs == ours, "nbgrader export must show the course root's gradebook"
