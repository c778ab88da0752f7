"""A forked worker starts warm (issue 17): running a submission's cells and the first call of a
student function import nothing. Every module a worker imports itself is paid again by every
submission (numpy imports ``numpy.random`` lazily: the first seeded call cost about 7 ms)."""

from __future__ import annotations

import os
import time

import pytest

from autograder.bundles.h2_attention import samples as sample_cohort
from autograder.grading.submission import load_submission
from autograder.sandbox.client import SandboxStudent
from autograder.sandbox.uids import UidLease
from tests.support.h2 import H2, SPEC
from tests.support.skips import needs
from tests.support.wire import cell_errors, start_zygote

pytestmark = pytest.mark.slow

RECORD = "import sys as _sys\n_BEFORE = set(_sys.modules)\n"
NEW_MODULES = "def _new_modules():\n    return sorted(set(_sys.modules) - _BEFORE)\n"


def test_a_submissions_cells_and_its_first_call_import_nothing_new(tmp_path):
    (correct,) = [variant for variant in sample_cohort.VARIANTS if variant.name == "correct"]
    sample_cohort.build_submission(tmp_path, "s1", correct, None,
                                   submitted_at=sample_cohort.on_time(0, 1))
    submission = load_submission(tmp_path / "submitted" / "s1" / SPEC.name, "s1", assignment=H2)
    lease = UidLease.acquire()
    zygote = start_zygote()
    try:
        cells = [RECORD, *submission.runnable, NEW_MODULES]
        with SandboxStudent(cells, zygote, uid=lease.uid) as student:
            assert cell_errors(student) == []
            assert student.call("_new_modules") == []
    finally:
        zygote.close()
        lease.release()


def _supports_madv_collapse() -> bool:
    release = tuple(int(part) for part in os.uname().release.split(".")[:2] if part.isdigit())
    try:
        mode = open("/sys/kernel/mm/transparent_hugepage/enabled").read()
    except OSError:
        return False
    return release >= (6, 1) and "[never]" not in mode


@pytest.mark.skipif(not _supports_madv_collapse(), reason=needs(
    "needs Linux 6.1+ with THP not 'never'",
    "on Linux 6.1+: echo madvise | sudo tee /sys/kernel/mm/transparent_hugepage/enabled"))
def test_the_zygotes_memory_is_on_huge_pages():
    """A fork and exit of the zygote costs about 9 ms of CPU on 2 MiB pages, 25 ms on 4 KiB
    pages (page tables): ``HugePages`` moves most of its heap onto huge pages, a page at a
    time while the zygote is idle after it said it was ready (about 0.3 s in all)."""
    zygote = start_zygote()
    try:
        deadline = time.monotonic() + 20
        while True:
            rollup = open(f"/proc/{zygote.process.pid}/smaps_rollup").read()
            fields = {line.split(":")[0]: int(line.split()[1]) for line in rollup.splitlines()[1:]}
            if fields["AnonHugePages"] >= fields["Anonymous"] // 2 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
    finally:
        zygote.close()
    assert fields["AnonHugePages"] >= fields["Anonymous"] // 2, fields


def test_a_worker_collects_its_own_garbage(tmp_path):
    """The zygote imports with cyclic GC off and freezes what it imported: a worker forked
    from it must have GC on again (student code that makes cycles would otherwise keep them
    until the memory limit), with the zygote's objects frozen out of its collections."""
    cells = ["import gc\n"
             "def _gc_state():\n"
             "    return [gc.isenabled(), gc.get_freeze_count() > 100_000]\n"]
    lease = UidLease.acquire()
    zygote = start_zygote()
    try:
        with SandboxStudent(cells, zygote, uid=lease.uid) as student:
            assert cell_errors(student) == []
            assert student.call("_gc_state") == [True, True]
    finally:
        zygote.close()
        lease.release()
