"""A course on a machine its students share (issue 50), with real Unix users.

As on a JupyterHub with LocalProcessSpawner: an instructor and three students are Unix users
of one machine (made with ``useradd``, homes 0755 as Debian makes them), the exchange is
nbgrader's (its root 1777, made by the admin), and every command runs as the user who runs it
there (``setpriv``): the instructor releases, collects, grades, writes feedback and exports
with the grader; each student fetches and submits with nbgrader. The grader runs from the
checkout (the system Python with the checkout's packages on PYTHONPATH, as
tests/sandbox/test_unprivileged.py runs it); the assignment is a copy of the small ``vectors``
bundle in the instructor's folder of bundles, which the instructor closes (and the grader
asks for, while it is open).

One student, Alice, attacks through what any hub user can do in the exchange's ``inbound/``
(0733 + setgid: create, never list): a folder in Bob's name, a notebook that is a link to the
course's source notebook, a link to /dev/zero, hard links, a name that is not UTF-8, one that
carries terminal controls. Asserted: what each student can and cannot read or write (the
course root, the source, classmates' submissions and secrets, the grader's hidden files,
receipts, the lock), that every attack is refused with a line naming it, and that Bob and
Carol are graded on their own work.

Skipped without root, ``useradd``/``setpriv`` or the system Python of our version, with the
line that gives it; in CI (``CI`` set: root, Debian, all three there) it fails instead.
"""

from __future__ import annotations

import csv
import json
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.support.shared_machine import (
    ASSIGNMENT,
    NOTEBOOK,
    SYSTEM_PYTHON,
    can,
    home_of,
    require_shared_machine,
    run_as,
    shared_course,
)
from tests.support.shared_machine import grader as grader_as
from tests.support.vectors import REFERENCE, solved_notebook

pytestmark = pytest.mark.slow
PREFIX = "h2sm"  # every user this test makes is named h2sm-<who>
TA, ALICE, BOB, CAROL = (f"{PREFIX}-{who}" for who in ("ta", "alice", "bob", "carol"))
COHORT = COURSE = f"{PREFIX}-fall"
STAMP = "%Y-%m-%d %H:%M:%S.%f UTC"  # nbgrader's timestamp in inbound folder names


def grader(*args: str, cwd: Path, **how):
    return grader_as(TA, *args, cwd=cwd, **how)


def nbgrader(user: str, *args: str, exchange: Path, **how):
    return run_as(user, str(SYSTEM_PYTHON), "-m", "nbgrader", *args, f"--course={COURSE}",
                  f"--Exchange.root={exchange}", cwd=home_of(user), **how)


def submit(user: str, exchange: Path, functions: dict[str, str] | None) -> None:
    """``user`` fetches the release, writes ``functions`` into it (None: as released) and
    submits."""
    home = home_of(user)
    nbgrader(user, "fetch_assignment", ASSIGNMENT, exchange=exchange, check=True)
    if functions is not None:
        notebook = home / ASSIGNMENT / NOTEBOOK  # as the student saves it
        notebook.write_text(json.dumps(solved_notebook(functions)), encoding="utf-8")
        shutil.chown(notebook, user, user)
    nbgrader(user, "submit", ASSIGNMENT, exchange=exchange, check=True)


def plant(inbound: Path, name: bytes, files: dict[str, object]) -> None:
    """What Alice leaves in inbound/ (as Alice): a folder named ``name`` (bytes: any name),
    each file either text or ("link", target), ("hardlinks", n) or ("sparse", size)."""
    script = ["import os, sys", f"folder = os.path.join({bytes(inbound)!r}, {name!r})",
              "os.mkdir(folder)", "os.chmod(folder, 0o777)"]
    for file, what in files.items():
        path = f"os.path.join(folder, {file.encode()!r})"
        if isinstance(what, str):
            script.append(f"open({path}, 'w').write({what!r})")
        elif what[0] == "link":
            script.append(f"os.symlink({what[1]!r}, {path})")
        elif what[0] == "sparse":
            script.append(f"f = open({path}, 'wb'); f.truncate({what[1]}); f.close()")
        elif what[0] == "hardlinks":
            script += [f"open({path}, 'wb').write(os.urandom(1 << 20))",
                       f"[os.link({path}, {path} + b'.%d' % i) for i in range({what[1]})]"]
    run_as(ALICE, str(SYSTEM_PYTHON), "-c", "\n".join(script), cwd=inbound.parent.parent,
           check=True)


def stamp(when: datetime) -> bytes:
    return when.strftime(STAMP).encode()


