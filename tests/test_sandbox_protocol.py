"""The trusted side's defences at the boundary, one unit at a time: strict replies,
deadlines on every send, safe text, no leaked inputs or paths, a safe lock directory,
a worker environment with nothing of the TA's."""

from __future__ import annotations

import os
import socket
import time

import numpy as np
import pytest

from autograder.results.safe_text import csv_cell, quotes_inputs, safe_text, without_paths
from autograder.sandbox.client import check_error, check_hello, check_reply
from autograder.sandbox.uids import UidLeaseError, lock_dir
from autograder.sandbox.zygote import zygote_environment
from autograder.untrusted import protocol

GOOD_ERROR = {"kind": "raised", "type_name": "ValueError", "message": "m", "bases": [],
              "function": "f"}


@pytest.mark.parametrize(
    "reply",
    [
        {"ok": False, "error": {}},  # the forged reply of issue 10
        {"ok": False},
        {"ok": "yes"},
        {"ok": True, "output_bytes": -1},
        {"ok": True, "output_bytes": "many"},
        {"ok": False, "error": {**GOOD_ERROR, "kind": "exploded"}},
        {"ok": False, "error": {**GOOD_ERROR, "message": ["not", "text"]}},
        {"ok": False, "error": {**GOOD_ERROR, "bases": "ValueError"}},
    ],
)
def test_a_reply_of_the_wrong_shape_is_refused(reply):
    with pytest.raises(protocol.ProtocolError):
        check_reply(reply)


def test_a_has_reply_needs_a_boolean_value():
    assert check_reply({"ok": True, "value": True}, value=True)["value"] is True
    with pytest.raises(protocol.ProtocolError):
        check_reply({"ok": True, "value": 1}, value=True)


def test_error_text_is_made_safe_once():
    error = check_error({**GOOD_ERROR, "message": "bad \ud800 \x1b[31mred\x1b[0m\nline"})
    assert error["message"] == "bad ? [31mred[0m line"
    error["message"].encode("utf-8")  # strict: no surrogate left


def test_hello_lists_the_isolation_steps():
    assert check_hello({"ok": True, "isolation": ["seccomp"], "isolation_error": ""}) == (
        ["seccomp"], "")
    with pytest.raises(protocol.ProtocolError):
        check_hello({"ok": True, "isolation": "everything"})


def test_a_peer_that_stops_reading_cannot_block_a_send():
    ours, theirs = socket.socketpair()
    try:
        started = time.monotonic()
        with pytest.raises(protocol.ChannelTimeout):
            protocol.send(ours, {"op": "cell"}, b"x" * (64 * 2**20), deadline=started + 0.5)
        assert time.monotonic() - started < 2
    finally:
        ours.close()
        theirs.close()


def test_csv_cells_and_paths():
    assert csv_cell("=1+1") == "'=1+1" and csv_cell("-cmd") == "'-cmd" and csv_cell("ok") == "ok"
    assert without_paths("open /srv/course/gradebook.db", ["/srv/course"]) == "open <path>/gradebook.db"
    assert safe_text("x" * 50, 10) == "xxxxxxx..."


def test_quoted_inputs_are_recognised_and_row_numbers_are_not():
    rng = np.random.default_rng(1)
    Q = rng.standard_normal((4, 5))
    assert quotes_inputs(f"called with {Q!r}", [Q])
    assert quotes_inputs(f"{Q[0, 0]:.4f} {Q[1, 2]:.3g} {Q[3, 4]}", [Q])
    assert not quotes_inputs("row 3 has no permitted key (shape (4, 5))", [Q])
    assert not quotes_inputs(f"only one number {Q[0, 0]:.4f}", [Q])


def test_the_lock_directory_must_be_private(tmp_path):
    good = lock_dir(tmp_path)
    assert good.is_dir() and (good.stat().st_mode & 0o777) == 0o700
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / f"h2-grader-uids-{os.geteuid()}").symlink_to(tmp_path)
    with pytest.raises(UidLeaseError, match="not a private directory"):
        lock_dir(planted)
    open_to_all = tmp_path / "open"
    (open_to_all / f"h2-grader-uids-{os.geteuid()}").mkdir(parents=True)
    (open_to_all / f"h2-grader-uids-{os.geteuid()}").chmod(0o777)
    with pytest.raises(UidLeaseError):
        lock_dir(open_to_all)
    if os.geteuid() == 0:
        foreign = tmp_path / "foreign"
        (foreign / "h2-grader-uids-0").mkdir(parents=True)
        os.chown(foreign / "h2-grader-uids-0", 65534, 65534)
        with pytest.raises(UidLeaseError):
            lock_dir(foreign)


def test_the_zygote_inherits_nothing_of_the_ta(monkeypatch):
    monkeypatch.setenv("CANVAS_API_TOKEN", "secret-token")
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    env = zygote_environment()
    assert "CANVAS_API_TOKEN" not in env and "NBGRADER_EXECUTION" not in env
    assert "secret-token" not in "".join(env.values())
    assert set(env) <= {"PATH", "LANG", "LC_ALL", "PYTHONPATH", "H2_WORKER_STDERR",
                        "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                        "MPLBACKEND", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED"}
