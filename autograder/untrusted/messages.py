"""Every message between the grader and a worker: one class per kind, for both sides.

The grader (``autograder.sandbox.client``) and the worker (``worker``) import the same
classes, so what one side sends is what the other side reads. Each class is a frozen
dataclass with ``encode()``, the JSON header that ``protocol.send`` sends (any bytes travel
beside it as the payload), and a strict ``decode(header)``: a header of any other shape
raises ``protocol.ProtocolError``, which the grader treats as a worker that misbehaved (it
costs the submission's own call, like a crash). Decoding checks shapes and types only;
making student text safe to show is the trusted side's job, done once by the client.

From the grader to a worker (``Request``, and ``StandInAnswer`` during a call)::

    RunCell        {"op": "cell", "index": n}                     payload: the cell's source
    Has            {"op": "has", "name": f}
    Call           {"op": "call", "name": f, "readonly": b, "limit": s,
                    "stop_on": [key...], "stand_in": [f...]}      payload: plain (args, kwargs)
    Exit           {"op": "exit"}
    StandInAnswer  {"ok": true} + a plain payload, or {"ok": false, "type_name": t, "message": m}

From a worker to the grader (``Hello`` first, then one ``Reply`` per request, with any
number of ``StandInCall`` before it during a call)::

    Hello          {"ok": true, "isolation": [step...], "isolation_error": s}
    Reply          {"ok": b, "output_bytes": n, "error": {...}, "value": b}
    StandInCall    {"op": "stand_in", "name": f}                  payload: plain (args, kwargs)

An error record (``ErrorRecord``) is ``{"kind", "type_name", "message", "bases",
"function"}``, and for a timeout the notebook function that loops (``loop``) or that the
call entered, known to loop (``stopped_in``): ``loop_watch`` keys.

This module runs on the untrusted side too: it imports nothing trusted
(``tests/untrusted/test_boundary.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autograder.untrusted.errors import ErrorKind, StudentError
from autograder.untrusted.loop_watch import STUDENT_FILE_PREFIX, LoopKey
from autograder.untrusted.protocol import ProtocolError

MAX_LIST = 32  # isolation steps, exception bases
MAX_KEYS = 1024  # loop keys and stand-ins in one call
MAX_KEY_FILE = 40
MAX_KEY_NAME = 200


# ------------------------------------------------------------ field checks


def _object(header: object, allowed: frozenset[str], what: str) -> dict[str, Any]:
    """``header`` as a dict with no key outside ``allowed``."""
    if type(header) is not dict:
        raise ProtocolError(f"{what} is not an object")
    if not allowed.issuperset(header):
        unknown = sorted(str(key)[:40] for key in header.keys() - allowed)[:4]
        raise ProtocolError(f"{what} with unknown fields {unknown}")
    return header


def _str(value: object, what: str) -> str:
    if type(value) is not str:
        raise ProtocolError(f"{what} is not text")
    return value


def _bool(value: object, what: str) -> bool:
    if type(value) is not bool:
        raise ProtocolError(f"{what} is not a Boolean")
    return value


def _count(value: object, what: str) -> int:
    if type(value) is not int or value < 0:
        raise ProtocolError(f"{what} is not a count")
    return value


def _strs(value: object, what: str, limit: int = MAX_LIST) -> tuple[str, ...]:
    if type(value) is not list or len(value) > limit:
        raise ProtocolError(f"{what} is not a short list")
    return tuple(_str(item, what) for item in value)


def loop_key(value: object) -> LoopKey:
    """A notebook function's key, as ``loop_watch`` makes it: ``[cell file, line, name]``."""
    if not (
        type(value) is list and len(value) == 3
        and type(value[0]) is str and value[0].startswith(STUDENT_FILE_PREFIX)
        and len(value[0]) <= MAX_KEY_FILE
        and type(value[1]) is int and type(value[2]) is str and len(value[2]) <= MAX_KEY_NAME
    ):
        raise ProtocolError("a malformed function key")
    return (value[0], value[1], value[2])


def _optional_key(value: object) -> LoopKey | None:
    return None if value is None else loop_key(value)


def _keys(value: object) -> tuple[LoopKey, ...]:
    if type(value) is not list or len(value) > MAX_KEYS:
        raise ProtocolError("function keys are not a list")
    return tuple(loop_key(item) for item in value)


# ------------------------------------------------------------ the grader -> a worker


@dataclass(frozen=True)
class RunCell:
    """Run notebook cell ``index``; its source is the payload."""

    index: int

    def encode(self) -> dict[str, Any]:
        return {"op": "cell", "index": self.index}

    @classmethod
    def decode(cls, header: object) -> RunCell:
        data = _object(header, frozenset({"op", "index"}), "a cell request")
        return cls(_count(data.get("index"), "a cell's index"))


