"""The per-stage table of a grading run, and the figures kept per measured revision.

A run of ``autograde`` with ``AUTOGRADER_STAGES=FOLDER`` leaves one JSON file per grader
process there (``autograder/base/stages.py``): the coordinator's and each trusted grading
process's stage totals, and each process's own CPU. ``collect`` sums them by stage;
``rows`` adds what no stage covers: the rest of each trusted process, and the sandbox's side
(the zygote's imports, and the sandboxed workers running the student's cells and functions),
which is the whole tree's CPU (from its cgroup) less the trusted processes'. The sandbox side
is where the student's own code runs: the floor no change to the grader can go under.

Figures are kept per revision in ``benchmarks/figures/<revision>.json`` (``record``), one
entry per kind of run (``size-40``, ``growth-1000``, ``run-autograder``, ``publish-1000``), so
a regression shows as a diff between two revisions' files::

    .venv/bin/python benchmarks/stage_table.py benchmarks/figures/OLD.json benchmarks/figures/NEW.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIGURES = REPO / "benchmarks" / "figures"
SANDBOX_SIDE = "sandbox side: zygote imports, workers run the student's cells and functions"
TRUSTED_REST = "trusted processes: not in a stage (interpreter exit, pool, GC)"


def collect(folder: Path) -> dict:
    """The stage totals of every process that wrote to ``folder``: by stage (count, wall and
    CPU seconds summed over processes), and the processes' own CPU and wall by role."""
    stages: dict[str, dict[str, float]] = {}
    processes: dict[str, dict[str, float]] = {}
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        role = processes.setdefault(data["role"], {"count": 0, "cpu": 0.0, "wall": 0.0})
        role["count"] += 1
        role["cpu"] += data["process"]["cpu"]
        role["wall"] += data["process"]["wall"]
        for name, figures in data["stages"].items():
            total = stages.setdefault(name, {"count": 0, "wall": 0.0, "cpu": 0.0})
            for key in total:
                total[key] += figures[key]
    return {"stages": stages, "processes": processes}


def rows(collected: dict, tree_cpu: float | None) -> list[tuple[str, int, float, float]]:
    """(stage, count, wall s, CPU s), the stages in the order a submission meets them, then
    the trusted processes' unstaged CPU and the sandbox side (with the tree's CPU)."""
    stages = collected["stages"]
    out = [(name, int(f["count"]), f["wall"], f["cpu"]) for name, f in sorted(
        stages.items(), key=lambda item: (_order(item[0]), -item[1]["cpu"]))]
    trusted = sum(p["cpu"] for p in collected["processes"].values())
    staged = sum(f["cpu"] for f in stages.values())
    out.append((TRUSTED_REST, 0, 0.0, max(0.0, trusted - staged)))
    if tree_cpu is not None:
        out.append((SANDBOX_SIDE, 0, 0.0, max(0.0, tree_cpu - trusted)))
    return out


_PREFIXES = ("start-up", "scan", "gradebook thread", "load", "sandbox: fork", "sandbox: run",
             "checks", "sandbox: round", "sandbox: stand", "evidence", "assemble", "grading",
             "write", "coordinator", "end", "publish")


def _order(name: str) -> int:
    return next((i for i, prefix in enumerate(_PREFIXES) if name.startswith(prefix)),
                len(_PREFIXES))


def print_table(table: list[tuple[str, int, float, float]], size: int, wall: float,
                tree_cpu: float | None) -> None:
    """The table as Markdown: per stage, calls, wall and CPU in all and per submission."""
    print(f"\nstages of one run: {size} submissions, {wall:.2f} s wall"
          + (f", {tree_cpu:.2f} s CPU (whole tree)" if tree_cpu is not None else ""))
    print("(wall: summed over the processes; a stage's figures exclude the stages inside it)\n")
    print("| stage | calls | wall s | CPU s | CPU ms per submission |")
    print("|---|---:|---:|---:|---:|")
    for name, count, seconds, cpu in table:
        calls = str(count) if count else ""
        shown = f"{seconds:.3f}" if count else ""
        print(f"| {name} | {calls} | {shown} | {cpu:.3f} | {1000 * cpu / size:.1f} |")


def revision() -> str:
    """The checked-out commit (short), ``+dirty`` when the tree has changes."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                          capture_output=True, text=True, check=False).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO,
                           capture_output=True, text=True, check=False).stdout.strip()
    return (head or "unknown") + ("+dirty" if dirty else "")


def record(kind: str, figures: dict) -> Path:
    """Keep ``figures`` as this revision's ``kind`` entry in benchmarks/figures/."""
    FIGURES.mkdir(parents=True, exist_ok=True)
    path = FIGURES / f"{revision()}.json"
    kept = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    kept[kind] = figures
    path.write_text(json.dumps(kept, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


def compare(old: dict, new: dict) -> None:
    """Per kind of run and per stage: CPU ms per submission, old and new."""
    for kind in sorted(set(old) & set(new)):
        a, b = old[kind], new[kind]
        print(f"\n{kind}: wall {a.get('seconds', 0):.2f} -> {b.get('seconds', 0):.2f} s, "
              f"CPU {a.get('cpu_seconds', 0):.2f} -> {b.get('cpu_seconds', 0):.2f} s")
        size_a, size_b = a.get("size") or 1, b.get("size") or 1
        stages_a = {row[0]: row[3] for row in a.get("stage_rows", [])}
        stages_b = {row[0]: row[3] for row in b.get("stage_rows", [])}
        print("| stage | CPU ms/submission before | after |\n|---|---:|---:|")
        for name in dict.fromkeys([*stages_a, *stages_b]):
            before = 1000 * stages_a[name] / size_a if name in stages_a else None
            after = 1000 * stages_b[name] / size_b if name in stages_b else None
            print(f"| {name} | {_ms(before)} | {_ms(after)} |")


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Compare two revisions' kept figures.")
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    args = parser.parse_args(argv)
    compare(json.loads(args.old.read_text()), json.loads(args.new.read_text()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
