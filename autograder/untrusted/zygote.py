"""The zygote process: warm, and forks one worker per submission (untrusted side).

Started by ``autograder.sandbox.zygote.Zygote`` (``python -m
autograder.untrusted.zygote --preload NAME,... FD...``), it imports the modules the
assignment names (its ``preload``: plain module names, checked here and by the grader)
and the engine's own (``ENGINE_PRELOAD``), warms up the libraries among them, but never
imports anything trusted (no reference, no checks, no grading logic;
``tests/untrusted/test_boundary.py`` proves it): a forked worker inherits only what the zygote holds.
Forking then costs milliseconds instead of the 2-3 s of a fresh interpreter plus the
assignment's imports (``import torch``).

The trusted side sends a fork request and one end of a fresh socket pair
(``SCM_RIGHTS``); the zygote forks, the child isolates itself and serves the
submission on that socket, and the zygote answers with the child's pid.
"""

from __future__ import annotations

import ctypes
import gc
import importlib
import json
import os
import re
import select
import signal
import socket
import sys
from collections.abc import Callable, Iterable, Sequence

from autograder.untrusted.isolation import (
    PidNamespaceFork,
    ZygoteBroken,
    enter_child_namespaces,
    enter_namespaces,
    isolate,
)
from autograder.untrusted.lifeline import die_with_launcher

PRELOAD_OPTION = "--preload"
# Folders the workers must not see besides the grader's own (the assignment's bundle), as
# os.pathsep-joined paths; taken out of the environment before the first fork.
HIDE_ENV = "AUTOGRADER_HIDE_PATHS"
# What the engine itself needs in every worker, whatever the assignment: NumPy (the wire
# format; numpy.random for the seeds set before every call), the system-call filter, and the
# notebook-code translator.
ENGINE_PRELOAD = ("numpy", "numpy.random", "pyseccomp", "IPython.core.inputtransformer2")
MAX_PRELOAD = 64
_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\Z")


def module_names(names: Iterable[object]) -> tuple[str, ...]:
    """``names`` checked to be importable module names (``ValueError`` otherwise), not the
    grader's own (the zygote imports what it needs of ``autograder.untrusted`` itself, and
    nothing else of it may reach a worker)."""
    checked = []
    for name in names:
        if type(name) is not str or len(name) > 200 or not _MODULE_NAME.match(name):
            raise ValueError(f"preload: {str(name)[:80]!r} is not a module name")
        if name.split(".")[0] == "autograder":
            raise ValueError(f"preload: {name!r} is the grader's own module, never preloaded")
        checked.append(name)
    if len(checked) > MAX_PRELOAD:
        raise ValueError(f"preload: more than {MAX_PRELOAD} modules")
    return tuple(checked)


def command_line(preload: Sequence[str], control_fds: Sequence[int]) -> list[str]:
    """The zygote's arguments: the assignment's preloads (plain, checked names) and the
    control channels' file descriptors."""
    return [PRELOAD_OPTION, ",".join(module_names(preload)), *map(str, control_fds)]


def parse_command_line(argv: Sequence[str]) -> tuple[tuple[str, ...], list[int]]:
    """Inverse of ``command_line``: (preloads, control fds); ``ValueError`` for anything
    else."""
    if len(argv) < 2 or argv[0] != PRELOAD_OPTION:
        raise ValueError(f"usage: {PRELOAD_OPTION} NAME,... FD...")
    names = module_names(argv[1].split(",")) if argv[1] else ()
    return names, [int(fd) for fd in argv[2:]]


def imports(preload: Sequence[str]) -> tuple[str, ...]:
    """Everything the zygote imports before forking: the assignment's ``preload``, in its
    order, then the engine's own needs."""
    return tuple(dict.fromkeys([*preload, *ENGINE_PRELOAD]))


def _warm_torch() -> None:
    # torch (1-2 s): only when the assignment preloads it (WARM_UPS)
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(1)
    # Products and softmax initialise lazily on first use, per dtype.
    for dtype in (torch.float64, torch.float32):
        x = torch.zeros(1, 2, 3, dtype=dtype)
        F.softmax(x @ x.transpose(-1, -2), dim=-1).masked_fill(torch.ones(2, 2, dtype=torch.bool), 0)


def _warm_numpy() -> None:
    # NumPy (40 ms): only when the assignment preloads it (WARM_UPS)
    import numpy as np

    np.linalg.norm(np.ones((3, 3)) @ np.ones((3, 3)))  # BLAS and linalg initialise lazily


def _warm_pyplot() -> None:
    # matplotlib (300 ms): only when the assignment preloads it (WARM_UPS)
    import matplotlib.pyplot as plt

    plt.figure()
    plt.close("all")


