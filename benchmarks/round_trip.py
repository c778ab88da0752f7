"""What one round trip to a sandboxed worker costs, on each side of the trust boundary.

Run from the repository root (as root, for the sandbox's own uid and namespaces)::

    .venv/bin/python benchmarks/round_trip.py --calls 3000

It starts a zygote that preloads NumPy alone, forks one fully isolated worker holding two
notebook functions, and calls each ``--calls`` times: ``nothing()`` (no arguments, returns
None: the bare cost of a call) and ``dot(a, a)`` on 16 floats (arguments and a result to
encode). For each it prints the wall time per call, the CPU of this (trusted) process and the
CPU of the worker's process tree per call, and, for scale, a bare socket ping-pong with a
forked process (the transport's floor). A grading run makes about 115 such calls per H2 submission (issue 40).
"""

from __future__ import annotations

import argparse
import os
import resource
import socket
import sys
import time
from pathlib import Path

import numpy as np
import psutil

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.sandbox.client import SandboxStudent  # noqa: E402
from autograder.sandbox.limits import Limits  # noqa: E402
from autograder.sandbox.uids import UidLease  # noqa: E402
from autograder.sandbox.zygote import Zygote  # noqa: E402

CELLS = ["import numpy as np\n\ndef dot(a, b):\n    return float(np.dot(a, b))\n",
         "def nothing():\n    return None\n"]
LIMITS = Limits(cell_timeout=5, call_timeout=3, notebook_timeout=60, max_restarts=2)


def tree_cpu(pid: int) -> float:
    """CPU seconds of ``pid`` and every process under it."""
    root = psutil.Process(pid)
    return sum(sum(process.cpu_times()[:2]) for process in [root, *root.children(recursive=True)])


def bare_socket(calls: int) -> tuple[float, float]:
    """Seconds of wall and of CPU (both processes) per ping-pong of 64 bytes between this
    process and a forked child over a socket pair: the transport's floor."""
    left, right = socket.socketpair()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)  # children reaped earlier count too
    child = os.fork()
    if child == 0:  # pragma: no cover - the echoing child
        left.close()
        while data := right.recv(64):
            right.sendall(data)
        os._exit(0)
    right.close()
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(calls):
        left.sendall(b"x" * 64)
        left.recv(64)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    left.close()
    os.waitpid(child, 0)
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    child_cpu = used.ru_utime + used.ru_stime - before.ru_utime - before.ru_stime
    return wall / calls, (cpu + child_cpu) / calls


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=3000)
    args = parser.parse_args(argv)
    lease = UidLease.acquire()
    zygote = Zygote.launch(preload=["numpy"])[0].wait_ready(60)
    vector = np.arange(16, dtype=float)
    try:
        with SandboxStudent(CELLS, zygote, uid=lease.uid, limits=LIMITS) as student:
            student.call("nothing")  # the worker forked and its cells run
            print(f"{args.calls} calls each, one isolated worker ({', '.join(student.report.isolation)})")
            for name, arguments in (("nothing", ()), ("dot", (vector, vector))):
                wall, trusted, worker = time.perf_counter(), time.process_time(), tree_cpu(student._pid)
                for _ in range(args.calls):
                    student.call(name, *arguments)
                per = 1e6 / args.calls
                print(f"  {name}: {(time.perf_counter() - wall) * per:.0f} us wall, "
                      f"{(time.process_time() - trusted) * per:.0f} us CPU trusted, "
                      f"{(tree_cpu(student._pid) - worker) * per:.0f} us CPU worker per call")
    finally:
        zygote.close()
        lease.release()
    wall, cpu = bare_socket(args.calls)
    print(f"  for scale, a bare ping-pong with a forked process: {wall * 1e6:.0f} us wall, "
          f"{cpu * 1e6:.0f} us CPU (both sides) per call")
    return 0


if __name__ == "__main__":
    sys.exit(main())
