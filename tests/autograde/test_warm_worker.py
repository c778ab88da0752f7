"""A forked worker starts warm (issue 17): running a submission's cells and the first call of a
student function import nothing. Every module a worker imports itself is paid again by every
submission (numpy imports ``numpy.random`` lazily: the first seeded call cost about 7 ms)."""

from __future__ import annotations

import pytest

from autograder.authoring import sample_cohort
from autograder.grading.submission import load_submission
from autograder.sandbox.client import SandboxStudent
from autograder.sandbox.uids import UidLease
from autograder.sandbox.zygote import Zygote
from autograder.spec import SPEC

pytestmark = pytest.mark.slow

RECORD = "import sys as _sys\n_BEFORE = set(_sys.modules)\n"
NEW_MODULES = "def _new_modules():\n    return sorted(set(_sys.modules) - _BEFORE)\n"


def test_a_submissions_cells_and_its_first_call_import_nothing_new(tmp_path):
    (correct,) = [variant for variant in sample_cohort.VARIANTS if variant.name == "correct"]
    sample_cohort.build_submission(tmp_path, "s1", correct, None,
                                   submitted_at=sample_cohort.on_time(0, 1))
    submission = load_submission(tmp_path / "submitted" / "s1" / SPEC.name, "s1")
    lease = UidLease.acquire()
    zygote = Zygote.start()
    try:
        cells = [RECORD, *submission.runnable, NEW_MODULES]
        with SandboxStudent(cells, zygote, uid=lease.uid) as student:
            assert student.cell_errors == []
            assert student.call("_new_modules") == []
    finally:
        zygote.close()
        lease.release()
