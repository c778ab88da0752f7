"""A signal that lands while Python creates a class (an import under way) reaches the command
wrapped in a ``RuntimeError`` ("Error calling __set_name__ ..."): found by the fault-injection
run (SIGHUP during `review set`, a 69-line traceback). It ends the command like the signal
itself: one line, 128 + the signal, and the command's change of the root rolled back."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from autograder import cli
from autograder.batch import interrupts
from autograder.review import command as review
from tests.support.h2 import SPEC


def _stop(signum: int) -> KeyboardInterrupt:
    """What the handler raises for ``signum`` (autograder.batch.interrupts)."""
    return KeyboardInterrupt() if signum == signal.SIGINT else interrupts.Stopped(signum)


def _wrapped(signum: int) -> BaseException:
    """What Python raises when the signal's exception comes out of ``__set_name__``."""
    try:
        try:
            raise _stop(signum)
        except KeyboardInterrupt as stop:
            raise RuntimeError("Error calling __set_name__ on 'cached_property'") from stop
    except RuntimeError as error:
        return error


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGHUP, signal.SIGTERM])
def test_a_wrapped_signal_is_one_line_and_its_exit_status(signum, tmp_path: Path, monkeypatch,
                                                          capsys):
    def run(args: object) -> int:
        raise _wrapped(signum)

    monkeypatch.setattr(review, "run", run)
    (tmp_path / "submitted").mkdir()
    code = cli.main(["review", "--root", str(tmp_path), "--assignment", SPEC.name, "list"])
    said = capsys.readouterr().err
    assert code == 128 + signum
    assert said.count("\n") == 1 and "Traceback" not in said, said
    assert said.startswith(interrupts.stopped_by(_stop(signum)))


def test_another_runtime_error_is_not_taken_for_a_signal(tmp_path: Path, monkeypatch):
    def run(args: object) -> int:
        raise RuntimeError("a bug of ours")

    monkeypatch.setattr(review, "run", run)
    with pytest.raises(RuntimeError, match="a bug of ours"):
        cli.main(["review", "--root", str(tmp_path), "--assignment", SPEC.name, "list"])
