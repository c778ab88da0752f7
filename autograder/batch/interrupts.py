"""Ctrl-C, SIGTERM and SIGHUP during a command: remembered as well as raised, so each ends the
run the same way, with one line.

A scheduler or systemd stops a run with SIGTERM, a closed ssh session with SIGHUP; both come
to the coordinator alone, not to its process group as Ctrl-C does. The coordinator then
stops as it does for Ctrl-C (a ``Stopped``, which is a ``KeyboardInterrupt``, so every place
that ends a run on Ctrl-C ends it on these too; ``autograder.cli`` says which signal, exit
128 + its number) and passes a Ctrl-C on to its own child processes (``forward``): the
grading processes and the sandbox's zygote stop as they would at a terminal. A signal a
process was started deaf to (``nohup``'s SIGHUP, a background job's Ctrl-C) stays ignored,
and so it does in the grading processes it forks (``ignored``).

Python raises ``KeyboardInterrupt`` wherever the coordinator happens to be when it handles
the signal. If that is inside a finalizer (a ``__del__``, a weakref callback), Python prints
"Exception ignored" and carries on: the grading processes, which got the same Ctrl-C, are
gone, and the coordinator would grade each submission they held again, alone, and exit 0.
The flag set here makes the interrupt stick: the coordinator asks ``raise_if_interrupted``
between pools and between cluster results.

Around the process pool, the signal is only remembered (``deferred``), and the coordinator
raises it at its own safe points: an exception raised wherever the signal lands can leave a
lock of ``concurrent.futures`` held (``wait`` holds every future's lock while it sets up),
and the pool's shutdown would then wait forever, with nothing said.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from types import FrameType

STOPPING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""The signals that stop a run: Ctrl-C, a scheduler's or systemd's stop, a closed terminal."""

_received = threading.Event()
_which = [signal.SIGINT]  # the last of STOPPING received while watched


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP: the run stops as for Ctrl-C; ``signum`` says which."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def signal_of(error: KeyboardInterrupt) -> int:
    """The signal that raised ``error`` (SIGINT for a plain ``KeyboardInterrupt``)."""
    return error.signum if isinstance(error, Stopped) else signal.SIGINT


def exit_status(error: KeyboardInterrupt) -> int:
    """128 + the signal's number, as a shell reports a process ended by it (130 for Ctrl-C)."""
    return 128 + signal_of(error)


def stopped_by(error: KeyboardInterrupt) -> str:
    """The first words of the line a stopped command says: "interrupted" for Ctrl-C, else
    which signal stopped it."""
    signum = signal_of(error)
    if signum == signal.SIGINT:
        return "interrupted"
    return f"stopped by {signal.Signals(signum).name}"


def _raised(signum: int) -> KeyboardInterrupt:
    return KeyboardInterrupt() if signum == signal.SIGINT else Stopped(signum)


def ignored(signum: int = signal.SIGINT) -> bool:
    """Whether this process ignores ``signum`` (it was started that way)."""
    return signal.getsignal(signum) is signal.SIG_IGN


def children() -> list[int]:
    """This process's child processes (every thread's), from /proc."""
    found: list[int] = []
    for task in Path("/proc/self/task").glob("*"):
        try:
            found += [int(pid) for pid in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return found


def forward(signum: int) -> None:
    """SIGTERM or SIGHUP came to this process alone: pass a Ctrl-C on to its children, as
    a terminal would have given them one (each stops as it does on Ctrl-C)."""
    if signum == signal.SIGINT:
        return
    for pid in children():
        try:
            os.kill(pid, signal.SIGINT)
        except OSError:  # gone meanwhile
            continue


def _on_signal(signum: int, frame: FrameType | None) -> None:
    """Outside a batch (``stop_on_signals``): SIGTERM and SIGHUP raise as Ctrl-C does."""
    forward(signum)
    raise _raised(signum)


def stop_on_signals() -> Callable[[], None]:
    """From now on SIGTERM and SIGHUP stop this process as Ctrl-C does (a ``Stopped``),
    unless it was started ignoring them (off the main thread nothing changes); returns what
    puts the previous handlers back (``autograder.cli`` does, as a command returns: a test
    that runs one in its own process keeps its own handlers)."""
    previous: dict[int, signal.Handlers | Callable | int | None] = {}
    if threading.current_thread() is threading.main_thread():
        for signum in STOPPING[1:]:
            if not ignored(signum):
                previous[signum] = signal.signal(signum, _on_signal)

    def restore() -> None:
        for signum, handler in previous.items():
            signal.signal(signum, handler)

    return restore


def _on_interrupt(signum: int, frame: FrameType | None) -> None:
    _which[0] = signum
    _received.set()
    forward(signum)
    raise _raised(signum)


@contextmanager
def watched() -> Iterator[None]:
    """While the block runs, Ctrl-C, SIGTERM and SIGHUP raise a ``KeyboardInterrupt`` and
    are remembered; the previous handlers are put back after. An ignored signal stays
    ignored; off the main thread (where Python cannot set a handler) nothing changes."""
    _received.clear()
    with _handled_by(_on_interrupt):
        yield


def _remember(signum: int, frame: FrameType | None) -> None:
    _which[0] = signum
    _received.set()
    forward(signum)


@contextmanager
def deferred() -> Iterator[None]:
    """While the block runs (inside ``watched``), the signals are remembered and not raised:
    the block asks ``raise_if_interrupted`` where stopping is safe, and waits with a timeout
    so that it asks soon. The previous handlers are put back after."""
    with _handled_by(_remember):
        yield


@contextmanager
def _handled_by(handler: Callable[[int, FrameType | None], None]) -> Iterator[None]:
    """Each of ``STOPPING`` handled by ``handler`` while the block runs, unless this process
    ignores it or this is not the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    with ExitStack() as restore:
        for signum in STOPPING:
            if not ignored(signum):
                restore.callback(signal.signal, signum, signal.signal(signum, handler))
        yield


def raise_if_interrupted() -> None:
    """Raise the ``KeyboardInterrupt`` (or ``Stopped``) of a signal that came while
    ``watched``, even if the first one was swallowed by a finalizer."""
    if _received.is_set():
        raise _raised(_which[0])
