"""A file the student's code cannot find is named as the student's own folder shows it, whatever
the isolation: never the grading machine's scratch folder, and not flagged as reaching out."""

from __future__ import annotations

import pytest

from autograder.grading.grade_one import PRIVATE_PATH
from autograder.sandbox.client import SandboxStudent
from autograder.sandbox.uids import UidLease
from autograder.untrusted.isolation import WORKDIR
from tests.support.wire import cell_errors, start_zygote

pytestmark = pytest.mark.slow

CELL = "import os\nopen(os.path.abspath('data.csv'))"
FUNCTION = "import os\ndef load():\n    return open(os.path.expanduser('~/weights.npy')).read()\n"


@pytest.mark.parametrize("isolate", [True, False], ids=["isolated", "no-isolation"])
def test_a_missing_file_is_named_in_the_students_folder(isolate):
    lease = UidLease.acquire()
    zygote = start_zygote()
    try:
        with SandboxStudent([CELL, FUNCTION], zygote, uid=lease.uid, isolate=isolate,
                            allow_weaker=not isolate) as student:
            scratch = student._scratch
            (cell_error,) = cell_errors(student)
            with pytest.raises(Exception) as raised:
                student.call("load")
    finally:
        zygote.close()
        lease.release()
    messages = [cell_error.message, raised.value.message]
    assert f"'{WORKDIR}/data.csv'" in messages[0], messages
    assert f"'{WORKDIR}/weights.npy'" in messages[1], messages
    for message in messages:
        assert scratch not in message and PRIVATE_PATH not in message, message
