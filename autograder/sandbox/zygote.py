"""The trusted side's handle on the zygote, and the kill that ends a worker.

The zygote itself (``autograder.untrusted.zygote``) is a warm process that
forks one worker per submission. Started once per grading process
(``Zygote.launch``), it imports the libraries the assignment names (its ``preload``,
given on the zygote's command line as plain module names) and warms them up, but never
imports anything trusted (no reference, no checks): a forked worker inherits only what
the zygote holds. Forking then costs milliseconds instead of the 2-3 s of a fresh
interpreter plus the assignment's imports (``import torch``).

The trusted side sends a fork request and one end of a fresh socket pair
(``SCM_RIGHTS``); the zygote forks, the child isolates itself and serves the
submission on that socket, and the zygote answers with the child's pid.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import autograder
from autograder.legacy_names import WORKER_STDERR_ENV as LEGACY_STDERR_ENV
from autograder.untrusted.isolation import WORKER_STDERR_ENV
from autograder.untrusted.lifeline import PARENT_ENV
from autograder.untrusted.zygote import HIDE_ENV, command_line, module_names

THREAD_ENV = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "MPLBACKEND": "Agg",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONHASHSEED": "0",
}


_told_renamed = False  # the notice about the old debugging variable, once per process


def worker_stderr() -> str:
    """The file the sandbox's stderr goes to (``AUTOGRADER_WORKER_STDERR``, for debugging the
    grader itself), "" when none is asked for. The variable's old name is still honoured,
    with a one-line notice on this process's stderr (once) naming the new one."""
    global _told_renamed
    wanted = os.environ.get(WORKER_STDERR_ENV, "")
    old = os.environ.get(LEGACY_STDERR_ENV, "")
    if old and not wanted:
        if not _told_renamed:
            _told_renamed = True
            print(f"note: {LEGACY_STDERR_ENV} is now called {WORKER_STDERR_ENV}; honoured this "
                  "time, set the new name instead", file=sys.stderr)
        return old
    return wanted


def zygote_environment(hide: Sequence[str] = ()) -> dict[str, str]:
    """A minimal, fixed environment: nothing of the TA's (tokens, paths, NBGRADER_*) is
    inherited by the zygote, so none of it can reach a worker. ``hide``: folders the workers
    must not see besides the grader's own (the assignment's bundle), read and removed from
    the environment by the zygote before it forks."""
    package_root = str(Path(autograder.__file__).resolve().parents[1])
    # The grader's own import path, so the zygote imports exactly the same modules.
    search = [package_root, *(p for p in sys.path if p and os.path.isdir(p) and p != package_root)]
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONPATH": os.pathsep.join(search),
        **THREAD_ENV,
    }
    if hide:
        env[HIDE_ENV] = os.pathsep.join(hide)
    log = worker_stderr()
    if log:  # debugging the grader itself (docs/development.md)
        env[WORKER_STDERR_ENV] = log
    return env


class ZygoteError(RuntimeError):
    """The zygote could not be started or stopped answering."""


