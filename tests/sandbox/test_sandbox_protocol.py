"""The trusted side's defences at the boundary, one unit at a time: strict messages (one
typed module both sides use), deadlines on every send, safe text, no leaked inputs or paths,
a safe lock directory, a worker environment with nothing of the TA's, preloads that are
plain module names."""

from __future__ import annotations

import os
import socket
import time

import numpy as np
import pytest

from autograder.base.safe_text import csv_cell, quotes_inputs, safe_text, without_paths
from autograder.sandbox.client import check_hello, check_reply, safe_error
from autograder.sandbox.uids import LOCK_DIR_PREFIX, UidLeaseError, lock_dir
from autograder.sandbox.zygote import Zygote, zygote_environment
from autograder.untrusted import protocol
from autograder.untrusted import zygote as untrusted_zygote
from autograder.untrusted.errors import FAILURES, ErrorKind, StudentError
from autograder.untrusted.isolation import WORKER_STDERR_ENV
from autograder.untrusted.messages import (
    Call,
    ErrorRecord,
    Exit,
    Has,
    Hello,
    Reply,
    RunCell,
    StandInAnswer,
    StandInCall,
    decode_during_call,
    decode_request,
)

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
        {"ok": False, "error": {**GOOD_ERROR, "kind": None}},
        {"ok": False, "error": {**GOOD_ERROR, "bases": ["ValueError"] * 33}},
        {"ok": False, "error": {**GOOD_ERROR, "function": 3}},
        {"ok": False, "error": {**GOOD_ERROR, "loop": ["<cell 1>", 1, "f"]}},  # not a timeout
        {"ok": False, "error": {"kind": "timeout", "loop": ["/etc/passwd", 1, "f"]}},
        {"ok": False, "error": {"kind": "timeout", "stopped_in": ["<cell 1>", "1", "f"]}},
        {"ok": False, "error": {**GOOD_ERROR, "extra": 1}},
        {"ok": False, "error": GOOD_ERROR, "value": True},
        {"ok": True, "error": GOOD_ERROR},
        {"ok": True, "value": True},  # a value where none was asked for
        {"ok": True, "output_bytes": True},
        {"ok": True, "surprise": 1},
        ["ok", True],
    ],
)
def test_a_reply_of_the_wrong_shape_is_refused(reply):
    with pytest.raises(protocol.ProtocolError):
        check_reply(reply)


def test_a_has_reply_needs_a_boolean_value():
    assert check_reply({"ok": True, "value": True}, value=True).value is True
    with pytest.raises(protocol.ProtocolError):
        check_reply({"ok": True, "value": 1}, value=True)
    with pytest.raises(protocol.ProtocolError):
        check_reply({"ok": True}, value=True)


def test_error_text_is_made_safe_once():
    reply = check_reply({"ok": False, "error": {
        **GOOD_ERROR, "message": "bad \ud800 \x1b[31mred\x1b[0m\nline"}})
    assert reply.error.message == "bad ? [31mred[0m line"
    reply.error.message.encode("utf-8")  # strict: no surrogate left
    assert safe_error(ErrorRecord(ErrorKind.RAISED, "E" * 500)).type_name == "E" * 77 + "..."


def test_a_timeout_keeps_only_its_function_keys():
    """A timeout's words are the grader's; the worker's text for it is never shown."""
    reply = check_reply({"ok": False, "error": {"kind": "timeout", "message": "lies",
                                                "function": "f", "loop": ["<cell 2>", 4, "g"]}})
    assert reply.error == ErrorRecord(ErrorKind.TIMEOUT, loop=("<cell 2>", 4, "g"))


def test_hello_lists_the_isolation_steps():
    assert check_hello({"ok": True, "isolation": ["seccomp"], "isolation_error": ""}) == Hello(
        ("seccomp",), "")
    for forged in ({"ok": True, "isolation": "everything"}, {"ok": False, "isolation": []},
                   {"ok": True, "isolation": [1]}, {"ok": True, "isolation": ["x"] * 33}):
        with pytest.raises(protocol.ProtocolError):
            check_hello(forged)


@pytest.mark.parametrize(
    "message",
    [
        RunCell(3),
        Has("f"),
        Call("f"),
        Call("f", readonly=True, limit=2.5, stop_on=(("<cell 1>", 2, "g"),), stand_in=("h",)),
        Exit(),
    ],
)
def test_every_request_decodes_to_what_was_encoded(message):
    assert decode_request(message.encode()) == message
    assert type(message).decode(message.encode()) == message


@pytest.mark.parametrize(
    "message",
    [
        Reply(True),
        Reply(True, 12, value=False),
        Reply.failed(ErrorRecord(ErrorKind.RAISED, "ValueError", "m", ("Exception",), "f"), 5),
        Reply.failed(ErrorRecord(ErrorKind.TIMEOUT, function="f", loop=("<cell 0>", 1, "g"))),
        Reply.failed(ErrorRecord(ErrorKind.TIMEOUT, stopped_in=("<cell 0>", 1, "g"))),
        StandInCall("g"),
    ],
)
def test_every_worker_message_decodes_to_what_was_encoded(message):
    has_value = isinstance(message, Reply) and message.value is not None  # a reply to Has
    assert decode_during_call(message.encode(), value=has_value) == message


def test_hello_and_stand_in_answers_round_trip():
    assert Hello.decode(Hello(("seccomp",), "why").encode()) == Hello(("seccomp",), "why")
    for answer in (StandInAnswer(True), StandInAnswer(False, "ValueError", "masked row")):
        assert StandInAnswer.decode(answer.encode()) == answer


