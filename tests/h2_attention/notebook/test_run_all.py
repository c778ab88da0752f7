"""Restart & Run All reaches the evidence cells even when a visible check fails.

A student with one bug still gets an evidence file: the release's check and demo
cells carry the ``raises-exception`` tag, which both ``jupyter nbconvert --execute``
(nbclient) and JupyterLab's Run All honour. Each notebook here is the release with
the reference filled in and one real bug, run in a real kernel.
"""

from __future__ import annotations

import json
import queue
import time
from pathlib import Path

import nbformat
import pytest
from jupyter_client.manager import start_new_kernel

from autograder.authoring.sync import grade_id
from autograder.bundles.h2_attention.samples import set_cell, solved_notebook
from tests.support.h2 import SPEC
from tests.support.kernels import WALL_SECONDS, nbconvert_execute

EVIDENCE = SPEC.evidence_file
NOTEBOOK, RELEASE_DIR = SPEC.notebook, SPEC.release_dir
TAG = "raises-exception"

# Two bugs whose visible checks used to fail without reaching their hint:
# (function cell, correct text, buggy text, failing check cell, words its message must hold).
BUGS = {
    "kt_batch": (
        "attention_scores",
        "(Q @ np.swapaxes(K, -1, -2)) * scale",
        "(Q @ K.T) * scale",
        SPEC.part("attention_scores").grade_cell,
        ["attention_scores failed on batched input", "np.swapaxes(K, -1, -2)"],
    ),
    "mask_inverted": (
        "stable_softmax",
        "allowed = allowed & mask",
        "allowed = allowed & ~mask",
        SPEC.part("causal_mask").grade_cell,
        ["causal_mask(3) is right", "look at stable_softmax"],
    ),
}


def buggy_notebook(bug: str, folder: Path) -> Path:
    """The release in ``folder``, solved with the reference except one bug."""
    function, old, new, _, _ = BUGS[bug]
    notebook = solved_notebook("s-run-all")

    def mutate(source: str) -> str:
        assert old in source, f"bug {bug} no longer applies to the reference"
        return source.replace(old, new)

    set_cell(notebook, function, mutate)
    for name in (p.name for p in RELEASE_DIR.iterdir() if p.name != NOTEBOOK):
        (folder / name).write_bytes((RELEASE_DIR / name).read_bytes())
    path = folder / NOTEBOOK
    nbformat.write(notebook, path)
    return path


def by_id(notebook: nbformat.NotebookNode) -> dict[str, nbformat.NotebookNode]:
    return {grade_id(cell): cell for cell in notebook.cells if grade_id(cell)}


def errors(cell: nbformat.NotebookNode) -> list[dict]:
    return [out for out in cell.get("outputs", []) if out["output_type"] == "error"]


def test_every_check_and_demo_cell_after_the_first_function_is_tagged():
    """The tag survives nbgrader into release/ on every locked cell that runs student code."""
    notebook = nbformat.read(RELEASE_DIR / NOTEBOOK, as_version=4)
    first = next(
        i for i, c in enumerate(notebook.cells) if c.metadata.get("nbgrader", {}).get("solution")
    )
    untagged = [
        grade_id(cell)
        for cell in notebook.cells[first:]
        if cell.cell_type == "code"
        and cell.metadata.get("nbgrader", {}).get("locked")
        and not cell.metadata.get("nbgrader", {}).get("solution")
        and TAG not in cell.metadata.get("tags", [])
    ]
    assert untagged == []
    checks = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade")]
    assert len(checks) == len(SPEC.function_parts) + 2
    assert all(TAG in c.metadata.get("tags", []) for c in checks)


@pytest.mark.slow
@pytest.mark.parametrize("bug", sorted(BUGS))
def test_nbconvert_execute_saves_the_evidence_despite_a_failing_check(bug, tmp_path):
    """``jupyter nbconvert --execute`` (nbclient, errors not allowed) runs to the end."""
    buggy_notebook(bug, tmp_path)
    done = nbconvert_execute(tmp_path, NOTEBOOK)
    assert done.returncode == 0, done.stderr[-3000:]
    evidence = json.loads((tmp_path / EVIDENCE).read_text(encoding="utf-8"))
    assert evidence["student_id"] == "s-run-all"
    cells = by_id(nbformat.read(tmp_path / "executed.ipynb", as_version=4))
    _, _, _, check, words = BUGS[bug]
    failed = errors(cells[check])
    assert [e["ename"] for e in failed] == ["AssertionError"], failed
    for word in words:
        assert word in failed[0]["evalue"], failed[0]["evalue"]
    # The cells after the failure ran: the evidence check read the saved file.
    assert cells[SPEC.part("evidence").grade_cell].get("execution_count") is not None
    assert [e["ename"] for e in errors(cells[SPEC.part("evidence").grade_cell])] in ([], ["AssertionError"])


def run_all_like_jupyterlab(path: Path) -> list[str]:
    """Run every code cell as JupyterLab's Run All does; return each cell's reply status.

    JupyterLab (packages/notebook/src/actions.tsx ``runCells``) sends every cell's
    execute request at once, and (packages/outputarea/src/widget.ts ``execute``) sets
    ``stop_on_error`` to false only for a cell tagged ``raises-exception``: after an
    error in any other cell the kernel aborts the queued requests.
    """
    notebook = nbformat.read(path, as_version=4)
    deadline = time.monotonic() + WALL_SECONDS  # the wall every kernel of the suite runs under
    manager, client = start_new_kernel(kernel_name="python3", cwd=str(path.parent))
    try:
        ids = [
            client.execute(cell.source, stop_on_error=TAG not in cell.metadata.get("tags", []))
            for cell in notebook.cells
            if cell.cell_type == "code"
        ]
        status: dict[str, str] = {}
        while len(status) < len(ids):
            try:
                reply = client.get_shell_msg(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            status[reply["parent_header"]["msg_id"]] = reply["content"]["status"]
        return [status.get(msg_id, "no reply") for msg_id in ids]
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


@pytest.mark.slow
def test_jupyterlab_run_all_saves_the_evidence_despite_a_failing_check(tmp_path):
    path = buggy_notebook("kt_batch", tmp_path)
    statuses = run_all_like_jupyterlab(path)
    assert "error" in statuses and "aborted" not in statuses, statuses
    assert (
        json.loads((tmp_path / EVIDENCE).read_text(encoding="utf-8"))["student_id"] == "s-run-all"
    )


@pytest.mark.slow
def test_without_the_tag_jupyterlab_run_all_stops_at_the_failing_check(tmp_path):
    """The control: the same notebook without the tag never reaches the evidence cells."""
    path = buggy_notebook("kt_batch", tmp_path)
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        cell.metadata.pop("tags", None)
    nbformat.write(notebook, path)
    statuses = run_all_like_jupyterlab(path)
    assert statuses.count("error") == 1 and "aborted" in statuses, statuses
    assert not (tmp_path / EVIDENCE).exists()