class Zygote:
    """Trusted-side handle on a zygote: one control channel of it.

    One zygote process can serve several grading processes, each through a
    channel of its own (``launch(channels=N)``); only the handle that started
    the process (``owner``) waits for it on ``close``.
    """

    def __init__(self, process: subprocess.Popen | None, control: socket.socket,
                 preload: Sequence[str] = ()) -> None:
        self.process = process
        self.control = control
        self.preload = tuple(preload)  # what the zygote imported (sizes a worker's memory)
        self.dying: list[tuple[int, int | None, str]] = []  # (pid, uid, scratch) killed, not reaped

    @classmethod
    def launch(cls, channels: int = 1, *, preload: Sequence[str] = (),
               hide: Sequence[str] = ()) -> list[Zygote]:
        """Start a zygote without waiting (warm other things meanwhile, then ``wait_ready``
        on every handle). The first handle owns the process. ``preload``: the assignment's
        module names, imported before the first fork (``ValueError`` for one that is not a
        module name, or is the grader's own); ``hide``: the assignment's private folders
        (``Assignment.private_folders``), hidden from every worker."""
        names = module_names(preload)  # before anything is started
        pairs = [socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM) for _ in range(channels)]
        env = zygote_environment(hide)
        if threading.current_thread() is threading.main_thread():  # lives as long as we do
            env[PARENT_ENV] = str(os.getpid())  # the zygote dies with us (untrusted.lifeline)
        fds = [theirs.fileno() for _, theirs in pairs]
        log = env.get(WORKER_STDERR_ENV)  # debugging the grader: the zygote's own errors too
        with open(log or os.devnull, "ab") as stderr:
            process = subprocess.Popen(
                [sys.executable, "-m", "autograder.untrusted.zygote", *command_line(names, fds)],
                pass_fds=fds,
                env=env,
                cwd="/",
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )
        for _, theirs in pairs:
            theirs.close()
        return [cls(process if index == 0 else None, ours, names)
                for index, (ours, _) in enumerate(pairs)]

    def wait_ready(self, timeout: float = 60.0) -> Zygote:
        """Block until the zygote has imported and warmed everything."""
        self.control.settimeout(timeout)
        try:
            ready = self.control.recv(64)
        except TimeoutError:
            ready = b""
        if ready != b"ready":
            if self.process is not None:
                self.process.kill()
            raise ZygoteError("the sandbox process did not start (is every module the "
                              f"assignment preloads installed? {WORKER_STDERR_ENV}=FILE shows why)")
        self.control.settimeout(None)
        return self

    def retire(self, pid: int, uid: int | None, scratch: str) -> None:
        """SIGKILL a worker whose submission is graded, and return at once: waiting for the
        kernel to tear its namespaces down (about 12 ms) and removing its scratch folder happen
        in ``settle``, before the next worker is forked, so they overlap with the grader's own
        work in between (results, feedback, the next submission's evidence file)."""
        signal_worker(pid)
        self.dying.append((pid, uid, scratch))

    def settle(self) -> None:
        """Wait until every retired worker is gone (``kill_worker``) and remove its scratch."""
        while self.dying:
            pid, uid, scratch = self.dying.pop()
            kill_worker(pid, uid)
            shutil.rmtree(scratch, ignore_errors=True)

    def fork(self, config: dict) -> tuple[int, socket.socket]:
        """A new isolated worker: returns its pid and the socket to talk to it. Retired workers
        are reaped first: nothing of an earlier submission runs under the same uid."""
        self.settle()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            request = json.dumps(config).encode()
            socket.send_fds(
                self.control, [len(request).to_bytes(4, "big") + request], [theirs.fileno()]
            )
            self.control.settimeout(30)
            answer = self.control.recv(64)
        except OSError as error:
            ours.close()
            raise ZygoteError(f"the sandbox process stopped answering: {error}") from None
        finally:
            theirs.close()
        if not answer.startswith(b"pid "):
            ours.close()
            why = answer.decode("utf-8", "replace").removeprefix("error: ") or "no answer"
            raise ZygoteError(f"the sandbox process could not start a worker ({why})")
        return int(answer[4:]), ours

    def close(self) -> None:
        """Close this channel; the owner also waits for the zygote, which exits once
        every channel is closed (its workers are killed by their owners)."""
        self.settle()
        self.control.close()
        if self.process is None:
            return
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def discard(channels: list[Zygote]) -> None:
    """Close channels of a zygote that will not be used (a batch with nothing to grade here,
    or fewer submissions than channels). Discarding the owner kills the zygote at once: it may
    still be importing torch, and reads its channels only when warm. Channels already closed,
    and a zygote that has already exited (``close``), are left as they are."""
    for channel in channels:
        channel.control.close()
        if channel.process is not None and channel.process.poll() is None:
            channel.process.kill()
            channel.process.wait()


def signal_worker(pid: int) -> None:
    """SIGKILL the worker's session and the worker (PID 1 of its namespace: the kernel ends
    everything in it). No pid (0, or none was started): nothing to signal."""
    if pid <= 0:
        return
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except (ProcessLookupError, PermissionError):
            pass


def kill_worker(pid: int, uid: int | None) -> None:
    """SIGKILL the worker and wait until nothing it started is left.

    The worker is PID 1 of its own PID namespace: killing it makes the kernel kill every
    process in the namespace, and its entry in /proc disappears only once they are all
    gone (the zygote reaps it). Belt and braces: its session, and, when it has a user id
    of its own, every process of that user."""
    if pid > 0:
        signal_worker(pid)
        # Up to 5 s for the kernel to tear the namespace down (typically 10-15 ms). Polled
        # every millisecond: every submission waits for this, and a 5 ms poll added ~3 ms.
        deadline = time.monotonic() + 5
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.001)
    if uid is None or os.geteuid() != 0:
        return
    for _ in range(200):
        survivors = [
            entry for entry in os.listdir("/proc") if entry.isdigit() and _owned_by(entry, uid)
        ]
        if not survivors:
            return
        for entry in survivors:
            try:
                os.kill(int(entry), signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.005)


def _alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _owned_by(pid: str, uid: int) -> bool:
    """A live (not zombie) process of ``uid``."""
    try:
        if Path(f"/proc/{pid}").stat().st_uid != uid:
            return False
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False
