"""A notebook run without a front end never stalls (issue 36).

Executed headless (nbclient, ``jupyter nbconvert --execute``, nbgrader), the notebook once
stalled for good in Step 5's explorer: ``widgets.interact`` printed into an Output widget
while its cell ran, nbclient answered that widget with a ``comm_msg`` on the shell channel
in the middle of the cell, and with ipykernel 7 the cell's ``execute_reply`` was sometimes
never seen by the client (docs/development.md, "Notebooks in kernels"). Now the explorer
prints into its widget only when a control moves, so a headless client sends the kernel
nothing but the cells; ipykernel is pinned to 6.31 besides.

Every run here is under ``tests.support.kernels``' hard wall-clock limit, and so is every
test of the suite that starts a kernel (the last test checks that).
"""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import nbformat
import pytest

from autograder.spec import REPO
from tests.support.h2 import SPEC, predicted
from tests.support.kernels import KernelStalled, run_all

# Run All of the solved notebook, this many times per suite run (a larger run, 50 and
# more, is `benchmarks/notebook_run_all.py --repeat N --wall S`).
RUNS = 3
RANKINGS = {"[1, 0]": "A = C > B", "[0, 1]": "B = C > A", "[1, 1]": "C > A = B", "[-1, 0]": "B > A = C"}


def solved_copy(folder: Path, student: str) -> nbformat.NotebookNode:
    """The source notebook (the reference filled in) as a student who predicted right has it."""
    shutil.copytree(SPEC.source_dir, folder)
    notebook = nbformat.read(folder / SPEC.notebook, as_version=4)
    for cell in notebook.cells:
        if cell.source.startswith("STUDENT_ID = "):
            cell.source = f'STUDENT_ID = "{student}"'
        elif cell.cell_type == "code":
            cell.source = predicted(cell.source, rankings=RANKINGS)
    return notebook


@pytest.mark.slow
@pytest.mark.parametrize("attempt", range(RUNS))
def test_run_all_of_the_solved_notebook_ends_and_sends_the_kernel_only_its_cells(
        attempt, tmp_path):
    folder = tmp_path / SPEC.name
    run = run_all(solved_copy(folder, f"s-headless-{attempt}"), folder)
    # The cause, checked every run rather than waited for: no widget answered mid-cell.
    assert run.other_requests == []
    assert json.loads((folder / SPEC.evidence_file).read_text())["student_id"] == (
        f"s-headless-{attempt}")
    errors = [out["ename"] for cell in run.notebook.cells for out in cell.get("outputs", [])
              if out["output_type"] == "error"]
    assert errors == []


@pytest.mark.slow
def test_the_old_explorer_made_the_client_answer_a_widget_mid_cell(tmp_path):
    """The control: ``widgets.interact`` as the explorer had it makes nbclient send a
    ``comm_msg`` while the cell runs (what raced the cell's reply)."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import ipywidgets as widgets\n"
        "widgets.interact(lambda t=1.0: print(t), t=widgets.FloatLogSlider(value=1.0))")])
    # The race it shows can stall the run until the cell timeout (121 s in one full run):
    # 15 s is long enough for the cell, and bounds the stall.
    assert run_all(notebook, tmp_path, cell_timeout=15).other_requests == ["comm_msg"]


@pytest.mark.slow
def test_a_stalled_run_fails_at_the_wall_and_its_kernel_is_gone(tmp_path):
    """The wall is real: a cell that outlives it fails the run, and the kernel dies too."""
    pid_file = tmp_path / "kernel.pid"
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        f"import os, time\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\ntime.sleep(600)")])
    with pytest.raises(KernelStalled, match="no end within 8 s"):  # not the 600 s sleep's end
        run_all(notebook, tmp_path, wall=8)
    status = Path(f"/proc/{pid_file.read_text()}/status")
    deadline = time.monotonic() + 5
    while status.exists() and "zombie" not in status.read_text() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not status.exists() or "zombie" in status.read_text()


KERNEL_STARTS = re.compile(r"NotebookClient\(|start_new_kernel\(|KernelManager\(|\"--execute\"")
UNDER_THE_WALL = {"tests/support/kernels.py", "tests/support/run_notebook.py"}


def test_every_test_that_starts_a_kernel_does_it_under_the_wall():
    """Kernels start in tests/support/kernels.py (a child killed at WALL_SECONDS), or, for
    the one test that drives a kernel as JupyterLab does, under a deadline of WALL_SECONDS."""
    found = {}
    for path in sorted((REPO / "tests").rglob("*.py")):
        relative = path.relative_to(REPO).as_posix()
        text = path.read_text(encoding="utf-8")
        if relative in UNDER_THE_WALL or relative == "tests/h2_attention/notebook/test_headless_runs.py":
            continue
        if KERNEL_STARTS.search(text):
            found[relative] = "WALL_SECONDS" in text
    assert found == {"tests/h2_attention/notebook/test_run_all.py": True}
