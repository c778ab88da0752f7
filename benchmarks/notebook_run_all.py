"""How long "Restart & Run All" takes on the solution notebook (issue 30: under 5 s idle).

Runs a copy of source/h2_attention/ top to bottom in a fresh Jupyter kernel with
nbclient, ``--repeat`` times, and prints for each run:

* ``run all``: from asking for a kernel to the last cell's reply, kernel start
  included: what a student waits for after "Restart & Run All";
* ``with shutdown``: the same plus stopping the kernel (nbclient's graceful shutdown,
  about 1 s, which a student does not wait for but earlier figures included);
* the slowest cells (the kernel's own timing of each cell).

``--revision REV`` runs the source folder as it was at a git revision instead (e.g.
``--revision HEAD~3``), for a before/after comparison on the same machine.

``--wall SECONDS`` (issue 36) runs each Run All in a child process killed, kernel and all,
after that many seconds (tests/support/kernels.py, what the suite uses), counts the runs that
stalled and goes on; ``--python PATH`` runs them with another interpreter, e.g. a fresh venv
made from the release's requirements.txt alone, as a student installs it. The notebook is
filled in as a student who made every prediction has it (the explorer's widget path runs).
A benchmark, not a test: nothing here asserts a time.

    .venv/bin/python benchmarks/notebook_run_all.py --repeat 5
    .venv/bin/python benchmarks/notebook_run_all.py --repeat 5 --revision f529442
    python3 -m venv /tmp/student && /tmp/student/bin/pip install -r release/h2_attention/requirements.txt
    .venv/bin/python benchmarks/notebook_run_all.py --repeat 60 --wall 60 --python /tmp/student/bin/python
"""

from __future__ import annotations

import argparse
import io
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from datetime import datetime
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from autograder.assignments import load_assignment

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the tests' helpers: the suite's wall-limited Run All

from tests.support.h2 import predicted  # noqa: E402
from tests.support.kernels import KernelStalled, run_all  # noqa: E402

SPEC = load_assignment("h2_attention")
# The explorer's rankings as a student who predicted them right writes them (Step 5).
RANKINGS = {"[1, 0]": "A = C > B", "[0, 1]": "B = C > A", "[1, 1]": "C > A = B", "[-1, 0]": "B > A = C"}
NOTEBOOK, SOURCE_DIR = SPEC.notebook, SPEC.source_dir


def _stamp(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def predicted_notebook(workdir: Path) -> nbformat.NotebookNode:
    """The folder's notebook as a student who made every prediction (right) has it."""
    notebook = nbformat.read(workdir / NOTEBOOK, as_version=4)
    for cell in notebook.cells:
        if cell.source.startswith("STUDENT_ID = "):
            cell.source = 'STUDENT_ID = "s-benchmark"'
        elif cell.cell_type == "code":
            cell.source = predicted(cell.source, rankings=RANKINGS)
    return notebook


def run_once(workdir: Path, wall: float | None = None,
             python: str = sys.executable) -> tuple[float, float, list[tuple[float, str]]]:
    """(seconds to the last cell's reply, seconds with the kernel's shutdown, per-cell times);
    with ``wall``, in a child process killed at ``wall`` seconds (``KernelStalled``)."""
    notebook = predicted_notebook(workdir)
    started_wall = time.time()
    started = time.perf_counter()
    if wall is None:
        client = NotebookClient(notebook, kernel_name="python3", timeout=120, record_timing=True,
                                resources={"metadata": {"path": str(workdir)}})
        client.execute()
    else:
        notebook = run_all(notebook, workdir, wall=wall, python=python).notebook
    with_shutdown = time.perf_counter() - started
    cells, last_reply = [], started_wall
    for cell in notebook.cells:
        timing = cell.metadata.get("execution", {})
        if "iopub.execute_input" in timing and "shell.execute_reply" in timing:
            begin, end = _stamp(timing["iopub.execute_input"]), _stamp(timing["shell.execute_reply"])
            label = cell.metadata.get("nbgrader", {}).get("grade_id") or cell.source[:30]
            cells.append((end - begin, label))
            last_reply = max(last_reply, end)
    return last_reply - started_wall, with_shutdown, sorted(cells, reverse=True)


def source_folder(revision: str | None, into: Path) -> Path:
    """A copy of the source folder, as it is now or at ``revision``."""
    folder = into / SPEC.name
    if revision is None:
        shutil.copytree(SOURCE_DIR, folder)
        return folder
    relative = SOURCE_DIR.relative_to(REPO).as_posix()
    archive = subprocess.run(["git", "archive", "--format=tar", revision, relative], cwd=REPO,
                             capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into / "checkout", filter="data")
    shutil.move(into / "checkout" / relative, folder)
    return folder


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--revision", help="run the source notebook of this git revision instead")
    parser.add_argument("--wall", type=float, help="kill a Run All after this many seconds and "
                        "count it as stalled (each run in a child process)")
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter whose Jupyter runs the notebook (with --wall)")
    args = parser.parse_args()
    if args.python != sys.executable and args.wall is None:
        parser.error("--python needs --wall (the runs go through a child process)")
    totals, with_shutdowns, stalled = [], [], 0
    for run in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            try:
                total, with_shutdown, cells = run_once(source_folder(args.revision, Path(tmp)),
                                                       args.wall, args.python)
            except KernelStalled as stall:
                stalled += 1
                print(f"run {run + 1}: STALLED ({stall})", flush=True)
                continue
        totals.append(total)
        with_shutdowns.append(with_shutdown)
        slowest = ", ".join(f"{label} {seconds:.2f}s" for seconds, label in cells[:3])
        print(f"run {run + 1}: run all {total:.2f} s (kernel start included), "
              f"{with_shutdown:.2f} s with shutdown; slowest cells: {slowest}", flush=True)
    if args.wall is not None:
        print(f"stalled: {stalled} of {args.repeat} runs (wall {args.wall:.0f} s each)")
    if not totals:
        return 1
    print(f"run all: median {statistics.median(totals):.2f} s, max {max(totals):.2f} s; with shutdown: "
          f"median {statistics.median(with_shutdowns):.2f} s over {len(totals)} runs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
