"""Error carried forward for wrong values, as a bundle's checks ask for it
(``autograder.grading.carried_forward.carry_forward``, docs/adding-an-assignment.md): the
vectors bundle's ``normalize`` is built on the student's own ``norm``, and its check composes
them. A ``norm`` that returns wrong values costs points once, in ``norm``, not again in a
``normalize`` that uses it rightly; carry-forward never creates points (a ``normalize`` wrong
in its own way, or one whose ``norm`` is a stub, keeps its zero). Graded in-process (the
checks and the settling as grading runs them) and by ``autograde`` in the sandbox."""

from __future__ import annotations

import json
import subprocess
import sys

import nbformat
import numpy as np
import pytest

from autograder.base.course import RESULTS_JSON
from autograder.grading.carried_forward import close
from autograder.grading.runner import run_checks
from autograder.grading.submission import load_submission
from autograder.spec import REPO
from tests.bundles import students
from tests.support.in_process import InProcessStudent

VECTORS = students.assignment()
FULL = VECTORS.part_points  # dot 3, norm 3, normalize 4


def graded(tmp_path, bugs, *, stub: str = ""):  # noqa: ANN001, ANN202 - results, points
    notebook = students.solved_notebook(bugs=bugs)
    for cell in notebook.cells:  # the stub's solution cell as the student got it
        if stub and cell.metadata.get("nbgrader", {}).get("grade_id") == stub:
            cell.source = f"def {stub}(a):\n    raise NotImplementedError()\n"
    folder = tmp_path / "s1"
    folder.mkdir()
    (folder / f"{students.NAME}.ipynb").write_text(nbformat.writes(notebook), encoding="utf-8")
    submission = load_submission(folder, "s1", assignment=VECTORS)
    results = run_checks(InProcessStudent(submission.runnable), VECTORS)
    points = {part: sum(r.points for r in results if r.part == part) for part in FULL}
    return {r.part: r for r in results}, points


def test_a_wrong_norm_is_charged_once_in_norm_not_again_in_normalize(tmp_path):
    checks, points = graded(tmp_path, ["norm"])
    assert points == {**FULL, "norm": 0}  # 7 of 10: without carry-forward it would be 3
    normalize = checks["normalize"]
    assert normalize.status == "passed" and normalize.carried_from == ("norm",)
    assert "your `normalize` uses it correctly, so the bug costs points only in `norm`" in \
        normalize.message


def test_a_normalize_wrong_in_its_own_way_keeps_its_zero(tmp_path):
    checks, points = graded(tmp_path, ["norm", "normalize"])
    assert points == {**FULL, "norm": 0, "normalize": 0}
    assert checks["normalize"].carried_from == ()
    assert "Wrong values in the unit vector" in checks["normalize"].message


def test_a_stub_norm_earns_normalize_nothing(tmp_path):
    checks, points = graded(tmp_path, [], stub="norm")
    assert points == {**FULL, "norm": 0, "normalize": 0}
    assert "It needs your `norm`, which is not implemented yet" in checks["normalize"].message


def test_the_own_bug_alone_is_charged_as_before(tmp_path):
    _, points = graded(tmp_path, ["normalize"])
    assert points == {**FULL, "normalize": 0}


def test_close_compares_numbers_as_the_checks_do():
    assert close(np.array(2.0), 2.0) and close(2, 2.0 + 1e-12)
    assert close(np.ones(3, np.float32), np.ones(3, np.float32) + 1e-6)
    assert not close(np.ones(3), np.ones(4)) and not close(True, 1.0) and not close("a", 1.0)
    assert close({"a": 1}, {"a": 1})  # anything else: equal as ``same`` says


@pytest.mark.slow
def test_autograde_charges_it_once_in_the_sandbox(tmp_path):
    root = tmp_path / "course"
    students.write_submission(root / "submitted" / "v-wrong-norm" / students.NAME, bugs=["norm"])
    done = subprocess.run([sys.executable, "-m", "autograder", "autograde", students.NAME,
                           "--assignments", str(students.BUNDLES), "--root", str(root),
                           "--no-progress", "--jobs", "1"],
                          cwd=REPO, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    data = json.loads((root / "autograded" / "v-wrong-norm" / students.NAME / RESULTS_JSON)
                      .read_text(encoding="utf-8"))
    parts = {part["part"]: part for part in data["extra_data"]["parts"]}
    assert {name: part["points"] for name, part in parts.items()} == {**FULL, "norm": 0}
    assert data["score"] == 7
    (carried,) = parts["normalize"]["messages"]
    assert carried["carried"] and carried["carried_from"] == ["norm"]
