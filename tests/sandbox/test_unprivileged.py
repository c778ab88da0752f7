"""Grading without root (a TA's laptop): real isolation through unprivileged user namespaces.

The batch runs as ``nobody`` through the real command line, grading the small ``vectors``
bundle (``--assignments tests/bundles``: isolation is the engine's). A submission leaves
a double-forked daemon that waits for the batch to end and then rewrites the
grades; another allocates memory ``RLIMIT_AS`` does not count. Afterwards no
process of the batch is alive, every file is as the grader wrote it, and the
results record full isolation (user, PID, mount and network namespaces, no
privileges, seccomp). Where the kernel refuses unprivileged namespaces, the
grader refuses to grade unless told otherwise (``--allow-weaker-isolation``).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from autograder.assignments.exposure import SINGLE_USER
from autograder.base.course import Course
from autograder.spec import REPO
from tests.sandbox.hostile.hostile_cases import code
from tests.support.seccomp import NO_NAMESPACES  # refuses namespaces, as Docker's profile
from tests.support.skips import AS_ROOT, needs
from tests.support.vectors import BUNDLES, REFERENCE, VECTORS, solved_notebook

pytestmark = pytest.mark.slow
NOBODY = 65534
# The interpreter must be one ``nobody`` can run: the system's, of the same version as ours
# (the virtual environment's packages are shared through PYTHONPATH).
SYSTEM_PYTHON = Path(f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}")


def daemon(marker: str, targets: list[Path]) -> str:
    return code(f"""
        import ctypes, os, time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                ctypes.CDLL(None).prctl(15, {marker!r}.encode(), 0, 0, 0)
                time.sleep(4)
                for path in {[str(t) for t in targets]!r}:
                    try:
                        open(path, "w").write("forged")
                    except OSError:
                        pass
                time.sleep(1000)
            os._exit(0)
        """)


MEMFD = "import os\nfd = os.memfd_create('hog')\nos.ftruncate(fd, 2**31)\n"


def build_course(root: Path, marker: str) -> None:
    """Three submissions of the reference, two with a cell of their own after ``dot``'s."""
    course = Course(root, VECTORS.name)
    targets = [root / "grades.csv", course.autograded("a-correct") / "results.json"]
    for student, extra in (("a-correct", None), ("b-daemon", daemon(marker, targets)),
                           ("c-memfd", MEMFD)):
        notebook = solved_notebook(REFERENCE)
        if extra:
            at = next(i for i, cell in enumerate(notebook["cells"]) if cell.get(
                "metadata", {}).get("nbgrader", {}).get("grade_id") == "dot") + 1
            notebook["cells"].insert(at, {"cell_type": "code", "execution_count": None,
                                          "metadata": {}, "outputs": [], "source": extra})
        folder = course.submitted(student)
        folder.mkdir(parents=True)
        (folder / VECTORS.notebook).write_text(json.dumps(notebook), encoding="utf-8")
    for path in [root, *root.rglob("*")]:
        os.chown(path, NOBODY, NOBODY)
    root.chmod(0o700)  # closed, as a course root is (an open one adds a warning line)




def run_as_nobody(root: Path, *extra: str, namespaces: bool = True) -> subprocess.CompletedProcess:
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(root),
        "MPLBACKEND": "Agg",
        "PYTHONPATH": os.pathsep.join([str(REPO), sysconfig.get_paths()["purelib"]]),
        SINGLE_USER: "1",  # isolation is tested here; the install check, in test_exposure
    }
    launcher = [] if namespaces else ["-c", NO_NAMESPACES]
    command = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
               str(SYSTEM_PYTHON), *launcher, "-m", "autograder", "autograde", VECTORS.name,
               "--assignments", str(BUNDLES), "--root", str(root), "--no-progress", "--jobs",
               "2", *extra]
    return subprocess.run(command, env=env, cwd=root, capture_output=True, text=True,
                          timeout=600, check=False)


def processes_named(marker: str) -> list[str]:
    found = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and marker in Path(f"/proc/{entry}/comm").read_text():
                found.append(entry)
        except OSError:
            continue
    return found


@pytest.fixture
def course() -> Iterator[tuple[Path, str]]:
    if os.geteuid() != 0 or not SYSTEM_PYTHON.exists() or not shutil.which("setpriv"):
        pytest.skip(needs(f"needs root to become nobody, setpriv and {SYSTEM_PYTHON}", AS_ROOT))
    unreachable = [p for p in (REPO, Path(sysconfig.get_paths()["purelib"]))
                   if any(not q.stat().st_mode & 0o001 for q in (p, *p.parents))]
    if unreachable:
        pytest.skip(needs(f"{unreachable[0]} is not readable by other users",
                          f"make it readable: chmod o+rx {unreachable[0]} and its parents"))
    base = Path(tempfile.mkdtemp(prefix="h2-unprivileged-"))  # /tmp: nobody can reach it
    base.chmod(0o755)
    marker = f"ux{uuid.uuid4().hex[:8]}"
    root = base / "course"
    build_course(root, marker)
    yield root, marker
    shutil.rmtree(base, ignore_errors=True)


def test_a_batch_without_root_is_fully_isolated(course: tuple[Path, str]) -> None:
    root, marker = course
    done = run_as_nobody(root)
    assert done.returncode == 0, done.stdout + done.stderr
    with (root / "grades.csv").open(newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    assert {student: row["isolation"] for student, row in rows.items()} == dict.fromkeys(rows, "full")
    assert rows["a-correct"]["total"] == "10", rows["a-correct"]
    assert "PermissionError" in rows["c-memfd"]["reason"], rows["c-memfd"]
    saved = json.loads((Course(root, VECTORS.name).autograded("a-correct") / "results.json")
                       .read_text())
    assert {"user-namespace", "pid-namespace", "seccomp"} <= set(saved["extra_data"]["isolation"])

    before = {path: path.read_bytes() for path in root.rglob("*") if path.is_file()}
    assert processes_named(marker) == [], "a daemon outlived the batch"
    time.sleep(5)  # the daemon would have written by now
    assert {path: path.read_bytes() for path in root.rglob("*") if path.is_file()} == before


def test_without_user_namespaces_the_grader_refuses_unless_told(course: tuple[Path, str]) -> None:
    """Namespaces refused (as in a container under Docker's default seccomp profile):
    one line, exit 2, nothing written; with ``--allow-weaker-isolation`` the batch runs
    and says so in every row."""
    root, _ = course
    refused = run_as_nobody(root, "--student", "a-correct", namespaces=False)
    assert not (root / "grades.csv").exists() and not (root / "autograded").exists()
    allowed = run_as_nobody(root, "--student", "a-correct", "--allow-weaker-isolation",
                            namespaces=False)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert "--allow-weaker-isolation" in refused.stderr and "Traceback" not in refused.stderr
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    with (root / "grades.csv").open(newline="") as handle:
        row = next(csv.DictReader(handle))
    assert row["isolation"].startswith("weaker: no pid-namespace"), row
