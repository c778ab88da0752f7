"""Ctrl-C during a batch is remembered: one that a finalizer swallows still ends the run, and a
coordinator started deaf to it stays deaf (``autograder.batch.interrupts``)."""

from __future__ import annotations

import os
import signal

import pytest

from autograder.batch import interrupts


@pytest.fixture(autouse=True)
def hears_ctrl_c():
    """Python's own Ctrl-C handler for each test, whatever the run inherited: pytest started
    as a background job of a non-interactive shell (``make test &``) ignores SIGINT."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


class InterruptedWhileFinalized:
    """Ctrl-C handled inside ``__del__``: Python prints "Exception ignored" and goes on."""

    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(10_000):  # the handler runs here, between two bytecodes of __del__
            pass


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_ctrl_c_a_finalizer_swallowed_still_ends_the_run():
    with interrupts.watched():
        InterruptedWhileFinalized()  # collected at once; its KeyboardInterrupt is swallowed
        went_on = True
        with pytest.raises(KeyboardInterrupt):
            interrupts.raise_if_interrupted()
    assert went_on


def test_the_previous_handler_is_back_and_the_flag_starts_clear():
    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt), interrupts.watched():
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(10_000):
            pass
    assert signal.getsignal(signal.SIGINT) is before
    with interrupts.watched():
        interrupts.raise_if_interrupted()  # a new batch: the last one's Ctrl-C is forgotten


def test_a_deaf_process_stays_deaf():
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with interrupts.watched():
            assert interrupts.ignored()
            os.kill(os.getpid(), signal.SIGINT)
            interrupts.raise_if_interrupted()
    finally:
        signal.signal(signal.SIGINT, previous)


def test_around_the_pool_a_ctrl_c_waits_for_a_safe_point():
    """Inside ``deferred`` the signal raises nothing where it lands (a lock of the pool could
    be left held); the coordinator's next look raises it, and the handler of ``watched`` is
    back after the block."""
    with interrupts.watched():
        watching = signal.getsignal(signal.SIGINT)
        with interrupts.deferred():
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(10_000):  # the handler runs here: nothing is raised
                pass
            landed_quietly = True
            with pytest.raises(KeyboardInterrupt):
                interrupts.raise_if_interrupted()
        assert signal.getsignal(signal.SIGINT) is watching
    assert landed_quietly
