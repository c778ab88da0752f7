"""A function the grader gave up on (it hung, crashed or sent a malformed reply) is not called
again, and every later call of it fails the same way, by the kind recorded when it was given
up (``GivenUp``), never by reading that kind back out of the message's words."""

from __future__ import annotations

import pytest

from autograder.sandbox.client import MALFORMED, SandboxStudent
from autograder.sandbox.limits import Limits
from autograder.untrusted.errors import ErrorKind, StudentError

pytestmark = pytest.mark.slow

NOTEBOOK = [
    "import os, sys\n"
    "def spin():\n    while True:\n        pass\n"
    "def leave():\n    os._exit(3)\n"
    "def forge():\n"
    "    protocol = sys.modules['autograder.untrusted.protocol']\n"
    "    import gc\n"
    "    (worker,) = [o for o in gc.get_objects() if type(o).__name__ == 'Worker']\n"
    "    protocol.send(worker.sock, {'ok': False, 'error': {'kind': 'exploded'}})\n"
    "    os._exit(0)\n"
    "def fine():\n    return 1\n",
]


def _errors(student: SandboxStudent, name: str) -> list[StudentError]:
    errors = []
    for _ in range(2):
        with pytest.raises(StudentError) as raised:
            student.call(name)
        errors.append(raised.value)
    return errors


@pytest.mark.parametrize(
    "name, kind, message",
    [
        ("spin", ErrorKind.TIMEOUT, "stopped after 1 s: an endless loop?"),
        ("leave", ErrorKind.CRASHED, "os._exit, a fatal error or the memory limit"),
        ("forge", ErrorKind.CRASHED, MALFORMED),
    ],
)
def test_a_function_given_up_on_fails_again_the_same_way(sandbox, name, kind, message):
    zygote, uid = sandbox
    limits = Limits(cell_timeout=5, call_timeout=1.0, notebook_timeout=30)
    with SandboxStudent(NOTEBOOK, zygote, uid=uid, limits=limits, isolate=False,
                        allow_weaker=True) as student:
        first, again = _errors(student, name)
        assert student.call("fine") == 1  # the others still run, in a new worker
        restarts = student.report.restarts
        _errors(student, name)
        assert student.report.restarts == restarts  # given up: never sent to a worker again
    for error in (first, again):
        assert (error.kind, error.message, error.function) == (kind, message, name)