@pytest.fixture(scope="module")
def course() -> Iterator[SimpleNamespace]:
    require_shared_machine("the shared-machine test")
    with shared_course("h2-shared-machine", TA, (ALICE, BOB, CAROL), COHORT, COURSE) as out:
        exchange, ta_home, bundles = out.exchange, out.ta_home, out.bundles
        cohort = out.cohort_args
        # The instructor released with the bundle as a clone leaves it: the grader said so.
        run_as(TA, "chmod", "-R", "o-rwx", str(bundles), cwd=ta_home, check=True)

        # The honest students; then Alice, through inbound/ alone.
        submit(BOB, exchange, REFERENCE)
        submit(CAROL, exchange, REFERENCE)
        inbound = exchange / COURSE / "inbound"
        now = datetime.now(UTC)
        stubs = json.dumps(solved_notebook({}))
        plant(inbound, f"{BOB}+{ASSIGNMENT}+".encode() + stamp(now.replace(year=2098))
              + b"+forged", {NOTEBOOK: stubs, "timestamp.txt": "2098-01-01 00:00:00.000000 UTC",
                             "padding": ("sparse", 101 * 2**20)})
        source = out.root / "source" / ASSIGNMENT / NOTEBOOK
        plant(inbound, f"{ALICE}+{ASSIGNMENT}+".encode() + stamp(now) + b"+link",
              {NOTEBOOK: ("link", str(source)), "timestamp.txt": now.strftime(STAMP)})
        plant(inbound, f"{ALICE}+{ASSIGNMENT}+".encode() + stamp(now) + b"+zero",
              {NOTEBOOK: stubs, "evidence.json": ("link", "/dev/zero"),
               "timestamp.txt": now.strftime(STAMP)})
        plant(inbound, f"{ALICE}+{ASSIGNMENT}+".encode() + stamp(now) + b"+links",
              {NOTEBOOK: stubs, "blob": ("hardlinks", 200), "timestamp.txt": now.strftime(STAMP)})
        plant(inbound, f"{ALICE}+{ASSIGNMENT}+".encode() + stamp(now) + b"+\xff",
              {NOTEBOOK: stubs, "timestamp.txt": now.strftime(STAMP)})
        plant(inbound, f"\x1b[31m{PREFIX}-evil\x07+{ASSIGNMENT}+".encode() + stamp(now) + b"+esc",
              {NOTEBOOK: stubs, "timestamp.txt": now.strftime(STAMP)})

        for step in ("collect", "grade", "feedback", "export"):
            done = grader(*cohort, step, COHORT, cwd=ta_home, timeout=600)
            out.lines[step] = done
            assert done.returncode == 0, (step, done.stdout[-3000:], done.stderr[-3000:])
        status = grader("status", "--root", str(out.root), cwd=ta_home)
        out.lines["status"] = status
        yield out


def grades(course: SimpleNamespace) -> dict[str, dict[str, str]]:
    with (course.root / "grades.csv").open(newline="", encoding="utf-8") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


# ------------------------------------------------------------------ what students can reach

def test_the_course_root_is_closed_to_students(course: SimpleNamespace) -> None:
    """Items 1 and 3-5: the source (the reference), classmates' submissions and secrets,
    receipts and grades; nothing in submitted/ a student can change; the lock no student
    can hold."""
    root = course.root
    submitted = root / "submitted" / CAROL / ASSIGNMENT
    for user in (ALICE, BOB):
        assert not can(user, f"cat {root / 'source' / ASSIGNMENT / NOTEBOOK}", course.base)
        assert not can(user, f"ls {root}", course.base)
        assert not can(user, f"cat {submitted / 'submission_secret.txt'}", course.base)
        assert not can(user, f"touch {submitted / 'planted'}", course.base)
        assert not can(user, f"cat {root / 'receipts' / (ASSIGNMENT + '.json')}", course.base)
        assert not can(user, f"cat {root / 'grades.csv'}", course.base)
        assert not can(user, f"flock -n {root / '.autograder-grading.lock'} true", course.base)
    assert can(TA, f"cat {root / 'grades.csv'}", course.base)  # and the instructor can
    assert "access: closed to all but its owner" in course.lines["status"].stdout


def test_the_graders_hidden_files_are_named_until_closed(course: SimpleNamespace) -> None:
    """Item 2: the bundle's checks and reference, readable as a clone leaves them, are named
    by the first command; once the instructor closed them, no student reads them and no
    command says it again."""
    assert f"can read assignment {ASSIGNMENT}'s hidden checks" in course.lines["open install"]
    reference = course.bundles / ASSIGNMENT / "reference.py"
    assert not can(ALICE, f"cat {reference}", course.base)
    assert can(TA, f"cat {reference}", course.base)
    for step in ("collect", "grade", "feedback", "export"):
        assert "hidden checks" not in course.lines[step].stderr, step


# ------------------------------------------------------------------ Alice's attacks

def test_every_planted_folder_is_refused_with_a_line(course: SimpleNamespace) -> None:
    """Items 8-12 and 14: each of Alice's folders is refused, one line each naming it."""
    said = course.lines["collect"].stdout + course.lines["collect"].stderr
    refused = [line for line in said.splitlines() if "refused" in line]
    assert any(BOB in line and ALICE in line for line in refused), said  # made by Alice
    for why in ("link", "/dev/zero", "hard link", "UTF-8", "control"):
        assert any(why in line for line in refused), (why, said)


def test_the_honest_students_are_graded_on_their_own_work(course: SimpleNamespace) -> None:
    rows = grades(course)
    for student in (BOB, CAROL):
        assert rows[student]["total"] == "10", rows[student]
        assert rows[student]["late"] == "no", rows[student]
    assert rows.get(ALICE, {}).get("total") in (None, "", "0"), rows.get(ALICE)


def test_no_terminal_control_reaches_a_ta(course: SimpleNamespace) -> None:
    """Item 14: whatever a folder's name carried, what the TA reads is plain text."""
    for name, done in course.lines.items():
        text = done if isinstance(done, str) else done.stdout + done.stderr
        assert "\x1b" not in text and "\x07" not in text, name
    assert "\x1b" not in (course.root / "grades.csv").read_text(encoding="utf-8")
