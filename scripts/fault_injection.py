"""Fault injection on a small course root (issue 51), many trials: each command of the grader
hurt many ways, then the next command, then every output compared with an uninterrupted
run's and ``status`` checked against them. Prints one row per fault and command: trials,
how many hurt the command (a kill after a write the command never makes, or one that comes
after the command ended, does not), held, failed, and the first failure's differences.

    .venv/bin/python scripts/fault_injection.py              # 30 random kills per command
    .venv/bin/python scripts/fault_injection.py --random 5 --only autograde

Needs root for the full disk (a tmpfs) and the immutable file (chattr); a fault this machine
cannot make is reported, not hidden. The harness is tests/support/faults.py; the suite runs a
few of these trials (tests/faults/test_fault_injection.py).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("AUTOGRADER_SINGLE_USER", "1")

from tests.support import faults  # noqa: E402

MAX_WRITES = 12  # of one kind, killed after in turn


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random", type=int, default=30, help="random kills per command")
    parser.add_argument("--signals", type=int, default=3, help="SIGTERM and SIGHUP trials per command")
    parser.add_argument("--disk", type=int, default=3, help="full-disk trials per command")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", default="",
                        help="only trials whose id contains one of these (comma-separated)")
    parser.add_argument("--verbose", action="store_true", help="every trial as it ends")
    args = parser.parse_args()

    cannot_mount = faults.can_mount()
    trials = faults.plan(random_kills=args.random, write_kinds=faults.WRITE_KINDS,
                         signalled=faults.COMMANDS, signal_trials=args.signals,
                         disk={} if cannot_mount else dict.fromkeys(faults.COMMANDS, args.disk),
                         once={"immutable grades.csv": faults.COMMANDS,
                               "truncated results.json": faults.COMMANDS,
                               "garbage in decisions.json": faults.COMMANDS},
                         seed=args.seed, seen=faults.SEEN_KINDS,
                         then_export={"review set": faults.SEEN_KINDS["review set"]})
    trials = [trial for trial in trials if any(part in trial.id for part in args.only.split(","))]
    rows: dict[tuple[str, str], list[faults.Trial]] = defaultdict(list)
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="faults-") as scratch:
        where = Path(scratch)
        scenarios = faults.make_scenarios(where / "scenarios")
        references = {}
        for command in sorted({trial.command for trial in trials}):
            references[command] = faults.reference(scenarios[command], where / f"ref-{command}")
            print(f"{command}: an uninterrupted run takes {references[command].seconds:.1f} s here; "
                  f"its status: {'all current' if all(references[command].status.values()) else references[command].status}",
                  flush=True)
        queue = list(trials)
        for n, planned in enumerate(iter_queue(queue)):
            folder = where / f"trial-{n}"
            trial = planned.hurt(scenarios[planned.command], folder, references[planned.command])
            rows[(planned.kind, planned.command)].append(trial)
            queue += next_write(planned, trial)
            if args.verbose:
                print(f"  {planned.id}: {'held' if trial.held else 'not hurt' if not trial.landed and not trial.problems else 'FAILED'}"
                      f" {trial.note}" + "".join(f"\n      {p[:300]}" for p in trial.problems), flush=True)
            shutil.rmtree(folder, ignore_errors=True)
    print(f"\n{len(trials)} trials in {time.monotonic() - began:.0f} s"
          + (f"; no full-disk trials: {cannot_mount}" if cannot_mount else ""))
    print(table(rows))
    return 0


def iter_queue(queue: list[faults.Planned]):  # noqa: ANN201 - a generator over a growing list
    n = 0
    while n < len(queue):
        yield queue[n]
        n += 1


def next_write(planned: faults.Planned, trial: faults.Trial) -> list[faults.Planned]:
    """After a kill right after the n-th write of a kind, the (n+1)-th: every write of the
    kind, until the command makes no more (it then ends unhurt)."""
    spec = planned.label.removeprefix("after-write-")
    if not trial.landed or spec == planned.label or ":" not in spec:
        return []
    kind, n = spec.rsplit(":", 1)
    if int(n) >= MAX_WRITES:
        return []
    following = f"{kind}:{int(n) + 1}"
    return [faults.Planned(planned.kind, planned.command, f"after-write-{following}",
                           lambda scenario, where, ref: faults.kill_after_write(
                               scenario, where, ref, following))]


def table(rows: dict[tuple[str, str], list[faults.Trial]]) -> str:
    head = "| fault | command | trials | hurt | held | failed | first failure |\n|---|---|---:|---:|---:|---:|---|"
    lines = [head]
    for (kind, command), trials in rows.items():
        failed = [trial for trial in trials if trial.problems]
        hurt = sum(trial.landed for trial in trials)
        first = "; ".join(p[:240] for p in failed[0].problems[:3]) if failed else ""
        if not hurt and not failed:
            first = trials[0].note
        lines.append(f"| {kind} | {command} | {len(trials)} | {hurt} | "
                     f"{sum(trial.held for trial in trials)} | {len(failed)} | {first.replace('|', '/')} |")
    held_rows = sum(all(not t.problems for t in ts) and any(t.landed for t in ts) for ts in rows.values())
    lines.append(f"\nfaults (rows) that held in every trial that hurt the command: {held_rows} of "
                 f"{sum(any(t.landed for t in ts) for ts in rows.values())} (rows where nothing hurt the command: "
                 f"{sum(not any(t.landed for t in ts) for ts in rows.values())})")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
