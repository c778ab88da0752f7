"""Every worker is PID 1 of PID, mount and network namespaces of its own (issue 17 made the
zygote fork a worker straight into a new PID namespace as root, one fork instead of two): no
two workers share one, none is the grader's, and a worker sees no process but its own."""

from __future__ import annotations

import os

import pytest

from autograder.sandbox.client import SandboxStudent
from autograder.sandbox.uids import UidLease
from tests.support.wire import start_zygote

pytestmark = pytest.mark.slow

CELL = """
import os
def namespaces():
    return {
        "pid": os.getpid(),
        "processes": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
        "net": sorted(os.listdir("/sys/class/net")) if os.path.isdir("/sys/class/net") else [],
        "inodes": [os.stat(f"/proc/self/ns/{kind}").st_ino for kind in ("pid", "mnt", "net")],
    }
"""


def _ours() -> list[int]:
    return [os.stat(f"/proc/self/ns/{kind}").st_ino for kind in ("pid", "mnt", "net")]


def test_each_worker_has_namespaces_of_its_own():
    """Two workers alive at once (a namespace's inode number is reused once it is gone)."""
    leases = [UidLease.acquire(), UidLease.acquire()]
    zygote = start_zygote()
    try:
        students = [SandboxStudent([CELL], zygote, uid=lease.uid) for lease in leases]
        try:
            seen = [student.call("namespaces") for student in students]
            for student in students:
                assert {"pid-namespace", "no-network"} <= set(student.report.isolation)
        finally:
            for student in students:
                student.close()
    finally:
        zygote.close()
        for lease in leases:
            lease.release()
    for found in seen:
        assert found["pid"] == 1
        assert found["processes"] == [1]
        for kind, theirs, ours in zip(("pid", "mnt", "net"), found["inodes"], _ours(), strict=True):
            assert theirs != ours, f"a worker shares the grader's {kind} namespace"
    for index, kind in enumerate(("pid", "mnt", "net")):
        assert seen[0]["inodes"][index] != seen[1]["inodes"][index], (
            f"two workers share a {kind} namespace")
