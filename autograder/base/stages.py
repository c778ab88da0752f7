"""Where a grading run's time goes, stage by stage, when a benchmark asks (issue 40).

With ``AUTOGRADER_STAGES=FOLDER`` in the environment, each grader process (the coordinator
and every trusted grading process) adds up the wall and CPU time of the stages it runs
(``with stage("checks: softmax"):``) and writes its totals to ``FOLDER/<pid>.json`` when
asked (``save``: at the end of a batch, and when a grading process ends).
``benchmarks/grading_throughput.py`` sums the files into its per-stage table.

Stages nest, and a stage's figures exclude the stages inside it (the round trips to the
sandbox inside a check are charged to ``sandbox: round trips``, not to the check), so the
stages of one process add up to the time they cover. CPU is the calling thread's
(``time.thread_time``): the gradebook thread's work is its own stage. Without the variable,
``stage`` does nothing but one test of a module global; nothing is measured or written.
"""

from __future__ import annotations

import json
import os
import threading
import time
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

ENV = "AUTOGRADER_STAGES"
"""The folder each process writes its stage totals into; unset: no stage is measured."""

_FOLDER: str | None = os.environ.get(ENV) or None
_TOTALS: dict[str, list[float]] = {}  # stage -> [count, wall s, cpu s]
_LOCK = threading.Lock()
_LOCAL = threading.local()  # per thread: the open stages and when the current one resumed


def _forked() -> None:
    """A forked process (a grading process) starts with nothing measured: its parent's
    totals and open stages are the parent's."""
    global _LOCK, _LOCAL
    _TOTALS.clear()
    _LOCK, _LOCAL = threading.Lock(), threading.local()


if _FOLDER is not None:
    os.register_at_fork(after_in_child=_forked)


def enabled() -> bool:
    """Whether this process measures its stages."""
    return _FOLDER is not None


def _charge(now_wall: float, now_cpu: float) -> None:
    """Charge the time since the last switch to the innermost open stage of this thread."""
    stack = getattr(_LOCAL, "stack", None)
    if stack:
        wall, cpu = now_wall - _LOCAL.wall, now_cpu - _LOCAL.cpu
        with _LOCK:
            totals = _TOTALS.setdefault(stack[-1], [0, 0.0, 0.0])
            totals[1] += wall
            totals[2] += cpu
    _LOCAL.wall, _LOCAL.cpu = now_wall, now_cpu


class _Stage:
    """One open stage of this thread (``stage``)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __enter__(self) -> None:
        if not hasattr(_LOCAL, "stack"):
            _LOCAL.stack = []
        _charge(time.perf_counter(), time.thread_time())
        _LOCAL.stack.append(self.name)
        with _LOCK:
            _TOTALS.setdefault(self.name, [0, 0.0, 0.0])[0] += 1

    def __exit__(self, *exc: object) -> None:
        _charge(time.perf_counter(), time.thread_time())
        _LOCAL.stack.pop()


_OFF = nullcontext()


def stage(name: str) -> AbstractContextManager[None]:
    """Count the time inside the ``with`` block as ``name`` (less that of the stages inside
    it); without the variable, a context that does nothing."""
    return _OFF if _FOLDER is None else _Stage(name)


def add(name: str, wall: float, cpu: float = 0.0, count: int = 1) -> None:
    """Record a stage measured elsewhere (the process's start-up, from its start time)."""
    if _FOLDER is None:
        return
    with _LOCK:
        totals = _TOTALS.setdefault(name, [0, 0.0, 0.0])
        totals[0] += count
        totals[1] += wall
        totals[2] += cpu


def save(role: str) -> None:
    """Write this process's totals (``role``: coordinator, grading process...) to the
    folder, replacing what it wrote before; nothing without the variable."""
    if _FOLDER is None:
        return
    with _LOCK:
        data = {"role": role, "pid": os.getpid(),
                "process": {"cpu": time.process_time(), "wall": since_start()[0]},
                "stages": {name: {"count": int(c), "wall": w, "cpu": u}
                           for name, (c, w, u) in _TOTALS.items()}}
    folder = Path(_FOLDER)
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / f".{os.getpid()}.json.partial"
    partial.write_text(json.dumps(data, indent=1), encoding="utf-8")
    os.replace(partial, folder / f"{os.getpid()}.json")


def since_start() -> tuple[float, float]:
    """Wall and CPU seconds since this process started (Linux ``/proc``; zeros elsewhere):
    the start-up before the first stage."""
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        started = int(fields[19]) / ticks  # since boot
        uptime = float(Path("/proc/uptime").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0.0, 0.0
    return max(0.0, uptime - started), time.process_time()
