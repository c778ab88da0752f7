"""Every cohort step that writes the root holds it (issue 51, items 2 and 7).

Before: `cohort export`, `cohort feedback` and `cohort report` ran while a grading run held
the root (one export wrote a Canvas file mixing old and new totals), `cohort collect` waited
without a word, and `status` called everything current. Now each refuses at once in one
line naming who holds the root (pid, user, command, since when), writes nothing, and
`status` says a run is in progress."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from autograder.batch.engine import BatchOptions
from autograder.integrations.cohorts import workflow
from autograder.integrations.cohorts.config import get_cohort
from autograder.sandbox.limits import Limits
from tests.support.cohort_config import term_config
from tests.support.vectors import submit
from tests.support.vectors_source import bundles_with_source

pytestmark = pytest.mark.slow

FAST = BatchOptions(jobs=2, progress=False, limits=Limits(cell_timeout=5, call_timeout=3))
HOLDER = """
import sys
from pathlib import Path
root = Path(sys.argv[1])
sys.argv = ["autograder", "autograde", "--force"]  # what the holder says it runs
from autograder.batch.root_lock import hold
with hold(root):
    print("held", flush=True)
    sys.stdin.read()  # until the test closes it
"""

@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A released cohort of the vectors bundle with two graded students, and its config."""
    tmp = tmp_path_factory.mktemp("cohort")
    bundles_with_source(tmp / "bundles")
    config = term_config(tmp, "2030-01-01 00:00:00 UTC")
    cohort = get_cohort("term", config)
    workflow.release(cohort)
    for student in ("s1", "s2"):
        submit(cohort.root, student)
    workflow.grade(cohort, FAST)
    return cohort.root, config


def _files(root: Path) -> dict[str, bytes]:
    return {path.relative_to(root).as_posix(): path.read_bytes()
            for path in sorted(root.rglob("*")) if path.is_file()
            and not path.name.startswith(".autograder-grading")}


@pytest.mark.parametrize("step", ["export", "feedback", "report", "collect"])
def test_a_cohort_step_refuses_while_another_command_changes_the_root(graded, step):
    root, config = graded
    before = _files(root)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(root)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        refused = subprocess.run([sys.executable, "-m", "autograder", "cohort", step, "term",
                                  "--config", str(config)],
                                 capture_output=True, text=True, timeout=300)
        status = subprocess.run([sys.executable, "-m", "autograder", "status", "--root",
                                 str(root), "--assignments", str(root.parents[1] / "bundles")],
                                capture_output=True, text=True, timeout=300)
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
    assert refused.returncode == 2, (refused.stdout, refused.stderr)
    errors = [line for line in refused.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in refused.stderr, refused.stderr
    assert f"another command is changing {root}" in errors[0]
    assert f"pid {holder.pid} of user " in errors[0] and "autograde --force" in errors[0]
    assert _files(root) == before  # nothing written
    assert f"IN PROGRESS: pid {holder.pid} of user " in status.stdout, status.stderr
