"""The release as a student runs it, in real kernels (issue 42).

* A fresh release with only ``STUDENT_ID`` filled in runs to the end headless (nbclient
  with errors not allowed, as ``jupyter nbconvert --execute``; and as JupyterLab's Run
  All sends it) and saves an evidence file whose limitation is the stub's placeholder;
  that file earns no point (its identity check is the functions' to earn: an untouched
  release's compute nothing).
* The solved release (predictions made): the explorer prints its table once, no row twice,
  and Run All takes no longer than the time the notebook states.
* A function that calls a helper defined in a solution cell is graded full in the sandbox,
  as the release now states.

The other items of the issue are tested without kernels in ``tests/h2_attention/release/test_release_promises.py``.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from autograder.authoring.sync import grade_id
from autograder.bundles.h2_attention.evidence import verify_evidence
from autograder.bundles.h2_attention.provenance import stubs_only, without_code
from autograder.bundles.h2_attention.samples import solved_notebook
from autograder.bundles.h2_attention.sections import IDENTITY
from autograder.grading import run_checks, score_parts
from solutions.evidence import LIMITATION_PLACEHOLDER
from tests.h2_attention.notebook.test_run_all import run_all_like_jupyterlab
from tests.h2_attention.release.test_release_promises import HELPER_CELLS, code
from tests.support.corpus import reference_source
from tests.support.h2 import H2, SPEC, predicted
from tests.support.kernels import run_all

pytestmark = pytest.mark.slow

NOTEBOOK, RELEASE_DIR = SPEC.notebook, SPEC.release_dir
RANKINGS = {"[1, 0]": "A = C > B", "[0, 1]": "B = C > A", "[1, 1]": "C > A = B", "[-1, 0]": "B > A = C"}
STUDENT = "s-fresh-release"


def fresh_release(folder: Path) -> Path:
    """The release in ``folder`` with only ``STUDENT_ID`` filled in."""
    shutil.copytree(RELEASE_DIR, folder)
    notebook = nbformat.read(folder / NOTEBOOK, as_version=4)
    (cell,) = [c for c in notebook.cells if c.source.startswith("STUDENT_ID = ")]
    cell.source = f'STUDENT_ID = "{STUDENT}"'
    nbformat.write(notebook, folder / NOTEBOOK)
    return folder / NOTEBOOK


def errors(cell: nbformat.NotebookNode) -> list[dict]:
    return [out for out in cell.get("outputs", []) if out["output_type"] == "error"]


def assert_the_stub_file_is_saved_and_earns_nothing(folder: Path) -> None:
    data = json.loads((folder / SPEC.evidence_file).read_text(encoding="utf-8"))
    assert data["student_id"] == STUDENT and data["limitation"] == LIMITATION_PLACEHOLDER
    assert all(data[name]["error"].startswith("NotImplementedError") for name in
               ("hand_example", "masked_case", "parity", "intervention"))
    report = verify_evidence(folder / SPEC.evidence_file, student_id=STUDENT)
    # The file alone passes only the identity check; whether that is earned is the
    # functions' to say (issue 50, item 18: an untouched release's functions compute nothing,
    # tests/h2_attention/evidence/test_provenance_sandbox.py grades one to 0), and with no
    # code to ask, a file of stubs' errors earns nothing.
    assert report.points["limitation"] == 0 and stubs_only(report.data)
    assert set(report.checks) >= {IDENTITY} and sum(report.checks.values()) == report.checks[IDENTITY]
    assert [f.code for f in without_code(report).findings] == ["nothing_computed"]


def test_a_fresh_release_runs_to_the_end_headless_and_saves_the_stub(tmp_path):
    path = fresh_release(tmp_path / "h2")
    executed = run_all(nbformat.read(path, as_version=4), path.parent, allow_errors=False).notebook
    by_id = {grade_id(cell): cell for cell in executed.cells if grade_id(cell)}
    assert [e["ename"] for e in errors(by_id[SPEC.part("limitation").cell])] == ["NotImplementedError"]
    assert_the_stub_file_is_saved_and_earns_nothing(path.parent)
    # The checks after it ran, and say what is left to do.
    assert "/limitation: The limitation must not be the notebook's placeholder sentence" in (
        errors(by_id[SPEC.part("evidence").grade_cell])[0]["evalue"])
    assert errors(by_id[SPEC.part("limitation").grade_cell])[0]["evalue"].startswith("replace the placeholder")


def test_a_fresh_release_runs_to_the_end_as_jupyterlab_sends_it(tmp_path):
    path = fresh_release(tmp_path / "h2")
    statuses = run_all_like_jupyterlab(path)
    assert "aborted" not in statuses and "no reply" not in statuses, statuses
    assert_the_stub_file_is_saved_and_earns_nothing(path.parent)


@pytest.fixture(scope="module")
def solved_run(tmp_path_factory) -> nbformat.NotebookNode:
    folder = tmp_path_factory.mktemp("solved") / "h2"
    shutil.copytree(RELEASE_DIR, folder)
    notebook = solved_notebook("s-solved")
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.source = predicted(cell.source, rankings=RANKINGS)
    return run_all(notebook, folder, allow_errors=False).notebook


def test_the_explorer_prints_each_row_once(solved_run):
    (cell,) = [c for c in solved_run.cells if grade_id(c) == "routing_explorer"]
    printed = "".join(out.get("text", "") for out in cell.outputs if out["output_type"] == "stream")
    rows = [line for line in printed.splitlines() if line.startswith("q=")]
    keys = [re.match(r"q=(\S+(?: \S+)?)\s+T=(\S+)", row).groups() for row in rows]
    assert len(rows) == 4 * 3 and len(set(keys)) == len(keys), rows
    assert printed.splitlines() == rows  # nothing after the table but the widget itself


def test_helpers_in_solution_cells_are_graded_full_in_the_sandbox():
    from autograder.grading.grade_one import GradingSession
    from autograder.sandbox.client import SandboxStudent

    session = GradingSession.start(H2)
    try:
        cells = [code("setup"), code("hand_example"), reference_source(), *HELPER_CELLS]
        with SandboxStudent(cells, session.zygote, limits=session.limits, uid=session.lease.uid) as student:
            scores = score_parts(run_checks(student, H2), H2)
    finally:
        session.close()
    assert {part: score.points for part, score in scores.items() if score.points != score.max_points} == {}
