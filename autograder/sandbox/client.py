"""``SandboxStudent``: the checks' ``Student`` interface, backed by a sandboxed worker.

It runs the submission's cells in a worker forked from the zygote, then
forwards each call. Every limit is enforced from here: a cell or call that
does not answer in time, or a worker that dies, costs that cell or function
only. The worker is killed, a new one re-runs the cells that worked (skipping
the one that hung or crashed), and the other parts are graded as usual.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from autograder.sandbox.limits import Limits
from autograder.sandbox.zygote import Zygote, ZygoteError, kill_worker
from autograder.untrusted import plain, protocol
from autograder.untrusted.errors import StudentError


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
    ) -> None:
        self.cells = list(cells)
        self.zygote = zygote
        self.limits = limits or Limits()
        self.uid = uid  # leased by the caller (sandbox.uids): no other grader uses it
        self.isolate = isolate
        self.report = SandboxReport()
        self.started = time.monotonic()
        self._skip: dict[int, str] = {}
        self._given_up: dict[str, str] = {}  # function -> why calls to it are not attempted
        self._scratch = tempfile.mkdtemp(prefix="h2-sandbox-")
        self._pid: int | None = None
        self._sock = None
        self._start()

    # ------------------------------------------------------------ Student protocol

    def has(self, name: str) -> bool:
        """Whether the submission defines a callable ``name``."""
        header, _ = self._request({"op": "has", "name": name}, b"", name, self.limits.call_timeout)
        return bool(header.get("value"))

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Call ``name`` in the worker with plain copies of the arguments."""
        return self._call(name, args, kwargs, readonly=False)

    def call_readonly(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Like ``call``, with every array argument read-only."""
        return self._call(name, args, kwargs, readonly=True)

    @property
    def cell_errors(self) -> list[StudentError]:
        """Errors of the cells that ran, as in Jupyter's output."""
        return [cell.error for cell in self.report.cells if cell.error is not None]

    def close(self) -> None:
        """Kill the worker and everything it started; remove its scratch space."""
        self._kill()
        import shutil

        shutil.rmtree(self._scratch, ignore_errors=True)

    def __enter__(self) -> SandboxStudent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ internals

    def _call(self, name: str, args: tuple, kwargs: dict, *, readonly: bool) -> Any:
        payload = plain.encode((list(args), kwargs))
        header, data = self._request(
            {"op": "call", "name": name, "readonly": readonly},
            payload,
            name,
            self.limits.call_timeout,
        )
        try:
            return plain.decode(data)
        except Exception as error:  # noqa: BLE001 - untrusted bytes
            raise StudentError("bad_output", "PlainDataError", str(error), function=name) from None

    def _request(
        self, header: dict, payload: bytes, name: str, timeout: float
    ) -> tuple[dict, bytes]:
        """One round trip; every failure becomes a ``StudentError`` for ``name``."""
        if name in self._given_up:
            raise StudentError(
                "timeout" if "stopped after" in self._given_up[name] else "crashed",
                message=self._given_up[name],
                function=name,
            )
        if self._sock is None:
            self._restart(f"`{name}`")
        left = self.limits.submission_timeout - (time.monotonic() - self.started)
        if left <= 0:
            raise StudentError(
                "timeout", message="the time for this submission ran out", function=name
            )
        try:
            protocol.send(self._sock, header, payload)
            reply, data = protocol.recv(self._sock, time.monotonic() + min(timeout, left))
        except protocol.ChannelTimeout:
            why = f"stopped after {timeout:g} s: an endless loop?"
            self._lose_worker(f"`{name}` did not finish in time ({why})")
            self._given_up[name] = why
            raise StudentError("timeout", message=why, function=name) from None
        except (protocol.ChannelClosed, protocol.ProtocolError, OSError):
            why = "os._exit, a fatal error or the memory limit"
            self._lose_worker(f"`{name}` ended the process running it ({why})")
            self._given_up[name] = why
            raise StudentError("crashed", message=why, function=name) from None
        self.report.output_bytes = max(self.report.output_bytes, int(reply.get("output_bytes", 0)))
        if not reply.get("ok"):
            error = reply.get("error") or {}
            raise StudentError.from_dict({**error, "function": error.get("function") or name})
        return reply, data

    def _start(self) -> None:
        """Fork a worker and run every cell not known to hang or crash it."""
        deadline = time.monotonic() + self.limits.notebook_timeout
        while True:
            self._spawn()
            self.report.cells = []
            failed_at = self._run_cells(deadline)
            if failed_at is None:
                return
            if self.report.restarts >= self.limits.max_restarts:
                self.report.events.append("too many cells crashed or hung; the rest were not run")
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
                protocol.send(self._sock, {"op": "cell", "index": index, "source": source})
                reply, _ = protocol.recv(self._sock, time.monotonic() + timeout)
            except protocol.ChannelTimeout:
                self._skip[index] = f"it did not finish within {timeout:.0f} s"
            except (protocol.ChannelClosed, protocol.ProtocolError, OSError):
                self._skip[index] = "it ended the process running it (crash, exit or memory limit)"
            else:
                error = (
                    None if reply.get("ok") else StudentError.from_dict(reply.get("error") or {})
                )
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
        }
        try:
            self._pid, self._sock = self.zygote.fork(config)
            hello, _ = protocol.recv(self._sock, time.monotonic() + 30)
        except (
            ZygoteError,
            protocol.ChannelClosed,
            protocol.ChannelTimeout,
            protocol.ProtocolError,
        ) as error:
            self._kill()
            raise ZygoteError(f"could not start a sandboxed worker: {error}") from None
        self.report.isolation = list(hello.get("isolation", []))

    def _restart(self, who: str) -> None:
        if self.report.restarts >= self.limits.max_restarts:
            raise StudentError(
                "crashed", message="too many crashes; not run", function=who.strip("`")
            )
        self.report.restarts += 1
        self._spawn()
        for index, source in enumerate(self.cells):
            if index in self._skip:
                continue
            try:
                protocol.send(self._sock, {"op": "cell", "index": index, "source": source})
                protocol.recv(self._sock, time.monotonic() + self.limits.cell_timeout)
            except (
                protocol.ChannelTimeout,
                protocol.ChannelClosed,
                protocol.ProtocolError,
                OSError,
            ):
                self._kill()
                raise StudentError(
                    "crashed", message="the notebook could not be re-run", function=who.strip("`")
                ) from None

    def _lose_worker(self, event: str) -> None:
        self.report.events.append(event)
        self._kill()

    def _kill(self) -> None:
        if self._sock is not None:
            try:
                self._sock.close()
            except OSError:
                pass
            self._sock = None
        if self._pid is not None:
            kill_worker(self._pid, self.uid if self.isolate else None)
            self._pid = None