# A library's warm-up, run only when the assignment preloads it (or one of its submodules):
# the zygote never imports a library the assignment did not ask for.
WARM_UPS: dict[str, Callable[[], None]] = {
    "torch": _warm_torch,
    "numpy": _warm_numpy,
    "matplotlib.pyplot": _warm_pyplot,
}


def warm_ups(preload: Sequence[str]) -> list[str]:
    """The libraries of ``WARM_UPS`` that ``preload`` names, itself or by a submodule."""
    return [library for library in WARM_UPS
            if any(name == library or name.startswith(library + ".") for name in preload)]


def _warm_up(preload: Sequence[str]) -> None:
    """Run each preloaded library once so its lazy initialisation happens before forking."""
    for library in warm_ups(preload):
        WARM_UPS[library]()
    # The engine's own: numpy imports numpy.random lazily; without this, every worker's first
    # seeded call would import it (about 7 ms per submission).
    # NumPy (40 ms): the coordinator imports this module before the zygote starts
    from autograder.untrusted.seeding import seed_everything

    seed_everything()


HUGE_PAGE = 2 << 20
MADV_COLLAPSE = 25  # Linux 6.1+


class HugePages:
    """Back the warm zygote's anonymous memory (about 170 MB: the heap, Python's arenas) with
    2 MiB pages, one page at a time, whenever the zygote has no fork request to answer.

    Forking copies the parent's page tables and exiting tears them down: with 4 KiB pages a
    fork and exit of the zygote cost about 25 ms of CPU, with huge pages about 9 ms (measured
    with a worker-like touch of numpy and torch in the child; the child's writes still copy
    only 4 KiB each). ``MADV_COLLAPSE`` does it whatever the system's THP setting short of
    "never"; an older kernel refuses it and workers are forked as before. All of it at
    once takes about 0.3 s, which the zygote would otherwise spend before it is ready, while
    the whole batch waits; a page at a time, it overlaps with the grading of the first
    submissions."""

    def __init__(self) -> None:
        self._madvise = ctypes.CDLL(None, use_errno=True).madvise
        self._madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        self.pending: list[int] = []  # start addresses of the huge pages still to collapse
        with open("/proc/self/maps") as maps:
            for line in maps:
                fields = line.split()
                path = fields[5] if len(fields) > 5 else ""
                if "w" not in fields[1] or path not in ("", "[heap]"):
                    continue  # only private writable anonymous memory
                start, end = (int(address, 16) for address in fields[0].split("-"))
                start = -(-start // HUGE_PAGE) * HUGE_PAGE
                self.pending += range(start, end // HUGE_PAGE * HUGE_PAGE, HUGE_PAGE)
        self.pending.reverse()  # popped from the end: lowest addresses first

    def step(self) -> None:
        """Collapse the next page (a kernel that refuses costs one system call a page)."""
        self._madvise(self.pending.pop(), HUGE_PAGE, MADV_COLLAPSE)


def _become_subreaper() -> None:
    PR_SET_CHILD_SUBREAPER = 36
    ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _serve_child(config: dict, sock: socket.socket, report: int) -> None:
    """In the zygote's child: make the namespaces, fork the worker (PID 1 of them), tell
    the zygote the worker's pid through ``report``, and exit. The worker is then the
    zygote's child (a subreaper), and when it ends the kernel ends everything it started."""
    # untrusted.worker (NumPy, 50 ms): the coordinator imports this module before the zygote
    from autograder.untrusted.worker import Worker

    try:
        namespaces = enter_namespaces() if config.get("isolate", True) else []
        failure = ""
    except OSError as error:
        namespaces, failure = [], str(error)
    try:
        pid = os.fork()
        if pid == 0:
            os.close(report)
            try:
                failures = [failure] if failure else []
                applied = isolate(config, namespaces, failures)
                Worker(sock, applied, "; ".join(failures)).serve()
            finally:
                os._exit(0)
        os.write(report, f"pid {pid}".encode())
    finally:
        os._exit(0)


def _serve_worker(config: dict, sock: socket.socket) -> None:
    """In a worker ``PidNamespaceFork`` made: its own mount and network namespaces, then the
    same isolation and loop as a worker ``_serve_child`` forks. Never returns."""
    # untrusted.worker (NumPy, 50 ms): the coordinator imports this module before the zygote
    from autograder.untrusted.worker import Worker

    try:
        try:
            namespaces, failures = enter_child_namespaces(), []
        except OSError as error:
            # Nothing is claimed: without a mount namespace no minimal root may be built.
            namespaces, failures = [], [str(error)]
        applied = isolate(config, namespaces, failures)
        Worker(sock, applied, "; ".join(failures)).serve()
    finally:
        os._exit(0)


def _read_report(fd: int, timeout: float = 10.0) -> bytes:
    """The child's one-line report (``pid N``), or an error if it says nothing in time."""
    try:
        ready, _, _ = select.select([fd], [], [], timeout)
        answer = os.read(fd, 64) if ready else b""
    finally:
        os.close(fd)
    return answer if answer.startswith(b"pid ") else b"error: the worker could not be started"


def _direct_forker() -> object | None:
    """As root, a ``PidNamespaceFork`` (one fork per worker); otherwise None (a user namespace
    must be made in a single-threaded child, so the child forks the worker: ``_serve_child``)."""
    if os.geteuid() != 0:
        return None
    try:
        return PidNamespaceFork()
    except OSError:
        return None


def _fork_direct(direct: object, controls: list, config: dict, sock: socket.socket) -> int | None:
    """The worker's pid, forked by ``direct``; None when the kernel refused the namespace (the
    two-fork path then tries, and reports what it could not do)."""
    try:
        pid = direct.fork()
    except OSError:
        return None
    except ZygoteBroken:
        os._exit(1)  # the grader sees a zygote that stopped answering, and stops
    if pid == 0:
        for channel in controls:
            channel.close()
        _serve_worker(config, sock)
    return pid


def main(control_fds: list[int], preload: Sequence[str] = ()) -> None:
    """The zygote's loop: fork a worker per request, on any channel, until all are closed.
    ``preload``: the assignment's modules, imported (and warmed up) before the first fork."""
    die_with_launcher()  # a grader killed, even by kill -9: nothing left to serve
    # The imports make about 320,000 objects that live as long as the zygote: collecting
    # them over and over while importing costs about 0.25 s. Frozen afterwards, they are never
    # traversed again, here or in a worker (whose collections would otherwise touch, and so
    # copy, every page that holds one).
    hide = tuple(path for path in os.environ.pop(HIDE_ENV, "").split(os.pathsep) if path)
    gc.disable()
    for name in imports(preload):
        importlib.import_module(name)
    # Imported now so that workers never need to read files from the repository.
    importlib.import_module("autograder.untrusted.isolation")
    importlib.import_module("autograder.untrusted.worker")
    _warm_up(preload)
    gc.freeze()
    gc.enable()
    try:
        importlib.import_module("autograder.untrusted.isolation").compile_seccomp()
    except Exception:  # noqa: BLE001 - each worker then builds the filter, and reports if it cannot
        pass
    try:
        importlib.import_module("autograder.untrusted.isolation").locate_grader_files(hide)
    except Exception:  # noqa: BLE001 - each worker then looks for them, and fails closed if it cannot
        pass
    huge_pages = HugePages()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped automatically
    _become_subreaper()  # ... and so are orphans of killed workers (no zombie holds a uid)
    controls = [socket.socket(fileno=fd) for fd in control_fds]
    direct = _direct_forker()
    for control in list(controls):
        try:
            control.sendall(b"ready")
        except OSError:  # the grader has closed this channel already: it needed fewer
            controls.remove(control)
            control.close()
    while controls:
        readable, _, _ = select.select(controls, [], [], 0 if huge_pages.pending else None)
        if not readable:
            huge_pages.step()  # nothing to answer: the next page
            continue
        for control in readable:
            try:
                message, fds, _, _ = socket.recv_fds(control, 1 << 20, 1)
            except OSError:
                message, fds = b"", []
            if not message or not fds:
                controls.remove(control)
                control.close()
                continue
            config = json.loads(message[4 : 4 + int.from_bytes(message[:4], "big")])
            child_sock = socket.socket(fileno=fds[0])
            if direct is not None and config.get("isolate", True):
                pid = _fork_direct(direct, controls, config, child_sock)
                if pid is not None:
                    child_sock.close()
                    control.sendall(f"pid {pid}".encode())
                    continue
            report_read, report_write = os.pipe()
            if os.fork() == 0:
                os.close(report_read)
                for channel in controls:
                    channel.close()
                _serve_child(config, child_sock, report_write)
            os.close(report_write)
            child_sock.close()
            control.sendall(_read_report(report_read))
    # Every channel is closed: nothing to flush or save, and tearing down an interpreter that
    # imported torch takes about 0.6 s, which the grader would wait for.
    os._exit(0)


if __name__ == "__main__":
    preloads, fds = parse_command_line(sys.argv[1:])
    main(fds, preloads)
