"""What a student meets on a shared machine: each path of a course and what one student can do
with it, as a Markdown table (issue 50's before/after).

Real Unix users (an instructor, three students; made and removed again, as in
tests/end_to_end/test_shared_machine.py), nbgrader's exchange, every command run as its user:
the instructor releases (``--close-install``: then closes the folder of bundles, as
docs/ta-guide.md says), two students submit, the instructor collects, grades, writes feedback
and exports; then student Bob tries to read, write and lock each path. Run as root from the
repository root::

    .venv/bin/python scripts/shared_machine_permissions.py --close-install
    .venv/bin/python scripts/shared_machine_permissions.py --grader /path/to/an/older/checkout

``--grader DIR``: the checkout whose grader the instructor runs (default: this one).
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support import shared_machine as machine  # noqa: E402  (after the path above)
from tests.support.vectors import REFERENCE, solved_notebook  # noqa: E402

TA, BOB, CAROL = "h2pt-ta", "h2pt-bob", "h2pt-carol"
COHORT = COURSE = "h2pt-fall"


def submit(user: str, exchange: Path) -> None:
    """``user`` fetches the release, solves it and submits, with nbgrader as ``user``."""
    home = machine.home_of(user)
    args = (f"--course={COURSE}", f"--Exchange.root={exchange}")
    machine.run_as(user, str(machine.SYSTEM_PYTHON), "-m", "nbgrader", "fetch_assignment",
                   machine.ASSIGNMENT, *args, cwd=home, check=True)
    notebook = home / machine.ASSIGNMENT / machine.NOTEBOOK
    notebook.write_text(json.dumps(solved_notebook(REFERENCE)), encoding="utf-8")
    shutil.chown(notebook, user, user)
    machine.run_as(user, str(machine.SYSTEM_PYTHON), "-m", "nbgrader", "submit",
                   machine.ASSIGNMENT, *args, cwd=home, check=True)


def row(name: str, path: Path, base: Path, lock: bool = False) -> str:
    quoted = shlex.quote(str(path))
    try:
        mode = f"{path.stat().st_mode & 0o7777:o}"
    except OSError:
        mode = "absent"
    reads = machine.can(BOB, f"ls {quoted} >/dev/null" if path.is_dir()
                        else f"cat {quoted} >/dev/null", base)
    writes = machine.can(BOB, f"touch {shlex.quote(str(path / 'planted'))}" if path.is_dir()
                         else f"test -w {quoted} && : >> {quoted}", base)
    said = f"{mode}, {'yes' if reads else 'no'} / {'yes' if writes else 'no'}"
    if lock:
        said += f", flock {'yes' if machine.can(BOB, f'flock -n {quoted} true', base) else 'no'}"
    return f"| {name} | {said} |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grader", type=Path, help="checkout whose grader the TA runs")
    parser.add_argument("--close-install", action="store_true",
                        help="close the folder of bundles after the release, as the docs say")
    args = parser.parse_args()
    problem = machine.missing()
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if args.grader:
        machine.REPO = args.grader.resolve()
    with machine.shared_course("h2-permissions", TA, (BOB, CAROL), COHORT, COURSE) as course:
        if args.close_install:
            machine.run_as(TA, "chmod", "-R", "o-rwx", str(course.bundles), cwd=course.ta_home,
                           check=True)
        submit(BOB, course.exchange)
        submit(CAROL, course.exchange)
        for step in ("collect", "grade", "feedback", "export"):
            done = machine.grader(TA, *course.cohort_args, step, COHORT, cwd=course.ta_home,
                                  timeout=600)
            if done.returncode != 0:
                print(f"error: cohort {step} failed: {done.stderr[-500:]}", file=sys.stderr)
                return 1
        root, carol = course.root, course.root / "submitted" / CAROL / machine.ASSIGNMENT
        inbound = course.exchange / COURSE / "inbound"
        print("| path | mode, Bob reads / writes |\n|---|---|")
        for name, path in (
                ("course root", root),
                ("source notebook (the reference)", root / "source" / machine.ASSIGNMENT
                 / machine.NOTEBOOK),
                ("a classmate's submitted folder", carol),
                ("a classmate's submission_secret.txt", carol / "submission_secret.txt"),
                ("receipts", root / "receipts" / f"{machine.ASSIGNMENT}.json"),
                ("grades.csv", root / "grades.csv"), ("gradebook.db", root / "gradebook.db"),
                ("a classmate's feedback page in the root", root / "feedback" / CAROL
                 / machine.ASSIGNMENT / f"{machine.ASSIGNMENT}.html"),
                ("the grader's hidden checks", next((course.bundles / machine.ASSIGNMENT
                                                     / "checks").glob("*.py"))),
                ("the exchange's inbound/", inbound),
                ("a classmate's inbound folder", sorted(inbound.glob(f"{CAROL}+*"))[-1])):
            print(row(name, path, course.base))
        print(row("the root's lock", root / ".autograder-grading.lock", course.base, lock=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
