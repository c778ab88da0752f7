"""An endless loop costs the per-call limit once, not once per function that calls the looping
one (issue 17): the worker names the notebook function that loops, and later calls that enter
it end at once, with the same outcome (a timeout of that call) as the grader's deadline gives.
A helper that is merely called many times is not blamed, and a worker that defeats the watch
still meets the grader's own deadline."""

from __future__ import annotations

import sys

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


def _failed_call(student: SandboxStudent, name: str) -> StudentError:
    with pytest.raises(StudentError) as raised:
        student.call(name, 1)
    return raised.value


def _stopped_at_once(student: SandboxStudent, name: str, looping: str) -> bool:
    """The sandbox's account of ``name``'s call: stopped on entering ``looping`` (known to
    loop), not after waiting out the limit again. The account, not a stopwatch, says so."""
    return any(event.startswith(f"`{name}` was stopped at once: it calls `{looping}`")
               for event in student.report.events)


def _waited_out(student: SandboxStudent, name: str) -> bool:
    return f"`{name}` did not finish in time (stopped after {LIMIT:g} s: an endless loop?)" in (
        student.report.events)


def test_callers_of_a_looping_function_end_at_once_with_the_same_timeout(sandbox):
    with _student(sandbox) as student:
        first = _failed_call(student, "spin")
        second = _failed_call(student, "via_spin")
        third = _failed_call(student, "also_via_spin")
        assert student.call("fine", 3) == 8  # the others still run, in a new worker
    assert _waited_out(student, "spin")
    # the worker restarts and re-runs the cells, but does not wait out the limit again
    assert _stopped_at_once(student, "via_spin", "spin"), student.report.events
    assert _stopped_at_once(student, "also_via_spin", "spin"), student.report.events
    assert not _waited_out(student, "via_spin") and not _waited_out(student, "also_via_spin")
    for error, name in [(first, "spin"), (second, "via_spin"), (third, "also_via_spin")]:
        assert error.kind == "timeout" and error.function == name
        assert error.message == first.message == f"stopped after {LIMIT:g} s: an endless loop?"


def test_a_loop_found_through_a_caller_stops_the_function_itself_at_once(sandbox, monkeypatch):
    # the worker's error record says where it stopped the call: on entering a function known
    # to loop (``stopped_in``) or at the limit (``loop``, the function found looping)
    records = []
    timed_out = SandboxStudent._timed_out

    def recording(self, name, why, error):
        records.append((name, error.loop, error.stopped_in))
        return timed_out(self, name, why, error)

    monkeypatch.setattr(SandboxStudent, "_timed_out", recording)
    with _student(sandbox) as student:
        _failed_call(student, "via_spin")
        error = _failed_call(student, "spin")
    assert error.kind == "timeout" and error.function == "spin"
    (first, first_loop, first_stop), (second, second_loop, second_stop) = records
    assert first == "via_spin" and first_loop[2] == "spin" and first_stop is None
    assert second == "spin" and second_stop == first_loop, records  # stopped on entry


def test_a_helper_called_many_times_by_the_loop_is_not_blamed(sandbox):
    with _student(sandbox) as student:
        _failed_call(student, "calls_helper_forever")
        assert student.call("helper", 1) == 2
        assert student.call("fine", 1) == 4
    assert _waited_out(student, "calls_helper_forever")


def test_a_worker_that_silences_the_watch_still_meets_the_graders_deadline(sandbox):
    # the suite's timeout is the stopwatch: a worker that outlived the grader's deadline hangs it
    with _student(sandbox) as student:
        error = _failed_call(student, "deaf")
        assert student.call("fine", 1) == 4
    assert error.kind == "timeout" and error.function == "deaf"
    assert student.report.events[0].startswith("`deaf` did not finish in time"), student.report.events


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
