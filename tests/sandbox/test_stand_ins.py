"""Error carried forward for hangs and crashes (issue 26): once a building block hung or
crashed, the calls other functions make to it are answered by the grader (plain data both ways),
so they are graded as if it were right. The stand-in gives nothing to the block itself, answers
only what was offered for the call at hand, and only small inputs. Shown on the small `vectors`
bundle (its reference answers for `dot` and `norm`): the stand-ins are the sandbox's, whatever
the assignment."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from autograder.grading.grade_one import reference_stand_in
from autograder.sandbox.client import MALFORMED, SandboxStudent
from autograder.sandbox.limits import Limits
from autograder.untrusted.errors import StudentError
from tests.support.vectors import VECTORS

pytestmark = pytest.mark.slow

# The functions the others build on (`norm` calls `dot`, `normalize` calls `norm`), named here:
# the bundle's assignment.toml declares no `building_blocks` (the grader passes a spec's).
BLOCKS = ("dot", "norm")
REFERENCE = VECTORS.reference

CALLERS = '''
import numpy as np

def dot(a, b):
    return float(np.sum(np.asarray(a, dtype=float) * np.asarray(b, dtype=float)))

def norm(a):
    return float(np.sqrt(dot(a, a)))

def normalize(a):
    return np.asarray(a, dtype=float) / norm(a)
'''
LOOPING_NORM = '''
def norm(a):
    while True:
        pass
'''
LOOPING_DOT = '''
def dot(a, b):
    while True:
        pass
'''
SHIFTED = '''
def norm(a):  # a slip: the dot product of a with a shorter copy of itself
    return float(np.sqrt(dot(a, a[1:])))
'''
CAPTURING = '''
captured = {}

def norm(a):
    if "norm" in captured:  # the grader's stand-in, kept from an earlier call
        return captured["norm"](a)
    while True:
        pass

def normalize(a):
    captured["norm"] = norm
    return np.asarray(a, dtype=float) / norm(a)
'''
HUGE = '''
def normalize(a):
    return norm(np.zeros(100_000))
'''
FORGED = '''
import gc, sys

def normalize(a):
    protocol = sys.modules["autograder.untrusted.protocol"]
    plain = sys.modules["autograder.untrusted.plain"]
    (worker,) = [o for o in gc.get_objects() if type(o).__name__ == "Worker"]
    channel = worker.sock
    protocol.send(channel, {"op": "stand_in", "name": "norm"}, plain.encode(([a], {})))
    return protocol.recv(channel)
'''
A = np.random.default_rng(5).standard_normal(4)


@pytest.fixture(scope="module")
def sandbox() -> Iterator[tuple[object, int]]:
    """A zygote preloading what `vectors` preloads (NumPy, no torch) and a leased uid."""
    from autograder.sandbox.uids import UidLease
    from tests.support.wire import start_zygote

    lease = UidLease.acquire()
    zygote = start_zygote(VECTORS.preload)
    yield zygote, lease.uid
    zygote.close()
    lease.release()


def _student(sandbox, *cells: str) -> SandboxStudent:
    zygote, uid = sandbox
    return SandboxStudent(list(cells), zygote, uid=uid, limits=Limits(call_timeout=1.0),
                          stand_in=reference_stand_in(VECTORS), stand_in_names=BLOCKS)


def test_after_a_block_loops_its_callers_get_the_right_answer_and_it_gets_none(sandbox):
    with _student(sandbox, CALLERS, LOOPING_NORM) as student:
        with pytest.raises(StudentError) as looped:
            student.call("norm", A)
        assert looped.value.kind == "timeout"
        assert student.take_stand_ins() == ()
        got = student.call("normalize", A)
        assert np.allclose(got, REFERENCE.normalize(A))
        assert student.take_stand_ins() == ("norm",)
        with pytest.raises(StudentError):  # the block itself: never answered for
            student.call("norm", A)
        assert student.take_stand_ins() == ()


def test_a_loop_met_first_inside_another_call_is_the_blocks_and_the_call_is_made_again(sandbox):
    with _student(sandbox, CALLERS, LOOPING_NORM) as student:
        got = student.call("normalize", A)
        assert np.allclose(got, REFERENCE.normalize(A))
        assert any("`norm` did not finish" in event for event in student.report.events)
        with pytest.raises(StudentError) as looped:
            student.call("norm", A)
        assert looped.value.kind == "timeout"


def test_the_reference_error_is_raised_in_the_students_code(sandbox):
    """Vectors of different lengths: the right answer of the block is an error, raised as
    its type."""
    with _student(sandbox, CALLERS, LOOPING_DOT, SHIFTED) as student:
        with pytest.raises(StudentError):
            student.call("dot", A, A)
        with pytest.raises(StudentError) as raised:
            student.call("norm", A)
        assert raised.value.is_a("ValueError")


def test_a_captured_stand_in_earns_the_block_nothing(sandbox):
    with _student(sandbox, CALLERS, CAPTURING) as student:
        with pytest.raises(StudentError):
            student.call("norm", A)
        student.call("normalize", A)  # captures the stand-in
        with pytest.raises(StudentError) as given_up:
            student.call("norm", A)
        assert given_up.value.kind == "timeout"


def test_a_stand_in_answers_small_inputs_only(sandbox):
    with _student(sandbox, CALLERS, LOOPING_NORM, HUGE) as student:
        with pytest.raises(StudentError):
            student.call("norm", A)
        with pytest.raises(StudentError) as refused:
            student.call("normalize", A)
        assert refused.value.type_name == "StandInUnavailable"
        assert "small inputs only" in refused.value.message
        assert student.take_stand_ins() == ()  # refused: nothing was answered for it


def test_a_request_for_an_answer_not_offered_is_a_malformed_reply(sandbox):
    with _student(sandbox, CALLERS, FORGED) as student:
        with pytest.raises(StudentError) as forged:
            student.call("normalize", A)
        assert forged.value.kind == "crashed", forged.value.describe()
        assert forged.value.message == MALFORMED
        assert student.take_stand_ins() == ()
