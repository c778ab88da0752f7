"""What the root's journal (autograder/results/journal.py) costs a command that writes many
files: the CPU time of replacing 1,000 students' three files with ``write_atomically``, plain
and inside one change of the root (``hold``), each measured ``--rounds`` times.

    .venv/bin/python benchmarks/journal_overhead.py --students 1000 --rounds 3
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from autograder.batch.root_lock import hold
from autograder.results.result import write_atomically

NAMES = ("results.json", "feedback.html", "notebook.ipynb")


def replace_all(root: Path, students: int, text: str) -> None:
    for student in range(students):
        for name in NAMES:
            write_atomically(root / "autograded" / f"s{student:04d}" / name, text)


def measure(students: int, journaled: bool) -> float:
    """CPU seconds of this process for one round (the files exist before it)."""
    root = Path(tempfile.mkdtemp(prefix="journal-overhead-"))
    try:
        replace_all(root, students, "x" * 2000)
        started = time.process_time()
        if journaled:
            with hold(root):
                replace_all(root, students, "y" * 2000)
        else:
            replace_all(root, students, "y" * 2000)
        return time.process_time() - started
    finally:
        shutil.rmtree(root)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    for journaled in (False, True):
        seconds = [measure(args.students, journaled) for _ in range(args.rounds)]
        writes = args.students * len(NAMES)
        print(f"{'journaled' if journaled else 'plain':>9}: {min(seconds):.2f}-{max(seconds):.2f} s "
              f"CPU for {writes} writes ({min(seconds) / writes * 1e3:.3f} ms a write at best)")


if __name__ == "__main__":
    main()
