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
from autograder.untrusted.errors import ErrorKind, StudentError, trim
from autograder.untrusted.loop_watch import LoopKey, LoopWatch
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
    decode_request,
)
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
        protocol.send(self.sock, Hello(tuple(self.applied), self.failure).encode())
        while True:
            try:
                header, payload = protocol.recv(self.sock)
            except (protocol.ChannelClosed, protocol.ProtocolError):
                return
            try:
                request = decode_request(header)
            except protocol.ProtocolError as error:
                reply, data = self.failed(ErrorRecord(ErrorKind.CRASHED, message=str(error))), b""
            else:
                if isinstance(request, Exit):
                    return
                if isinstance(request, RunCell):
                    reply, data = self.run_cell(request, payload)
                elif isinstance(request, Has):
                    reply, data = self.has(request)
                else:
                    reply, data = self.call(request, payload)
            protocol.send(self.sock, reply.encode(), data)

    def done(self) -> Reply:
        """An ok reply (built once the request is done: it counts the output so far)."""
        return Reply(True, self.sink.size)

    def failed(self, error: ErrorRecord | BaseException, function: str = "") -> Reply:
        """A reply that is not ok: for ``error``, or for what the student's code raised."""
        if isinstance(error, BaseException):
            error = ErrorRecord.of(StudentError.from_exception(error, function=function))
        return Reply.failed(error, self.sink.size)

    def run_cell(self, request: RunCell, payload: bytes) -> tuple[Reply, bytes]:
        try:
            source = payload.decode("utf-8", "surrogatepass")
            code = compile(to_python(source), f"<cell {request.index}>", "exec")
            with np.errstate(all="ignore"):
                exec(code, self.namespace)
        except BaseException as exc:  # noqa: BLE001 - a failing cell is data, as in Jupyter
            return self.failed(exc), b""
        return self.done(), b""

    def has(self, request: Has) -> tuple[Reply, bytes]:
        return Reply(True, self.sink.size, value=callable(self.namespace.get(request.name))), b""

    def call(self, request: Call, payload: bytes) -> tuple[Reply, bytes]:
        name = request.name
        function = self.namespace.get(name)
        if not callable(function):
            return self.failed(ErrorRecord(ErrorKind.MISSING, function=name)), b""
        try:
            args, kwargs = plain.decode(payload, readonly=request.readonly)
            replaced = self._stand_in(request.stand_in)
            seed_everything()
            try:
                with np.errstate(all="ignore"):
                    result = self.watch.run(name, request.limit, set(request.stop_on),
                                            lambda: function(*args, **kwargs))
            finally:
                self._restore(replaced)
        except BaseException as exc:  # noqa: BLE001 - any student failure is data
            return self.failed(exc, function=name), b""
        try:
            data = plain.encode(result)
        except BaseException as exc:  # noqa: BLE001 - not plain data, or a hostile object
            return self.failed(ErrorRecord(
                ErrorKind.BAD_OUTPUT, type_name=type(exc).__name__, message=str(exc)[:300],
                function=name,
            )), b""
        return self.done(), data

    def _stand_in(self, names: tuple[str, ...]) -> dict[str, Any]:
        """Put the grader's stand-ins in place of the notebook functions ``names`` (building
        blocks that hung or crashed earlier) for one call; returns what they replaced."""
        replaced = {}
        for name in names:
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
            protocol.send(sock, StandInCall(name).encode(), plain.encode((list(args), kwargs)))
            header, data = protocol.recv(sock)
            try:
                answer = StandInAnswer.decode(header)
            except protocol.ProtocolError:
                raise StandInUnavailable("the grader's answer was malformed") from None
            if answer.ok:
                return plain.decode(data)
            kind = STAND_IN_ERRORS.get(answer.type_name, StandInUnavailable)
            raise kind(trim(answer.message))

        stand_in.__name__ = stand_in.__qualname__ = name
        return stand_in

    def report_timeout(self, name: str, looping: LoopKey | None, stopped_in: LoopKey | None) -> None:
        """The call of ``name`` ran out of time (``looping``: the function that loops), or
        entered ``stopped_in``, known to loop: say so and end, as a killed worker would."""
        error = ErrorRecord(ErrorKind.TIMEOUT, function=name, loop=looping, stopped_in=stopped_in)
        try:
            protocol.send(self.sock, self.failed(error).encode())
        finally:
            os._exit(0)
