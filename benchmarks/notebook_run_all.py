"""How long "Restart & Run All" takes on the solution notebook (issue: well under 15 s).

Runs a copy of source/h2_attention/h2_attention.ipynb top to bottom in a fresh
Jupyter kernel with nbclient, ``--repeat`` times, and prints the wall time of
each run (kernel start included, as a student experiences it) and per cell
for the slowest cells. A benchmark, not a test: nothing here asserts a time.

    .venv/bin/python benchmarks/notebook_run_all.py --repeat 3
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from autograder.assignments import load_assignment

SPEC = load_assignment("h2_attention")

NOTEBOOK, SOURCE_DIR = SPEC.notebook, SPEC.source_dir


def run_once(workdir: Path) -> tuple[float, list[tuple[float, str]]]:
    notebook = nbformat.read(workdir / NOTEBOOK, as_version=4)
    started = time.perf_counter()
    client = NotebookClient(notebook, kernel_name="python3", timeout=120,
                            resources={"metadata": {"path": str(workdir)}}, record_timing=True)
    client.execute()
    total = time.perf_counter() - started
    cells = []
    for cell in notebook.cells:
        timing = cell.metadata.get("execution", {})
        if "iopub.execute_input" in timing and "shell.execute_reply" in timing:
            from datetime import datetime

            begin = datetime.fromisoformat(timing["iopub.execute_input"].replace("Z", "+00:00"))
            end = datetime.fromisoformat(timing["shell.execute_reply"].replace("Z", "+00:00"))
            label = cell.metadata.get("nbgrader", {}).get("grade_id") or cell.source[:30]
            cells.append(((end - begin).total_seconds(), label))
    return total, sorted(cells, reverse=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    totals = []
    for run in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            workdir = Path(tmp) / SPEC.name
            shutil.copytree(SOURCE_DIR, workdir)
            total, cells = run_once(workdir)
        totals.append(total)
        slowest = ", ".join(f"{label} {seconds:.2f}s" for seconds, label in cells[:3])
        print(f"run {run + 1}: {total:.2f} s (kernel start included); slowest cells: {slowest}")
    print(f"median {statistics.median(totals):.2f} s, max {max(totals):.2f} s over {len(totals)} runs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
