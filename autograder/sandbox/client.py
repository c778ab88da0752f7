"""``SandboxStudent``: the checks' ``Student`` interface, backed by a sandboxed worker.

It runs the submission's cells in a worker forked from the zygote, then
forwards each call. Every limit is enforced from here: a cell or call that
does not answer in time, or a worker that dies, costs that cell or function
only. The worker is killed, a new one re-runs the cells that worked (skipping
the one that hung or crashed), and the other parts are graded as usual.

The worker is untrusted (student code can replace its functions), so the
protocol is strict: every send and receive has a deadline, every reply is
decoded by the message classes both sides share (``autograder.untrusted.messages``)
before anything reads it, and a reply that is not of their shape is a worker that
misbehaved: it costs the submission's own call, like a crash. Student text in replies is
made safe here, once (``autograder.base.safe_text``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import numpy as np

from autograder.base.safe_text import INPUTS_HIDDEN, quotes_inputs, safe_text, without_paths
from autograder.base.stages import stage
from autograder.sandbox.limits import Limits
from autograder.sandbox.zygote import Zygote, ZygoteError, kill_worker
from autograder.untrusted import plain, protocol
from autograder.untrusted.errors import MESSAGE_LIMIT, ErrorKind, StudentError
from autograder.untrusted.isolation import FULL_ISOLATION, PYTHON_READABLE, WORKDIR
from autograder.untrusted.loop_watch import LoopKey
from autograder.untrusted.messages import (
    Call,
    ErrorRecord,
    Has,
    Hello,
    Reply,
    RunCell,
    StandInAnswer,
    StandInCall,
    decode_during_call,
)

MALFORMED = "the process running it sent a malformed reply (was the grader's worker tampered with?)"
# A call's limit is timed by the worker itself, which then names the notebook function that
# loops (autograder.untrusted.loop_watch); the grader's own deadline, this much later, is the
# backstop for a worker that does not answer.
WATCH_GRACE = 0.5
# How many calls to stand-ins one call into student code may make (the checks' compositions
# make a handful; a loop asking the grader for answers is a worker that misbehaves).
MAX_STAND_IN_CALLS = 64
# The largest input a stand-in answers (elements over all its arrays, and any integer): the
# checks' own inputs are far smaller, and the trusted process must not be made to compute much.
MAX_STAND_IN_ELEMENTS = 2**16

StandIn = Callable[[str, list, dict], Any]  # (function, args, kwargs) -> a plain answer


def _size(value: Any) -> int:
    """Elements in a decoded plain value, integers counted by their size (a stand-in's bound)."""
    if isinstance(value, dict):
        return sum(_size(item) for item in value.values())
    if isinstance(value, (list, tuple)):
        return len(value) + sum(_size(item) for item in value)
    if isinstance(value, np.ndarray):
        return int(value.size)
    if isinstance(value, int):
        return abs(value)
    return 1


class _BlockGaveOut(Exception):  # noqa: N818 - a signal, not an error
    """A call stopped because a building block it calls loops; it is made again once."""


class IsolationError(RuntimeError):
    """The sandbox could not be set up as required: grading must not go on (fail closed)."""


class GivenUp(NamedTuple):
    """Why calls to a function are no longer attempted: it timed out or crashed (``kind``),
    and the words for it (the message of every later ``StudentError`` for it)."""

    kind: ErrorKind
    why: str


def _encode(source: str) -> bytes:
    """A cell's text as the payload of its message (any size the payload limit allows)."""
    return source.encode("utf-8", "surrogatepass")


def safe_error(error: ErrorRecord) -> ErrorRecord:
    """A decoded error record with its student text made safe (``safe_text``), once. A
    timeout's text is the grader's own (``GivenUp``): only its function keys are kept."""
    if error.kind is ErrorKind.TIMEOUT:
        return ErrorRecord(ErrorKind.TIMEOUT, loop=error.loop, stopped_in=error.stopped_in)
    return replace(
        error,
        type_name=safe_text(error.type_name, 80),
        message=safe_text(error.message, MESSAGE_LIMIT * 4),
        bases=tuple(safe_text(base, 80) for base in error.bases),
        function=safe_text(error.function, 80),
    )


def safe_reply(reply: Reply) -> Reply:
    """A decoded reply with its error's text made safe."""
    return reply if reply.error is None else replace(reply, error=safe_error(reply.error))


def check_reply(header: object, *, value: bool = False) -> Reply:
    """A worker's reply, decoded (``Reply.decode``: ``ProtocolError`` for any other shape)
    and its error's text made safe."""
    return safe_reply(Reply.decode(header, value=value))


def check_hello(header: object) -> Hello:
    """A worker's first message, decoded, its text made safe."""
    hello = Hello.decode(header)
    return Hello(tuple(safe_text(step, 40) for step in hello.isolation),
                 safe_text(hello.isolation_error, 300))

# The worker's whole environment: nothing of the TA's (tokens, paths) reaches student code.
WORKER_ENVIRONMENT = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "MPLBACKEND": "Agg",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}


