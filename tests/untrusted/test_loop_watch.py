"""An endless loop costs the per-call limit once, not once per function that calls the looping
one (issue 17): the worker names the notebook function that loops, and later calls that enter
it end at once, with the same outcome (a timeout of that call) as the grader's deadline gives.
A helper that is merely called many times is not blamed, and a worker that defeats the watch
still meets the grader's own deadline."""

from __future__ import annotations

import sys
import time

import pytest

from autograder.sandbox.client import SandboxStudent
from autograder.sandbox.limits import Limits
from autograder.untrusted.errors import StudentError
from autograder.untrusted.loop_watch import looping_function, stack

pytestmark = pytest.mark.slow

LIMIT = 1.0
NOTEBOOK = [
    "def spin(x):\n    while True:\n        pass\n",
    "def via_spin(x):\n    return spin(x) + 1\n",
    "def also_via_spin(x):\n    return [spin(x)]\n",
    "def helper(x):\n    return x + 1\n",
    "def calls_helper_forever(x):\n    while True:\n        x = helper(x) - 1\n",
    "def fine(x):\n    return helper(x) * 2\n",
    "import signal\n"
    "def deaf(x):\n    signal.signal(signal.SIGALRM, signal.SIG_IGN)\n    while True:\n        pass\n",
]


def _student(sandbox) -> SandboxStudent:
    zygote, uid = sandbox
    limits = Limits(cell_timeout=5, call_timeout=LIMIT, notebook_timeout=30, max_restarts=8)
    return SandboxStudent(NOTEBOOK, zygote, uid=uid, limits=limits, isolate=False,
                          allow_weaker=True)


def _timed_call(student: SandboxStudent, name: str) -> tuple[StudentError, float]:
    started = time.monotonic()
    with pytest.raises(StudentError) as raised:
        student.call(name, 1)
    return raised.value, time.monotonic() - started


def test_callers_of_a_looping_function_end_at_once_with_the_same_timeout(sandbox):
    with _student(sandbox) as student:
        first, first_seconds = _timed_call(student, "spin")
        second, second_seconds = _timed_call(student, "via_spin")
        third, third_seconds = _timed_call(student, "also_via_spin")
        assert student.call("fine", 3) == 8  # the others still run, in a new worker
    assert LIMIT * 0.9 <= first_seconds < LIMIT + 1
    # the worker restarts and re-runs the cells, but does not wait out the limit again
    assert second_seconds < LIMIT / 2 and third_seconds < LIMIT / 2, (second_seconds, third_seconds)
    for error, name in [(first, "spin"), (second, "via_spin"), (third, "also_via_spin")]:
        assert error.kind == "timeout" and error.function == name
        assert error.message == first.message == f"stopped after {LIMIT:g} s: an endless loop?"
    assert any("calls `spin`" in event for event in student.report.events), student.report.events


def test_a_loop_found_through_a_caller_stops_the_function_itself_at_once(sandbox):
    with _student(sandbox) as student:
        _, first_seconds = _timed_call(student, "via_spin")
        error, seconds = _timed_call(student, "spin")
    assert first_seconds >= LIMIT * 0.9
    assert error.kind == "timeout" and seconds < LIMIT / 2


def test_a_helper_called_many_times_by_the_loop_is_not_blamed(sandbox):
    with _student(sandbox) as student:
        _, seconds = _timed_call(student, "calls_helper_forever")
        assert seconds >= LIMIT * 0.9
        assert student.call("helper", 1) == 2
        assert student.call("fine", 1) == 4


def test_a_worker_that_silences_the_watch_still_meets_the_graders_deadline(sandbox):
    with _student(sandbox) as student:
        error, seconds = _timed_call(student, "deaf")
        assert student.call("fine", 1) == 4
    assert error.kind == "timeout" and LIMIT <= seconds < LIMIT + 2


CELL = (
    "def outer(grab):\n"
    "    return inner(grab), inner(grab)\n"
    "def inner(grab):\n"
    "    return grab()\n"
)


def test_the_deepest_notebook_frame_seen_both_times_is_the_looping_one():
    namespace: dict = {}
    exec(compile(CELL, "<cell 3>", "exec"), namespace)
    grab = lambda: stack(sys._getframe(1))  # noqa: E731 - the stack of the code calling it
    in_first_inner, in_second_inner = namespace["outer"](grab)
    # one sample twice: the innermost notebook frame (not this test's lambda)
    assert looping_function(in_first_inner, in_first_inner) == ("<cell 3>", 3, "inner")
    # two calls of inner from one outer call: only outer ran all along
    assert looping_function(in_first_inner, in_second_inner) == ("<cell 3>", 1, "outer")
    # two separate calls: nothing of the notebook ran all along
    later, _ = namespace["outer"](grab)
    assert looping_function(in_first_inner, later) is None