@dataclass(frozen=True)
class Has:
    """Does the notebook define a callable ``name``? (a ``Reply`` with a ``value``)."""

    name: str

    def encode(self) -> dict[str, Any]:
        return {"op": "has", "name": self.name}

    @classmethod
    def decode(cls, header: object) -> Has:
        data = _object(header, frozenset({"op", "name"}), "a has request")
        return cls(_str(data.get("name"), "a function name"))


@dataclass(frozen=True)
class Call:
    """Call ``name`` with the payload's plain ``(args, kwargs)``, timed for ``limit`` seconds
    (0: not timed), stopped on entering a function of ``stop_on``, with the grader answering
    for the notebook functions ``stand_in``. ``readonly``: array arguments are read-only."""

    name: str
    readonly: bool = False
    limit: float = 0.0
    stop_on: tuple[LoopKey, ...] = ()
    stand_in: tuple[str, ...] = ()

    def encode(self) -> dict[str, Any]:
        header: dict[str, Any] = {"op": "call", "name": self.name, "readonly": self.readonly,
                                  "limit": self.limit}
        if self.stop_on:
            header["stop_on"] = [list(key) for key in self.stop_on]
        if self.stand_in:
            header["stand_in"] = list(self.stand_in)
        return header

    @classmethod
    def decode(cls, header: object) -> Call:
        data = _object(header, frozenset({"op", "name", "readonly", "limit", "stop_on",
                                          "stand_in"}), "a call request")
        limit = data.get("limit", 0.0)
        if type(limit) not in (int, float) or not 0 <= limit < float("inf"):
            raise ProtocolError("a call's limit is not a time")
        return cls(
            _str(data.get("name"), "a function name"),
            _bool(data.get("readonly", False), "readonly"),
            float(limit),
            _keys(data.get("stop_on", [])),
            _strs(data.get("stand_in", []), "stand-ins", MAX_KEYS),
        )


@dataclass(frozen=True)
class Exit:
    """End the worker."""

    def encode(self) -> dict[str, Any]:
        return {"op": "exit"}

    @classmethod
    def decode(cls, header: object) -> Exit:
        _object(header, frozenset({"op"}), "an exit request")
        return cls()


Request = RunCell | Has | Call | Exit
REQUESTS: dict[str, type[RunCell] | type[Has] | type[Call] | type[Exit]] = {
    "cell": RunCell, "has": Has, "call": Call, "exit": Exit,
}


def decode_request(header: object) -> Request:
    """A request the worker received, by its ``op``; ``ProtocolError`` for any other."""
    op = header.get("op") if type(header) is dict else None
    kind = REQUESTS.get(op) if type(op) is str else None
    if kind is None:
        raise ProtocolError(f"unknown op {str(op)[:40]!r}")
    return kind.decode(header)


@dataclass(frozen=True)
class StandInAnswer:
    """The grader's answer to a ``StandInCall``: the plain value is the payload, or the
    built-in error the grader's answer raised (``type_name``, ``message``)."""

    ok: bool
    type_name: str = ""
    message: str = ""

    def encode(self) -> dict[str, Any]:
        if self.ok:
            return {"ok": True}
        return {"ok": False, "type_name": self.type_name, "message": self.message}

    @classmethod
    def decode(cls, header: object) -> StandInAnswer:
        data = _object(header, frozenset({"ok", "type_name", "message"}), "a stand-in answer")
        return cls(_bool(data.get("ok"), "ok"), _str(data.get("type_name", ""), "a type name"),
                   _str(data.get("message", ""), "a message"))


# ------------------------------------------------------------ a worker -> the grader


@dataclass(frozen=True)
class Hello:
    """A worker's first message: the isolation steps it applied, and why any failed."""

    isolation: tuple[str, ...]
    isolation_error: str = ""

    def encode(self) -> dict[str, Any]:
        return {"ok": True, "isolation": list(self.isolation),
                "isolation_error": self.isolation_error}

    @classmethod
    def decode(cls, header: object) -> Hello:
        data = _object(header, frozenset({"ok", "isolation", "isolation_error"}), "a hello")
        if data.get("ok") is not True:
            raise ProtocolError("a malformed hello")
        return cls(_strs(data.get("isolation"), "isolation steps"),
                   _str(data.get("isolation_error", ""), "an isolation error"))