@pytest.mark.parametrize(
    "header",
    [
        {"op": "dance"},
        {"op": None},
        {},
        {"op": "cell"},
        {"op": "cell", "index": -1},
        {"op": "cell", "index": "1"},
        {"op": "has", "name": 5},
        {"op": "call", "name": "f", "limit": "soon"},
        {"op": "call", "name": "f", "limit": float("inf")},
        {"op": "call", "name": "f", "readonly": 1},
        {"op": "call", "name": "f", "stop_on": [["<cell 1>", 1]]},
        {"op": "call", "name": "f", "stand_in": "g"},
        {"op": "exit", "now": True},
    ],
)
def test_a_malformed_request_is_a_protocol_error(header):
    with pytest.raises(protocol.ProtocolError):
        decode_request(header)


def test_a_stand_in_call_and_answer_are_strict():
    for forged in ({"op": "stand_in"}, {"op": "stand_in", "name": ["f"]},
                   {"op": "other", "name": "f"}, {"op": "stand_in", "name": "f", "x": 1}):
        with pytest.raises(protocol.ProtocolError):
            decode_during_call(forged)
    for forged in ({"ok": "yes"}, {"ok": False, "type_name": 3}, {}):
        with pytest.raises(protocol.ProtocolError):
            StandInAnswer.decode(forged)


def test_error_kinds_are_spelled_once():
    """Every kind has its words (or is described by its type), and a record carries it as
    the plain string the saved results always had."""
    assert set(FAILURES) | {ErrorKind.RAISED} == set(ErrorKind)
    record = ErrorRecord.of(StudentError("timeout", function="f")).encode()
    assert record["kind"] == "timeout" and type(record["kind"]) is str
    with pytest.raises(ValueError):
        StudentError("exploded")


def test_a_student_error_survives_pickling():
    """Pickled (across processes) by its fields, not by its text."""
    import pickle

    error = StudentError(ErrorKind.RAISED, "ValueError", "m", ("Exception",), "f")
    back = pickle.loads(pickle.dumps(error))
    assert back.kind is ErrorKind.RAISED and back.signature() == error.signature()
    assert back.describe() == error.describe()


@pytest.mark.parametrize(
    "names",
    [["numpy", "torch.nn.functional", "matplotlib.pyplot"], [], ["_private", "a.b_c.d9"]],
)
def test_preloads_cross_as_plain_module_names(names):
    argv = untrusted_zygote.command_line(names, [7, 9])
    assert untrusted_zygote.parse_command_line(argv) == (tuple(names), [7, 9])


@pytest.mark.parametrize(
    "name",
    ["numpy,torch", "os; import x", "", "1abc", "a..b", ".rel", "a.", "x y", "--help",
     "autograder.grading", "autograder", 5, None, "a" * 300],
)
def test_a_preload_that_is_not_a_module_name_is_refused(name):
    with pytest.raises(ValueError):
        untrusted_zygote.module_names([name])
    with pytest.raises(ValueError):
        Zygote.launch(preload=[name])  # refused before anything starts


def test_the_engine_preloads_its_own_needs_after_the_assignments():
    h2 = ["numpy", "numpy.random", "torch", "torch.nn.functional", "matplotlib.pyplot", "json",
          "math"]
    assert untrusted_zygote.imports(h2) == (*h2, "pyseccomp", "IPython.core.inputtransformer2")
    assert untrusted_zygote.imports([]) == untrusted_zygote.ENGINE_PRELOAD


def test_a_library_is_warmed_up_only_when_the_assignment_preloads_it():
    assert untrusted_zygote.warm_ups(["json", "math"]) == []
    assert untrusted_zygote.warm_ups(["torch.nn.functional", "numpy"]) == ["torch", "numpy"]
    assert untrusted_zygote.warm_ups(["matplotlib"]) == []  # pyplot is not matplotlib
    assert untrusted_zygote.warm_ups(["torchvision", "numpyish"]) == []


def test_a_peer_that_stops_reading_cannot_block_a_send():
    ours, theirs = socket.socketpair()
    try:
        with pytest.raises(protocol.ChannelTimeout):  # returns at its deadline: no hang
            protocol.send(ours, {"op": "cell"}, b"x" * (64 * 2**20),
                          deadline=time.monotonic() + 0.5)
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
    (planted / f"{LOCK_DIR_PREFIX}{os.geteuid()}").symlink_to(tmp_path)
    with pytest.raises(UidLeaseError, match="not a private directory"):
        lock_dir(planted)
    open_to_all = tmp_path / "open"
    (open_to_all / f"{LOCK_DIR_PREFIX}{os.geteuid()}").mkdir(parents=True)
    (open_to_all / f"{LOCK_DIR_PREFIX}{os.geteuid()}").chmod(0o777)
    with pytest.raises(UidLeaseError):
        lock_dir(open_to_all)
    if os.geteuid() == 0:
        foreign = tmp_path / "foreign"
        (foreign / f"{LOCK_DIR_PREFIX}0").mkdir(parents=True)
        os.chown(foreign / f"{LOCK_DIR_PREFIX}0", 65534, 65534)
        with pytest.raises(UidLeaseError):
            lock_dir(foreign)


def test_the_zygote_inherits_nothing_of_the_ta(monkeypatch):
    monkeypatch.setenv("CANVAS_API_TOKEN", "secret-token")
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    env = zygote_environment()
    assert "CANVAS_API_TOKEN" not in env and "NBGRADER_EXECUTION" not in env
    assert "secret-token" not in "".join(env.values())
    assert set(env) <= {"PATH", "LANG", "LC_ALL", "PYTHONPATH", WORKER_STDERR_ENV,
                        "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                        "MPLBACKEND", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED"}
