"""Error carried forward for hangs and crashes (issue 26): once a building block hung or
crashed, the calls other functions make to it are answered by the grader (plain data both ways),
so they are graded as if it were right. The stand-in gives nothing to the block itself, answers
only what was offered for the call at hand, and only small inputs."""

from __future__ import annotations

import numpy as np
import pytest

import solutions
from autograder.grading.grade_one import reference_stand_in
from autograder.sandbox.client import MALFORMED, SandboxStudent
from autograder.sandbox.limits import Limits
from autograder.untrusted.errors import StudentError
from tests.support.h2 import H2

pytestmark = pytest.mark.slow

SDPA = '''
import numpy as np

def attention_scores(Q, K, scale=None):
    return (Q @ np.swapaxes(K, -1, -2)) / np.sqrt(Q.shape[-1])

def attention_context(weights, V):
    return weights @ V

def scaled_dot_product_attention(Q, K, V, mask=None):
    weights = stable_softmax(attention_scores(Q, K), mask=mask)
    return attention_context(weights, V), weights
'''
LOOPING_SOFTMAX = '''
def stable_softmax(scores, mask=None, temperature=1.0):
    while True:
        pass
'''
CAPTURING = '''
captured = {}

def stable_softmax(scores, mask=None, temperature=1.0):
    if "softmax" in captured:  # the grader's stand-in, kept from an earlier call
        return captured["softmax"](scores, mask=mask, temperature=temperature)
    while True:
        pass

def attention_context(weights, V):
    captured["softmax"] = stable_softmax
    return weights @ V
'''
HUGE = '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    return stable_softmax(np.zeros((400, 400)))
'''
FORGED = '''
import gc, sys

def attention_context(weights, V):
    protocol = sys.modules["autograder.untrusted.protocol"]
    plain = sys.modules["autograder.untrusted.plain"]
    (worker,) = [o for o in gc.get_objects() if type(o).__name__ == "Worker"]
    channel = worker.sock
    protocol.send(channel, {"op": "stand_in", "name": "scaled_dot_product_attention"},
                  plain.encode(([weights, weights, V], {})))
    return protocol.recv(channel)
'''
RNG = np.random.default_rng(5)
Q, K, V = RNG.standard_normal((3, 4)), RNG.standard_normal((5, 4)), RNG.standard_normal((5, 2))


def _student(sandbox, *cells: str) -> SandboxStudent:
    zygote, uid = sandbox
    return SandboxStudent(list(cells), zygote, uid=uid, limits=Limits(call_timeout=1.0),
                          stand_in=reference_stand_in(H2), stand_in_names=H2.building_blocks)


def _same(got, want) -> bool:
    return all(np.allclose(a, b) for a, b in zip(got, want, strict=True))


def test_after_a_block_loops_its_callers_get_the_right_answer_and_it_gets_none(sandbox):
    with _student(sandbox, SDPA, LOOPING_SOFTMAX) as student:
        with pytest.raises(StudentError) as looped:
            student.call("stable_softmax", Q @ K.T)
        assert looped.value.kind == "timeout"
        assert student.take_stand_ins() == ()
        got = student.call("scaled_dot_product_attention", Q, K, V)
        assert _same(got, solutions.scaled_dot_product_attention(Q, K, V))
        assert student.take_stand_ins() == ("stable_softmax",)
        with pytest.raises(StudentError):  # the block itself: never answered for
            student.call("stable_softmax", Q @ K.T)
        assert student.take_stand_ins() == ()


def test_a_loop_met_first_inside_another_call_is_the_blocks_and_the_call_is_made_again(sandbox):
    with _student(sandbox, SDPA, LOOPING_SOFTMAX) as student:
        got = student.call("scaled_dot_product_attention", Q, K, V)
        assert _same(got, solutions.scaled_dot_product_attention(Q, K, V))
        assert any("`stable_softmax` did not finish" in event for event in student.report.events)
        with pytest.raises(StudentError) as looped:
            student.call("stable_softmax", Q @ K.T)
        assert looped.value.kind == "timeout"


def test_the_reference_error_is_raised_in_the_students_code(sandbox):
    """A fully masked row: the right answer of the block is an error, raised as its type."""
    mask = np.ones((3, 5), dtype=bool)
    mask[1] = False
    with _student(sandbox, SDPA, LOOPING_SOFTMAX) as student:
        with pytest.raises(StudentError):
            student.call("stable_softmax", Q @ K.T)
        with pytest.raises(StudentError) as raised:
            student.call("scaled_dot_product_attention", Q, K, V, mask=mask)
        assert raised.value.is_a("ValueError")


def test_a_captured_stand_in_earns_the_block_nothing(sandbox):
    with _student(sandbox, SDPA, CAPTURING) as student:
        with pytest.raises(StudentError):
            student.call("stable_softmax", Q @ K.T)
        student.call("scaled_dot_product_attention", Q, K, V)  # captures the stand-in
        with pytest.raises(StudentError) as given_up:
            student.call("stable_softmax", Q @ K.T)
        assert given_up.value.kind == "timeout"


def test_a_stand_in_answers_small_inputs_only(sandbox):
    with _student(sandbox, SDPA, LOOPING_SOFTMAX, HUGE) as student:
        with pytest.raises(StudentError):
            student.call("stable_softmax", Q @ K.T)
        with pytest.raises(StudentError) as refused:
            student.call("scaled_dot_product_attention", Q, K, V)
        assert refused.value.type_name == "StandInUnavailable"
        assert "small inputs only" in refused.value.message
        assert student.take_stand_ins() == ()  # refused: nothing was answered for it


def test_a_request_for_an_answer_not_offered_is_a_malformed_reply(sandbox):
    with _student(sandbox, SDPA, FORGED) as student:
        with pytest.raises(StudentError) as forged:
            student.call("attention_context", Q @ K.T, V)
        assert forged.value.kind == "crashed", forged.value.describe()
        assert forged.value.message == MALFORMED
        assert student.take_stand_ins() == ()
