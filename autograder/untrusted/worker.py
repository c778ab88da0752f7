"""The loop a worker process runs: execute notebook cells, then answer calls.

This module runs on the untrusted side. It may be sabotaged by the code it
runs (a submission can monkeypatch anything here); that only ever changes the
bytes this worker sends, which the grader treats as untrusted plain data.
"""

from __future__ import annotations

import builtins
import io
import os
import socket
import sys
import warnings
from typing import Any

import numpy as np

from autograder.untrusted import plain, protocol
from autograder.untrusted.errors import StudentError, trim
from autograder.untrusted.loop_watch import LoopKey, LoopWatch
from autograder.untrusted.notebook_code import to_python
from autograder.untrusted.seeding import seed_everything

OUTPUT_KEPT = 64 * 1024
# Errors a stand-in may raise in student code: the built-in type the grader's answer raised.
STAND_IN_ERRORS: dict[str, type[Exception]] = {
    kind.__name__: kind for kind in (ValueError, IndexError, TypeError, ArithmeticError,
                                     ZeroDivisionError, RuntimeError)
}


class StandInUnavailable(RuntimeError):
    """The grader would not answer a stand-in's call (not allowed in this call)."""


class BoundedSink(io.TextIOBase):
    """Stands in for stdout/stderr: keeps the first bytes, counts the rest."""

    def __init__(self, keep: int = OUTPUT_KEPT) -> None:
        self.keep = keep
        self.kept: list[str] = []
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        text = str(text)
        if self.size < self.keep:
            self.kept.append(text[: self.keep - self.size])
        self.size += len(text)
        return len(text)


def _error(exc: BaseException, function: str = "") -> dict[str, Any]:
    return StudentError.from_exception(exc, function=function).to_dict()


class Worker:
    """State of one submission's worker: its namespace and its channel."""

    def __init__(self, sock: socket.socket, applied: list[str], failure: str = "") -> None:
        self.sock = sock
        self.applied = applied
        self.failure = failure  # why the namespaces could not be made, if they could not
        self.namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
        self.sink = BoundedSink()
        self.watch = LoopWatch(self.report_timeout)

    def serve(self) -> None:
        """Answer requests until told to exit or the channel closes."""
        sys.stdout = sys.stderr = self.sink
        warnings.simplefilter("ignore")
        protocol.send(
            self.sock, {"ok": True, "isolation": self.applied, "isolation_error": self.failure}
        )
        while True:
            try:
                header, payload = protocol.recv(self.sock)
            except (protocol.ChannelClosed, protocol.ProtocolError):
                return
            op = header.get("op")
            if op == "exit":
                return
            handler = {"cell": self.run_cell, "has": self.has, "call": self.call}.get(op)
            if handler is None:
                protocol.send(
                    self.sock,
                    {"ok": False, "error": {"kind": "crashed", "message": f"unknown op {op!r}"}},
                )
                continue
            reply, data = handler(header, payload)
            reply["output_bytes"] = self.sink.size
            protocol.send(self.sock, reply, data)

    def run_cell(self, header: dict, payload: bytes) -> tuple[dict, bytes]:
        try:
            source = payload.decode("utf-8", "surrogatepass")
            code = compile(to_python(source), f"<cell {header['index']}>", "exec")
            with np.errstate(all="ignore"):
                exec(code, self.namespace)
        except BaseException as exc:  # noqa: BLE001 - a failing cell is data, as in Jupyter
            return {"ok": False, "error": _error(exc)}, b""
        return {"ok": True}, b""

    def has(self, header: dict, payload: bytes) -> tuple[dict, bytes]:
        return {"ok": True, "value": callable(self.namespace.get(header["name"]))}, b""

    def call(self, header: dict, payload: bytes) -> tuple[dict, bytes]:
        name = header["name"]
        function = self.namespace.get(name)
        if not callable(function):
            return {"ok": False, "error": {"kind": "missing", "function": name}}, b""
        try:
            args, kwargs = plain.decode(payload, readonly=bool(header.get("readonly")))
            limit = float(header.get("limit", 0))
            stop_on = {(str(f), int(n), str(c)) for f, n, c in header.get("stop_on", [])}
            replaced = self._stand_in(header.get("stand_in", []))
            seed_everything()
            try:
                with np.errstate(all="ignore"):
                    result = self.watch.run(name, limit, stop_on, lambda: function(*args, **kwargs))
            finally:
                self._restore(replaced)
        except BaseException as exc:  # noqa: BLE001 - any student failure is data
            return {"ok": False, "error": _error(exc, function=name)}, b""
        try:
            return {"ok": True}, plain.encode(result)
        except BaseException as exc:  # noqa: BLE001 - not plain data, or a hostile object
            return {
                "ok": False,
                "error": {
                    "kind": "bad_output",
                    "type_name": type(exc).__name__,
                    "message": str(exc)[:300],
                    "function": name,
                },
            }, b""

    def _stand_in(self, names: list) -> dict[str, Any]:
        """Put the grader's stand-ins in place of the notebook functions ``names`` (building
        blocks that hung or crashed earlier) for one call; returns what they replaced."""
        replaced = {}
        for name in names:
            name = str(name)
            if callable(self.namespace.get(name)):
                replaced[name] = self.namespace[name]
                self.namespace[name] = self._answered_by_grader(name)
        return replaced

    def _restore(self, replaced: dict[str, Any]) -> None:
        self.namespace.update(replaced)

    def _answered_by_grader(self, name: str) -> Any:
        """A function that sends its arguments to the grader and returns its plain answer,
        or raises the built-in error the grader's answer raised."""
        sock = self.sock

        def stand_in(*args: Any, **kwargs: Any) -> Any:
            protocol.send(sock, {"op": "stand_in", "name": name}, plain.encode((list(args), kwargs)))
            reply, data = protocol.recv(sock)
            if reply.get("ok") is True:
                return plain.decode(data)
            kind = STAND_IN_ERRORS.get(str(reply.get("type_name")), StandInUnavailable)
            raise kind(trim(str(reply.get("message", ""))))

        stand_in.__name__ = stand_in.__qualname__ = name
        return stand_in

    def report_timeout(self, name: str, looping: LoopKey | None, stopped_in: LoopKey | None) -> None:
        """The call of ``name`` ran out of time (``looping``: the function that loops), or
        entered ``stopped_in``, known to loop: say so and end, as a killed worker would."""
        error = {"kind": "timeout", "function": name, "message": ""}
        if looping is not None:
            error["loop"] = list(looping)
        if stopped_in is not None:
            error["stopped_in"] = list(stopped_in)
        try:
            protocol.send(self.sock, {"ok": False, "error": error, "output_bytes": self.sink.size})
        finally:
            os._exit(0)
