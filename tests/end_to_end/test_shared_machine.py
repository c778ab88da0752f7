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
import os
import pwd
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest

from autograder.assignments.exposure import SINGLE_USER
from autograder.spec import REPO
from tests.support.bundle_copies import copy_bundle
from tests.support.skips import AS_ROOT, needs
from tests.support.vectors import REFERENCE, VECTORS, solved_notebook
from tests.support.vectors_source import source_notebook

pytestmark = pytest.mark.slow
SYSTEM_PYTHON = Path(f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}")
PREFIX = "h2sm"  # every user this test makes is named h2sm-<who>
TA, ALICE, BOB, CAROL = (f"{PREFIX}-{who}" for who in ("ta", "alice", "bob", "carol"))
COHORT = COURSE = f"{PREFIX}-fall"
ASSIGNMENT = VECTORS.name
NOTEBOOK = VECTORS.notebook
STAMP = "%Y-%m-%d %H:%M:%S.%f UTC"  # nbgrader's timestamp in inbound folder names


def _missing() -> str:
    if os.geteuid() != 0:
        return needs("needs root to make Unix users", AS_ROOT)
    for tool in ("useradd", "userdel", "setpriv", "flock"):
        if shutil.which(tool) is None:
            return needs(f"{tool} not installed", "apt-get install -y passwd util-linux")
    if not SYSTEM_PYTHON.exists():
        return needs(f"{SYSTEM_PYTHON} not installed", f"apt-get install -y {SYSTEM_PYTHON.name}")
    for path in (REPO, Path(sysconfig.get_paths()["purelib"])):
        if any(not folder.stat().st_mode & 0o001 for folder in (path, *path.parents)):
            return needs(f"{path} cannot be reached by other users",
                         f"chmod o+x {path} and each folder above it")
    return ""


def _make_user(name: str, home: Path) -> None:
    subprocess.run(["userdel", "--force", name], capture_output=True, check=False)
    subprocess.run(["groupdel", name], capture_output=True, check=False)
    subprocess.run(["useradd", "--no-create-home", "--home-dir", str(home), "--shell",
                    "/bin/sh", "--user-group", name], check=True, capture_output=True)
    home.mkdir(parents=True)
    shutil.chown(home, name, name)
    home.chmod(0o755)  # Debian's useradd: homes 0755


def run_as(user: str, *argv: str, cwd: Path, shared: bool = True, check: bool = False,
           timeout: float = 300) -> subprocess.CompletedProcess:
    """``argv`` as ``user`` (its groups too), in a hub terminal's plain environment."""
    entry = pwd.getpwnam(user)
    packages = [sysconfig.get_paths()["purelib"]]
    if user == TA:
        packages.insert(0, str(REPO))  # the grader: the instructor's alone to run
    env = {"PATH": "/usr/bin:/bin", "HOME": entry.pw_dir, "USER": user, "LOGNAME": user,
           "PYTHONPATH": os.pathsep.join(packages), "MPLBACKEND": "Agg",
           "OPENBLAS_NUM_THREADS": "1"}
    if not shared:
        env[SINGLE_USER] = "1"
    done = subprocess.run(["setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}",
                           "--init-groups", *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout, check=False)
    if check:
        assert done.returncode == 0, (argv, done.stdout[-3000:], done.stderr[-3000:])
    return done


def grader(*args: str, cwd: Path, **how) -> subprocess.CompletedProcess:
    return run_as(TA, str(SYSTEM_PYTHON), "-m", "autograder", *args, cwd=cwd, **how)


def nbgrader(user: str, *args: str, exchange: Path, **how) -> subprocess.CompletedProcess:
    home = Path(pwd.getpwnam(user).pw_dir)
    return run_as(user, str(SYSTEM_PYTHON), "-m", "nbgrader", *args, f"--course={COURSE}",
                  f"--Exchange.root={exchange}", cwd=home, **how)


def can(user: str, shell: str, cwd: Path) -> bool:
    """Whether ``user`` succeeds at ``shell`` (a test, a read, a write...)."""
    return run_as(user, "/bin/sh", "-c", shell, cwd=cwd, timeout=30).returncode == 0


def submit(user: str, exchange: Path, functions: dict[str, str] | None) -> None:
    """``user`` fetches the release, writes ``functions`` into it (None: as released) and
    submits."""
    home = Path(pwd.getpwnam(user).pw_dir)
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
    missing = _missing()
    if missing and os.environ.get("CI"):  # a skipped multi-user test proves nothing there
        pytest.fail(f"{missing}; CI must run the shared-machine test (.ci/run runs as root "
                    "on Debian)", pytrace=False)
    if missing:
        pytest.skip(missing)
    base = Path(tempfile.mkdtemp(prefix="h2-shared-machine-", dir="/tmp"))
    base.chmod(0o755)
    homes = base / "home"
    users = (TA, ALICE, BOB, CAROL)
    try:
        for user in users:
            _make_user(user, homes / user)
        exchange = base / "exchange"
        exchange.mkdir()
        exchange.chmod(0o1777)  # the admin's, as nbgrader's docs make it
        ta_home = homes / TA
        bundles = ta_home / "bundles"
        copy_bundle(ASSIGNMENT, bundles, ASSIGNMENT)
        (bundles / ASSIGNMENT / "source").mkdir()
        (bundles / ASSIGNMENT / "source" / NOTEBOOK).write_text(json.dumps(source_notebook()),
                                                                encoding="utf-8")
        config = ta_home / "cohorts.toml"
        config.write_text(f'[defaults]\ncourses_root = "{ta_home / "courses"}"\n'
                          f'exchange = "{exchange}"\nassignments = ["{bundles}"]\n'
                          f'assignment = "{ASSIGNMENT}"\n\n[cohorts.{COHORT}]\n'
                          f'course_id = "{COURSE}"\ndue = "2099-01-01 00:00:00 UTC"\n')
        subprocess.run(["chown", "-R", f"{TA}:{TA}", str(ta_home)], check=True)
        for path in [bundles, *bundles.rglob("*")]:  # as a clone leaves them: 0755/0644
            path.chmod(0o755 if path.is_dir() else 0o644)
        out = SimpleNamespace(base=base, exchange=exchange, config=config, ta_home=ta_home,
                              bundles=bundles, root=ta_home / "courses" / COHORT, lines={})
        cohort = ("cohort", "--config", str(config))

        # The instructor releases with the bundle as a clone leaves it: the grader says so.
        released = grader(*cohort, "release", COHORT, cwd=ta_home)
        assert released.returncode == 0, released.stderr
        out.lines["open install"] = released.stderr
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
    finally:
        for user in users:
            subprocess.run(["userdel", "--force", user], capture_output=True, check=False)
            subprocess.run(["groupdel", user], capture_output=True, check=False)
        shutil.rmtree(base, ignore_errors=True)


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
