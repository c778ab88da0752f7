"""Ctrl-C during a batch: remembered as well as raised, so it always ends the run.

Python raises ``KeyboardInterrupt`` wherever the coordinator happens to be when it handles
the signal. If that is inside a finalizer (a ``__del__``, a weakref callback), Python prints
"Exception ignored" and carries on: the grading processes, which got the same Ctrl-C, are
gone, and the coordinator would grade each submission they held again, alone, and exit 0.
The flag set here makes the interrupt stick: the coordinator asks ``raise_if_interrupted``
between pools and between cluster results.

A coordinator started with Ctrl-C ignored (a background job of a non-interactive shell)
keeps ignoring it, and so do the grading processes it forks (``ignored``).

Around the process pool, Ctrl-C is only remembered (``deferred``), and the coordinator raises
it at its own safe points: an exception raised wherever the signal lands can leave a lock of
``concurrent.futures`` held (``wait`` holds every future's lock while it sets up), and the
pool's shutdown would then wait forever, with nothing said.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

_received = threading.Event()


def ignored() -> bool:
    """Whether this process ignores Ctrl-C (it was started that way)."""
    return signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def _on_interrupt(signum: int, frame: FrameType | None) -> None:
    _received.set()
    raise KeyboardInterrupt


@contextmanager
def watched() -> Iterator[None]:
    """While the block runs, Ctrl-C raises ``KeyboardInterrupt`` and is remembered; the
    previous handler is put back after. Ignored Ctrl-C stays ignored; off the main thread
    (where Python cannot set a handler) nothing changes."""
    _received.clear()
    with _handled_by(_on_interrupt):
        yield


def _remember(signum: int, frame: FrameType | None) -> None:
    _received.set()


@contextmanager
def deferred() -> Iterator[None]:
    """While the block runs (inside ``watched``), Ctrl-C is remembered and not raised: the
    block asks ``raise_if_interrupted`` where stopping is safe, and waits with a timeout so
    that it asks soon. The previous handler is put back after."""
    with _handled_by(_remember):
        yield


@contextmanager
def _handled_by(handler: Callable[[int, FrameType | None], None]) -> Iterator[None]:
    """Ctrl-C handled by ``handler`` while the block runs, unless this process ignores it or
    this is not the main thread."""
    if ignored() or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def raise_if_interrupted() -> None:
    """Raise ``KeyboardInterrupt`` if Ctrl-C came while ``watched``, even if the first one
    was swallowed by a finalizer."""
    if _received.is_set():
        raise KeyboardInterrupt
