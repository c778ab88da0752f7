"""The batch command starts the zygote before it checks the course and imports the grader
(``launch_sandbox``), so both warm up side by side. A zygote started that early may have more
channels than the batch needs, or not be needed at all: it must still serve the channels that
are used, and never be left running (importing torch) when it is not."""

from __future__ import annotations

from pathlib import Path

from autograder.base.course import Course
from autograder.batch.engine import grade_course
from autograder.batch.options import BatchOptions, launch_sandbox
from autograder.sandbox.client import SandboxStudent
from autograder.sandbox.limits import Limits
from autograder.sandbox.uids import UidLease
from autograder.sandbox.zygote import Zygote, discard
from tests.support.h2 import SPEC  # the packaged assignment: what `autograde NAME` finds
from tests.support.vectors import VECTORS  # the sandbox's life is the engine's


def test_channels_closed_before_the_zygote_is_ready_do_not_stop_it():
    """A batch with fewer submissions than ``--jobs`` closes the surplus channels at once,
    long before the zygote has imported torch and says it is ready on every channel."""
    owner, *surplus = Zygote.launch(channels=3)
    discard(surplus)
    lease = UidLease.acquire()
    try:
        owner.wait_ready()
        with SandboxStudent([], owner, limits=Limits(), uid=lease.uid) as worker:
            assert worker.report.isolation
    finally:
        owner.close()
        lease.release()
    assert owner.process.returncode == 0  # it ended as it should once its last channel closed


def test_a_discarded_zygote_is_ended_at_once():
    """Discarding the owner kills the zygote even while it is still importing (it reads its
    channels only once it is warm), and discarding it again is harmless."""
    channels = Zygote.launch(channels=2)
    discard(channels)
    assert channels[0].process.returncode is not None  # waited for: no zombie, nothing running
    discard(channels)


def test_a_batch_with_nothing_to_grade_ends_the_sandbox_it_was_given(tmp_path: Path):
    options = BatchOptions(jobs=2, progress=False, write_gradebook=False)
    sandbox = launch_sandbox(options, VECTORS)
    assert sandbox is not None and len(sandbox) == 2
    summary = grade_course(Course(tmp_path, VECTORS.name), [], options, sandbox,
                           assignment=VECTORS)
    assert summary.results == []
    assert sandbox[0].process.returncode is not None


def test_an_unused_zygote_is_ended_before_the_batch_writes_its_grades(tmp_path: Path,
                                                                     monkeypatch):
    """Nothing to grade is known before the grades, the gradebook and the views are written:
    the zygote ends then, instead of importing torch (about 1.5 s of CPU) while they are."""
    from autograder.batch import engine

    options = BatchOptions(jobs=1, progress=False, write_gradebook=False)
    sandbox = launch_sandbox(options, VECTORS)
    running_when_written = []
    write = engine.grades_csv.write

    def spying(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        running_when_written.append(sandbox[0].process.poll() is None)
        return write(*args, **kwargs)

    monkeypatch.setattr(engine.grades_csv, "write", spying)
    grade_course(Course(tmp_path, VECTORS.name), [], options, sandbox, assignment=VECTORS)
    assert running_when_written == [False]


def test_a_batch_for_a_cluster_starts_no_local_sandbox():
    from autograder.batch.cluster.choice import parse_cluster

    assert launch_sandbox(BatchOptions(cluster=parse_cluster("dask-local:1")), VECTORS) is None


def test_the_command_launches_the_zygote_before_it_imports_the_grader(tmp_path: Path):
    """``autograde`` must not import NumPy, torch, nbformat, pytest or the grader before it
    launches the zygote: each of them delays the zygote's start, and so every batch."""
    import json
    import subprocess
    import sys

    probe = f"""
import json, sys
from autograder.batch import command
heavy = ("numpy", "torch", "nbformat", "pytest", "nbgrader", "autograder.batch.engine",
         "autograder.grading.grade_one")
seen = {{}}
def launch_sandbox(options, assignment):
    seen["loaded at launch"] = [name for name in heavy if name in sys.modules]
    return None
command.launch_sandbox = launch_sandbox
from autograder.cli import main
seen["exit"] = main(["autograde", {SPEC.name!r}, "--root", {str(tmp_path / "no-course")!r},
                     "--no-progress"])
seen["loaded after"] = [name for name in heavy if name in sys.modules]
print(json.dumps(seen))
"""
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120, cwd=Path(__file__).resolve().parents[2])
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["loaded at launch"] == []
    assert seen["exit"] == 2  # the course root does not exist: a one-line usage error
    assert "autograder.batch.engine" in seen["loaded after"]  # the probe can see an import