@dataclass
class CellOutcome:
    """What happened to one cell the last time it ran."""

    index: int
    error: StudentError | None = None
    skipped: str = ""  # why the cell was not run (it hung or crashed the worker before)


@dataclass
class SandboxReport:
    """Facts about the run for the student's feedback and the TA's status column."""

    isolation: list[str] = field(default_factory=list)
    cells: list[CellOutcome] = field(default_factory=list)
    restarts: int = 0
    output_bytes: int = 0
    events: list[str] = field(default_factory=list)  # student-facing, one line each
    # The function each event is about ("" = none), in step with ``events``.
    event_functions: list[str] = field(default_factory=list)


class SandboxStudent:
    """A submission running in an isolated worker; see the module docstring."""

    def __init__(
        self,
        cells: Sequence[str],
        zygote: Zygote,
        *,
        limits: Limits | None = None,
        uid: int = 61000,
        isolate: bool = True,
        allow_weaker: bool = False,
        private_paths: Sequence[str] = (),
        reap_later: bool = False,
        stand_in: StandIn | None = None,
        stand_in_names: Collection[str] = (),
    ) -> None:
        self.cells = list(cells)
        # Error carried forward for hangs and crashes: once one of ``stand_in_names`` (the
        # graded functions others build on) hung or crashed, calls that other functions make
        # to it are answered here by ``stand_in`` (plain data both ways; nothing of it enters
        # the sandbox but its answers), so they are graded as if it were right.
        self.stand_in = stand_in
        self.stand_in_names = frozenset(stand_in_names if stand_in else ())
        self._stood_in: set[str] = set()  # blocks answered since ``take_stand_ins``
        # Leave the wait for the killed worker to the zygote's next fork (``Zygote.retire``):
        # only for a caller that keeps ``uid`` leased until the zygote is closed (a grading
        # session), since reaping sweeps every process of that uid.
        self.reap_later = reap_later
        self.zygote = zygote
        self.limits = (limits or Limits()).for_preload(zygote.preload)
        self.uid = uid  # leased by the caller (sandbox.uids): no other grader uses it
        self.isolate = isolate
        self.allow_weaker = allow_weaker  # the TA's explicit consent to less than FULL_ISOLATION
        self.private_paths = [*private_paths, tempfile.gettempdir()]
        self.report = SandboxReport()
        self.started = time.monotonic()
        self._skip: dict[int, str] = {}
        self._given_up: dict[str, GivenUp] = {}  # function -> why calls to it are not attempted
        self._loops: set[LoopKey] = set()  # notebook functions known to loop
        self._scratch = tempfile.mkdtemp(prefix="autograder-sandbox-")
        self._pid: int | None = None
        self._sock = None
        self._start()

    # ------------------------------------------------------------ Student protocol

    def has(self, name: str) -> bool:
        """Whether the submission defines a callable ``name``."""
        reply, _ = self._request(Has(name), b"", name, self.limits.call_timeout, value=True)
        return bool(reply.value)

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Call ``name`` in the worker with plain copies of the arguments."""
        return self._call(name, args, kwargs, readonly=False)

    def call_readonly(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Like ``call``, with every array argument read-only."""
        return self._call(name, args, kwargs, readonly=True)

    def take_stand_ins(self) -> tuple[str, ...]:
        """The building blocks answered by a stand-in since the last call of this method."""
        used, self._stood_in = tuple(sorted(self._stood_in)), set()
        return used

    def close(self) -> None:
        """Kill the worker and everything it started; remove its scratch space. With
        ``reap_later``, waiting for the kernel to finish that and the removal happen before the
        zygote forks the next worker (``Zygote.retire``), or when it closes."""
        if not self.reap_later:
            self._kill()
            shutil.rmtree(self._scratch, ignore_errors=True)
            return
        self._close_channel()
        self.zygote.retire(self._pid or 0, self.uid if self.isolate else None, self._scratch)
        self._pid = None

    def __enter__(self) -> SandboxStudent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ internals

    def _call(self, name: str, args: tuple, kwargs: dict, *, readonly: bool) -> Any:
        payload = plain.encode((list(args), kwargs))
        try:
            _, data = self._call_once(name, payload, (*args, *kwargs.values()), readonly)
        except _BlockGaveOut:  # once more, with the grader standing in for that block
            _, data = self._call_once(name, payload, (*args, *kwargs.values()), readonly)
        try:
            return plain.decode(data)
        except Exception as error:  # noqa: BLE001 - untrusted bytes
            raise StudentError(ErrorKind.BAD_OUTPUT, "PlainDataError", str(error),
                               function=name) from None

    def _call_once(
        self, name: str, payload: bytes, arguments: Sequence[Any], readonly: bool,
    ) -> tuple[Reply, bytes]:
        request = Call(name, readonly, stop_on=tuple(sorted(self._loops)),
                       stand_in=tuple(self._standing_in(name)))
        return self._request(request, payload, name, self.limits.call_timeout,
                             arguments=arguments)

    def _standing_in(self, name: str) -> list[str]:
        """The blocks answered by the grader in a call of ``name``: those that hung or crashed,
        never the called function itself."""
        return sorted(block for block in self._given_up if block in self.stand_in_names
                      and block != name)

    def _answer(self, request: StandInCall, data: bytes, allowed: Sequence[str]) -> None:
        """Answer a stand-in's call from the worker (``ProtocolError`` for one not allowed)."""
        block = request.name
        if block not in allowed:
            raise protocol.ProtocolError("a stand-in call that was not offered")
        try:
            args, kwargs = plain.decode(data)
            if type(args) is not list or type(kwargs) is not dict:
                raise ValueError("arguments are not a list and a dict")
        except Exception as error:  # noqa: BLE001 - untrusted bytes
            raise protocol.ProtocolError(f"malformed stand-in arguments: {error}") from None
        assert self.stand_in is not None
        try:
            if _size(args) + _size(kwargs) > MAX_STAND_IN_ELEMENTS:
                raise MemoryError("the grader stands in for this function on small inputs only")
            self._stood_in.add(block)  # answered (the answer may be the reference's error)
            answer, payload = StandInAnswer(True), plain.encode(self.stand_in(block, args, kwargs))
        except Exception as error:  # noqa: BLE001 - the right answer is an error (a masked row)
            answer = StandInAnswer(False, type(error).__name__, safe_text(str(error), 200))
            payload = b""
        protocol.send(self._sock, answer.encode(), payload,
                      time.monotonic() + self.limits.call_timeout)

    def _student_error(self, error: ErrorRecord, arguments: Sequence[Any] = ()) -> StudentError:
        """A validated error record as a ``StudentError``, with nothing of the grader's
        world in its message: no private path, no quoted hidden input. The worker's own
        folder reads as ``WORKDIR`` whatever the isolation (without a minimal root it is a
        scratch folder of this machine): a missing file is the student's, named as in
        their folder, not a grading machine's path to flag."""
        message = error.message
        for scratch in sorted({self._scratch, os.path.realpath(self._scratch)}, key=len,
                              reverse=True):
            message = message.replace(scratch, WORKDIR)
        message = without_paths(message, self.private_paths)
        if arguments and quotes_inputs(message, arguments):
            message = INPUTS_HIDDEN
        return replace(error, message=message).to_student_error()

    def _give_up(self, name: str, kind: ErrorKind, why: str) -> StudentError:
        """Attempt no more calls of ``name``; the error of this call and of every later one."""
        self._given_up[name] = GivenUp(kind, why)
        return StudentError(kind, message=why, function=name)

    def _request(
        self, request: Has | Call, payload: bytes, name: str, timeout: float, *,
        value: bool = False, arguments: Sequence[Any] = (),
    ) -> tuple[Reply, bytes]:
        """One round trip; every failure becomes a ``StudentError`` for ``name``."""
        with stage("sandbox: round trips (the student's functions run in them)"):
            return self._round_trip(request, payload, name, timeout, value=value,
                                    arguments=arguments)

    def _round_trip(
        self, request: Has | Call, payload: bytes, name: str, timeout: float, *,
        value: bool, arguments: Sequence[Any],
    ) -> tuple[Reply, bytes]:
        if name in self._given_up:
            given_up = self._given_up[name]
            raise StudentError(given_up.kind, message=given_up.why, function=name)
        if self._sock is None:
            self._restart(f"`{name}`")
        left = self.limits.submission_timeout - (time.monotonic() - self.started)
        if left <= 0:
            raise StudentError(
                ErrorKind.TIMEOUT, message="the time for this submission ran out", function=name
            )
        limit = min(timeout, left)
        deadline = time.monotonic() + limit
        offered: tuple[str, ...] = ()
        if isinstance(request, Call):
            request = replace(request, limit=limit)
            deadline += WATCH_GRACE
            offered = request.stand_in
        why = f"stopped after {timeout:g} s: an endless loop?"
        try:
            protocol.send(self._sock, request.encode(), payload, deadline)
            header, data = protocol.recv(self._sock, deadline)
            for answered in range(MAX_STAND_IN_CALLS + 1):
                message = decode_during_call(header, value=value)
                if isinstance(message, Reply):
                    break
                if answered == MAX_STAND_IN_CALLS:
                    raise protocol.ProtocolError("too many stand-in calls")
                with stage("sandbox: stand-ins (the reference answers for a block)"):
                    self._answer(message, data, offered)
                header, data = protocol.recv(self._sock, deadline)
            reply = safe_reply(message)
        except protocol.ChannelTimeout:
            self._lose_worker(f"`{name}` did not finish in time ({why})", name)
            raise self._give_up(name, ErrorKind.TIMEOUT, why) from None
        except protocol.ProtocolError:
            self._lose_worker(f"`{name}`: {MALFORMED}", name)
            raise self._give_up(name, ErrorKind.CRASHED, MALFORMED) from None
        except (protocol.ChannelClosed, OSError):
            why = "os._exit, a fatal error or the memory limit"
            self._lose_worker(f"`{name}` ended the process running it ({why})", name)
            raise self._give_up(name, ErrorKind.CRASHED, why) from None
        self.report.output_bytes = max(self.report.output_bytes, reply.output_bytes)
        error = reply.error
        if error is not None and error.kind is ErrorKind.TIMEOUT:
            self._timed_out(name, why, error)
        if error is not None:
            raise self._student_error(replace(error, function=error.function or name), arguments)
        return reply, data

    def _timed_out(self, name: str, why: str, error: ErrorRecord) -> None:
        """The worker timed the call out itself and ended: the same outcome as the grader's
        own deadline, reached sooner when the call entered a function known to loop."""
        if error.loop is not None:
            self._loops.add(error.loop)
            block = error.loop[2]
            if block != name and block in self.stand_in_names and block not in self._given_up:
                # A building block loops inside this call: it is the block that pays, and the
                # call is made again with the grader standing in for it.
                self._lose_worker(f"`{block}` did not finish in time ({why})", block)
                self._given_up[block] = GivenUp(ErrorKind.TIMEOUT, why)
                raise _BlockGaveOut(block)
        inner = error.stopped_in
        if inner is not None and inner[2] != name:
            self._lose_worker(f"`{name}` was stopped at once: it calls `{inner[2]}`, which "
                              "already ran out of time earlier (an endless loop?)", name)
        else:
            self._lose_worker(f"`{name}` did not finish in time ({why})", name)
        raise self._give_up(name, ErrorKind.TIMEOUT, why) from None

    def _start(self) -> None:
        """Fork a worker and run every cell not known to hang or crash it."""
        deadline = time.monotonic() + self.limits.notebook_timeout
        while True:
            with stage("sandbox: fork a worker from the zygote"):
                self._spawn()
            self.report.cells = []
            with stage("sandbox: run the student's cells"):
                failed_at = self._run_cells(deadline)
            if failed_at is None:
                return
            if self.report.restarts >= self.limits.max_restarts:
                self.report.events.append("too many cells crashed or hung; the rest were not run")
                self.report.event_functions.append("")
                self._skip.update({i: "not run" for i in range(failed_at, len(self.cells))})
                self._spawn()
                self._run_cells(deadline)
                return
            self.report.restarts += 1

    def _run_cells(self, deadline: float) -> int | None:
        """Run the cells in order; returns the index of a cell that hung or crashed."""
        for index, source in enumerate(self.cells):
            if index in self._skip:
                self.report.cells.append(CellOutcome(index, skipped=self._skip[index]))
                continue
            timeout = min(self.limits.cell_timeout, deadline - time.monotonic())
            if timeout <= 0:
                self._skip[index] = "the notebook's time ran out"
                self.report.cells.append(CellOutcome(index, skipped=self._skip[index]))
                continue
            try:
                cell_deadline = time.monotonic() + timeout
                protocol.send(self._sock, RunCell(index).encode(), _encode(source),
                              deadline=cell_deadline)
                reply = check_reply(protocol.recv(self._sock, cell_deadline)[0])
            except protocol.ChannelTimeout:
                self._skip[index] = f"it did not finish within {timeout:.0f} s"
            except protocol.ProtocolError:
                self._skip[index] = MALFORMED
            except (protocol.ChannelClosed, OSError):
                self._skip[index] = "it ended the process running it (crash, exit or memory limit)"
            else:
                error = None if reply.error is None else self._student_error(reply.error)
                self.report.cells.append(CellOutcome(index, error=error))
                continue
            self._kill()
            return index
        return None

    def _spawn(self) -> None:
        self._kill()
        config = {
            "uid": self.uid,
            "scratch": self._scratch,
            "limits": self.limits.to_dict(),
            "isolate": self.isolate,
            "environment": WORKER_ENVIRONMENT,
        }
        try:
            self._pid, self._sock = self.zygote.fork(config)
            hello = check_hello(protocol.recv(self._sock, time.monotonic() + 30)[0])
        except (
            ZygoteError,
            protocol.ChannelClosed,
            protocol.ChannelTimeout,
            protocol.ProtocolError,
        ) as error:
            self._kill()
            raise ZygoteError(f"could not start a sandboxed worker: {error}") from None
        steps, failure = list(hello.isolation), hello.isolation_error
        self.report.isolation = [step for step in steps if step != PYTHON_READABLE]
        missing = [step for step in FULL_ISOLATION if step not in steps]
        if missing and self.isolate and not self.allow_weaker:
            self._kill()
            raise IsolationError(
                f"the sandbox could not apply {', '.join(missing)}"
                + (f" ({failure})" if failure else "")
                + "; grading stopped. Run the grader as root, or where unprivileged user "
                "namespaces are enabled, or pass --allow-weaker-isolation to grade anyway "
                "(recorded in every result)"
                + ("; here that would not be enough: the sandbox user also cannot read "
                   "Python's installation (install it where every user can read it, not under "
                   "/root)" if PYTHON_READABLE not in steps else "")
            )
        if PYTHON_READABLE not in steps:  # never waived: the student would pay for it
            self._kill()
            unreadable = [part for part in failure.split("; ") if "cannot read" in part]
            raise IsolationError(
                f"the sandbox user (uid {self.uid}) cannot read Python's installation"
                + (f" ({unreadable[0].removeprefix('the sandbox user ')})" if unreadable else "")
                + "; student code could not import the standard library or numpy, and would "
                "lose points for it. Install Python and the virtual environment where every "
                "user can read them (not under /root), or grade where the sandbox can build "
                "its own root (user namespaces allowed, or outside a restricted container)"
            )

    def _restart(self, who: str) -> None:
        if self.report.restarts >= self.limits.max_restarts:
            raise StudentError(
                ErrorKind.CRASHED, message="too many crashes; not run", function=who.strip("`")
            )
        self.report.restarts += 1
        self._spawn()
        for index, source in enumerate(self.cells):
            if index in self._skip:
                continue
            try:
                deadline = time.monotonic() + self.limits.cell_timeout
                protocol.send(self._sock, RunCell(index).encode(), _encode(source),
                              deadline=deadline)
                check_reply(protocol.recv(self._sock, deadline)[0])
            except (
                protocol.ChannelTimeout,
                protocol.ChannelClosed,
                protocol.ProtocolError,
                OSError,
            ):
                self._kill()
                raise StudentError(
                    ErrorKind.CRASHED, message="the notebook could not be re-run",
                    function=who.strip("`"),
                ) from None

    def _lose_worker(self, event: str, function: str) -> None:
        self.report.events.append(event)
        self.report.event_functions.append(function)
        self._kill()

    def _close_channel(self) -> None:
        if self._sock is not None:
            try:
                self._sock.close()
            except OSError:
                pass
            self._sock = None

    def _kill(self) -> None:
        self._close_channel()
        if self._pid is not None:
            kill_worker(self._pid, self.uid if self.isolate else None)
            self._pid = None

