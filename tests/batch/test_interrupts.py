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


@pytest.fixture
def default_stop_signals():
    """SIGTERM and SIGHUP at their defaults for the test, put back after."""
    previous = {signum: signal.signal(signum, signal.SIG_DFL) for signum in interrupts.STOPPING[1:]}
    yield
    for signum, handler in previous.items():
        signal.signal(signum, handler)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP],
                         ids=lambda signum: signal.Signals(signum).name)
def test_sigterm_and_sighup_stop_a_batch_as_ctrl_c_does(default_stop_signals, signum):
    """Issue 51, item 10: raised where they land while watched, remembered around the pool,
    and said by name with 128 + the signal's number."""
    with pytest.raises(KeyboardInterrupt) as raised, interrupts.watched():
        os.kill(os.getpid(), signum)
        for _ in range(10_000):
            pass
    assert interrupts.exit_status(raised.value) == 128 + signum
    assert interrupts.stopped_by(raised.value) == f"stopped by {signal.Signals(signum).name}"
    with interrupts.watched():
        with interrupts.deferred():
            os.kill(os.getpid(), signum)
            for _ in range(10_000):
                pass
            with pytest.raises(KeyboardInterrupt) as remembered:
                interrupts.raise_if_interrupted()
    assert interrupts.exit_status(remembered.value) == 128 + signum
    assert signal.getsignal(signum) is signal.SIG_DFL


def test_outside_a_batch_sigterm_raises_and_an_ignored_sighup_stays_ignored(
        default_stop_signals):
    """``autograder.cli`` makes SIGTERM a ``KeyboardInterrupt`` anywhere; a run started with
    SIGHUP ignored (``nohup``) keeps ignoring it, in a batch too."""
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    restore = interrupts.stop_on_signals()
    assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    with pytest.raises(KeyboardInterrupt) as raised:
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(10_000):
            pass
    assert interrupts.exit_status(raised.value) == 143
    restore()
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    with interrupts.watched():
        os.kill(os.getpid(), signal.SIGHUP)
        interrupts.raise_if_interrupted()