@dataclass(frozen=True)
class ErrorRecord:
    """Why a request produced no result (``StudentError``'s fields, and for a timeout the
    ``loop_watch`` key of the function that loops or that the call was stopped in)."""

    kind: ErrorKind
    type_name: str = ""
    message: str = ""
    bases: tuple[str, ...] = ()
    function: str = ""
    loop: LoopKey | None = None
    stopped_in: LoopKey | None = None

    @classmethod
    def of(cls, error: StudentError) -> ErrorRecord:
        """The record of a ``StudentError`` made in the worker."""
        return cls(error.kind, error.type_name, error.message, error.bases, error.function)

    def to_student_error(self) -> StudentError:
        """The ``StudentError`` this record describes."""
        return StudentError(self.kind, self.type_name, self.message, self.bases, self.function)

    def encode(self) -> dict[str, Any]:
        record: dict[str, Any] = {"kind": self.kind.value, "type_name": self.type_name,
                                  "message": self.message, "bases": list(self.bases),
                                  "function": self.function}
        if self.loop is not None:
            record["loop"] = list(self.loop)
        if self.stopped_in is not None:
            record["stopped_in"] = list(self.stopped_in)
        return record

    @classmethod
    def decode(cls, record: object) -> ErrorRecord:
        data = _object(record, frozenset({"kind", "type_name", "message", "bases", "function",
                                          "loop", "stopped_in"}), "an error record")
        try:
            kind = ErrorKind(_str(data.get("kind"), "an error's kind"))
        except ValueError:
            raise ProtocolError("an error without a known kind") from None
        loop, stopped_in = _optional_key(data.get("loop")), _optional_key(data.get("stopped_in"))
        if kind is not ErrorKind.TIMEOUT and (loop is not None or stopped_in is not None):
            raise ProtocolError("function keys on an error that is not a timeout")
        return cls(
            kind,
            _str(data.get("type_name", ""), "a type name"),
            _str(data.get("message", ""), "a message"),
            _strs(data.get("bases", []), "error bases"),
            _str(data.get("function", ""), "a function name"),
            loop,
            stopped_in,
        )


@dataclass(frozen=True)
class Reply:
    """The answer to a request: ``ok``, the bytes the worker's output came to so far, an
    ``error`` when not ok, and a ``value`` for ``Has``. A call's result is the payload."""

    ok: bool
    output_bytes: int = 0
    error: ErrorRecord | None = None
    value: bool | None = None

    def encode(self) -> dict[str, Any]:
        header: dict[str, Any] = {"ok": self.ok, "output_bytes": self.output_bytes}
        if self.error is not None:
            header["error"] = self.error.encode()
        if self.value is not None:
            header["value"] = self.value
        return header

    @classmethod
    def failed(cls, error: ErrorRecord | StudentError, output_bytes: int = 0) -> Reply:
        """A reply that is not ok, for ``error``."""
        record = error if isinstance(error, ErrorRecord) else ErrorRecord.of(error)
        return cls(False, output_bytes, record)

    @classmethod
    def decode(cls, header: object, *, value: bool = False) -> Reply:
        """``value``: the reply to a ``Has``, which must carry a Boolean ``value`` if ok."""
        data = _object(header, frozenset({"ok", "output_bytes", "error", "value"}), "a reply")
        ok = data.get("ok")
        if type(ok) is not bool:
            raise ProtocolError("a reply without ok")
        size = _count(data.get("output_bytes", 0), "output_bytes")
        if ok:
            if "error" in data:
                raise ProtocolError("an error in a reply that is ok")
            answer = data.get("value")
            if value and type(answer) is not bool:
                raise ProtocolError("a has-reply without a Boolean value")
            if not value and answer is not None:
                raise ProtocolError("a value in a reply that has none")
            return cls(True, size, None, answer)
        if "value" in data:
            raise ProtocolError("a value in a reply that is not ok")
        return cls(False, size, ErrorRecord.decode(data.get("error")))


@dataclass(frozen=True)
class StandInCall:
    """During a call, a stand-in asks the grader to answer for notebook function ``name``;
    the payload is its plain ``(args, kwargs)``."""

    name: str

    def encode(self) -> dict[str, Any]:
        return {"op": "stand_in", "name": self.name}

    @classmethod
    def decode(cls, header: object) -> StandInCall:
        data = _object(header, frozenset({"op", "name"}), "a stand-in call")
        if data.get("op") != "stand_in":
            raise ProtocolError("not a stand-in call")
        return cls(_str(data.get("name"), "a function name"))


def decode_during_call(header: object, *, value: bool = False) -> Reply | StandInCall:
    """What a worker sends while a request is pending: the ``Reply``, or (during a call) a
    ``StandInCall``. ``value`` as for ``Reply.decode``."""
    if type(header) is dict and "op" in header:
        return StandInCall.decode(header)
    return Reply.decode(header, value=value)
