"""The floor of grading one submission, and the share of it the reference's answers take.

Run from the repository root::

    .venv/bin/python benchmarks/floor.py --runs 30
    .venv/bin/python benchmarks/floor.py --assignment vectors --bundles tests/bundles

The floor is every hidden check run on a submission that is the reference itself, in this
process, with no sandbox, no round trip and no output written: the student's code on the
checks' inputs plus the checks' own comparisons. No change to the grader can go under it
(issue 40). The second figure is the part of that spent in the checks' calls of the
*reference* (their expected answers): what computing those answers once per batch, instead
of once per submission, could save at most. Both are CPU time of this process, per
submission, after one warm-up run (imports and collection are not counted).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import types
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
os.environ["OMP_NUM_THREADS"] = "1"  # as in grading, one thread a process: set before torch loads
sys.path.insert(0, str(REPO))

from autograder.assignments import load_assignment  # noqa: E402
from autograder.grading.runner import run_checks  # noqa: E402


class ReferenceAsStudent:
    """The reference answering as the student, in this process (a benchmark, never grading)."""

    def __init__(self, reference: types.ModuleType) -> None:
        self._reference = reference

    def has(self, name: str) -> bool:
        return callable(getattr(self._reference, name, None))

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        return getattr(self._reference, name)(*args, **kwargs)

    call_readonly = call


class TimedReference(types.ModuleType):
    """The reference module as the checks see it, with the CPU time of each call counted."""

    def __init__(self, reference: types.ModuleType) -> None:
        super().__init__(reference.__name__)
        self._reference = reference
        self.seconds = 0.0
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._reference, name)
        if not callable(found) or isinstance(found, type):
            return found

        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.process_time()
            try:
                return found(*args, **kwargs)
            finally:
                self.seconds += time.process_time() - started
                self.calls += 1

        return timed


class WithReference:
    """``assignment`` with another reference module (every other fact is the assignment's)."""

    def __init__(self, assignment: Any, reference: types.ModuleType) -> None:
        self._assignment = assignment
        self.reference = reference

    def __getattr__(self, name: str) -> Any:
        return getattr(self._assignment, name)


def per_submission(assignment: Any, student: ReferenceAsStudent, runs: int) -> float:
    """CPU seconds of one submission's checks on ``student``."""
    started = time.process_time()
    for _ in range(runs):
        run_checks(student, assignment)
    return (time.process_time() - started) / runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--assignment", default="h2_attention")
    parser.add_argument("--bundles", type=Path, action="append", default=[],
                        help="a folder of bundles to look in (as autograde's --assignments)")
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args(argv)
    assignment = load_assignment(args.assignment, args.bundles)
    student = ReferenceAsStudent(assignment.reference)
    run_checks(student, assignment)  # warm-up: imports, collection, caches
    floor = per_submission(assignment, student, args.runs)
    timed = TimedReference(assignment.reference)
    with_timed = WithReference(assignment, timed)
    run_checks(student, with_timed)
    timed.seconds, timed.calls = 0.0, 0
    measured = per_submission(with_timed, student, args.runs)  # the student's calls untimed
    share = timed.seconds / args.runs
    print(f"{assignment.name}, {args.runs} runs, CPU per submission:")
    print(f"  the floor (checks on the reference as the student, no sandbox): {floor * 1e3:.1f} ms")
    print(f"  of it, the checks' calls of the reference: {share * 1e3:.1f} ms "
          f"in {timed.calls / args.runs:.0f} calls ({share / measured:.0%} of the timed run's "
          f"{measured * 1e3:.1f} ms, the timer's own cost included)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
