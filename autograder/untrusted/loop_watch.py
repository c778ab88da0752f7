"""Which student function loops, and stopping later calls into it at once (untrusted side).

Without this, one endless loop in a building block (a notebook function others call) costs
the per-call limit in every check that calls a function calling it, directly or not: about
5 s each. Here the worker times its own call with ``SIGALRM``: halfway through the limit it
notes the Python frames running, at the limit it looks again. The deepest notebook function whose frame was there both times is the
one that loops (a caller that merely calls a helper many times keeps its own frame, the
helper's frames change). The worker reports it as a timeout, with that function's key, and
exits, as it would have been killed. The grader sends the keys it was told back with every
later call; the worker then stops as soon as one of those functions is entered (a profile
hook, installed only for submissions with a known loop): a timeout for that call too, in
milliseconds instead of seconds.

Student code can defeat this (its own ``SIGALRM`` handler, ``sys.setprofile(None)``): then the
grader's own deadline applies, as before, so a hostile submission is only as slow as without
it. A key only ever makes this submission's own later calls end early.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from types import FrameType

STUDENT_FILE_PREFIX = "<cell "  # notebook cells are compiled as "<cell N>"

LoopKey = tuple[str, int, str]  # (cell file, first line, function name) of a notebook function


def key_of(frame: FrameType) -> LoopKey:
    code = frame.f_code
    return (code.co_filename, code.co_firstlineno, code.co_name)


def is_student(frame: FrameType) -> bool:
    return frame.f_code.co_filename.startswith(STUDENT_FILE_PREFIX)


def stack(frame: FrameType | None) -> list[FrameType]:
    """The frames from ``frame`` outwards, innermost first."""
    frames = []
    while frame is not None:
        frames.append(frame)
        frame = frame.f_back
    return frames


def looping_function(first: list[FrameType], last: list[FrameType]) -> LoopKey | None:
    """The deepest notebook frame present in both samples (by identity), as a key."""
    earlier = {id(frame) for frame in first}
    for frame in last:  # innermost first
        if id(frame) in earlier and is_student(frame):
            return key_of(frame)
    return None


class LoopWatch:
    """Times one call at a time; ``report`` sends the timeout reply and must not return."""

    def __init__(self, report: Callable[[str, LoopKey | None, LoopKey | None], None]) -> None:
        self.report = report
        self.active = False
        self.name = ""
        self.sample: list[FrameType] = []

    def run(
        self, name: str, limit: float, stop_on: set[LoopKey], function: Callable[[], object]
    ) -> object:
        """``function()``, watched for ``limit`` seconds (0: not timed), stopping at once when
        it enters a function of ``stop_on``."""
        self.name, self.sample, self.active = name, [], True
        if limit > 0:
            signal.signal(signal.SIGALRM, self._tick)
            signal.setitimer(signal.ITIMER_REAL, limit / 2, limit / 2)
        if stop_on:
            sys.setprofile(self._entering(stop_on))
        try:
            return function()
        finally:
            self.active = False  # a tick that comes now finds nothing to do
            sys.setprofile(None)
            if limit > 0:
                signal.setitimer(signal.ITIMER_REAL, 0)
            self.sample = []

    def _tick(self, signum: int, frame: FrameType | None) -> None:
        if not self.active:
            return
        if not self.sample:
            self.sample = stack(frame)
            return
        self.active = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        self.report(self.name, looping_function(self.sample, stack(frame)), None)
        os._exit(0)  # pragma: no cover - report does not return

    def _entering(self, stop_on: set[LoopKey]) -> Callable:
        def hook(frame: FrameType, event: str, arg: object) -> None:
            if event == "call" and self.active and key_of(frame) in stop_on:
                self.active = False
                sys.setprofile(None)
                self.report(self.name, None, key_of(frame))
                os._exit(0)  # pragma: no cover - report does not return

        return hook
