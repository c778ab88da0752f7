"""Confine a freshly forked worker before it runs any student code.

Applied in the child, in this order: its own session (so it can be killed as a
group), no terminal and no inherited output, then, when the grader runs as
root on Linux: a private mount namespace in which the repository, the course
and other workers' scratch space are covered by empty read-only filesystems,
no network, and an unprivileged user id of its own (which makes the process
limit count this worker alone and lets the grader kill every process it
started, even one that left the session). Resource limits always apply.

Each step that could not be applied is reported, never silently skipped: the
grader records the isolation level with every result.
"""

from __future__ import annotations

import ctypes
import os
import resource
import sys
from collections.abc import Sequence

CLONE_NEWNS = 0x00020000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_BIND = 4096
MS_MOVE = 8192
MS_REC = 16384
MS_PRIVATE = 1 << 18


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        raise OSError(ctypes.get_errno(), f"{what}: {os.strerror(ctypes.get_errno())}")


def _mount_tmpfs(libc: ctypes.CDLL, target: str, options: str, flags: int) -> None:
    _check(
        libc.mount(b"tmpfs", target.encode(), b"tmpfs", flags, options.encode()),
        f"mount tmpfs on {target}",
    )


def _closed_ancestor(path: str) -> str | None:
    """The first directory above ``path`` that other users cannot enter, if any."""
    parts = os.path.abspath(path).split(os.sep)
    for depth in range(2, len(parts) + 1):
        ancestor = os.sep.join(parts[:depth])
        if not os.stat(ancestor).st_mode & 0o001:
            return ancestor
    return None


def expose_runtime(libc: ctypes.CDLL, runtime: Sequence[str], staging: str) -> None:
    """Make the Python installation readable to the worker's user when it lives under a
    private directory (``/root/.pyenv``): that directory is replaced by an empty one
    holding only the installation, so the rest of it stays hidden."""
    for path in runtime:
        ancestor = _closed_ancestor(path)
        if ancestor is None:
            continue
        os.makedirs(staging, exist_ok=True)
        _check(
            libc.mount(path.encode(), staging.encode(), None, MS_BIND | MS_REC, None),
            f"bind {path}",
        )
        _mount_tmpfs(libc, ancestor, "size=4k,mode=0755", MS_NOSUID | MS_NODEV)
        os.makedirs(path, mode=0o755, exist_ok=True)
        _check(libc.mount(staging.encode(), path.encode(), None, MS_MOVE, None), f"move {path}")


def hide_paths(
    paths: Sequence[str], scratch: str, uid: int, file_mb: int, runtime: Sequence[str] = ()
) -> None:
    """New mount namespace: each of ``paths`` becomes an empty read-only directory
    (a file becomes unreadable), and ``scratch`` a fresh private tmpfs of ``file_mb``."""
    libc = _libc()
    _check(libc.unshare(CLONE_NEWNS), "unshare mount namespace")
    _check(libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "make mounts private")
    expose_runtime(libc, runtime, os.path.join(scratch, ".runtime"))
    for path in paths:
        if os.path.isdir(path):
            _mount_tmpfs(libc, path, "size=4k,mode=0555", MS_RDONLY | MS_NOSUID | MS_NODEV)
        elif os.path.exists(path):
            _check(libc.mount(b"/dev/null", path.encode(), None, 4096, None), f"cover {path}")
    os.makedirs(scratch, exist_ok=True)
    _mount_tmpfs(
        libc, scratch, f"size={file_mb}m,mode=0700,uid={uid},gid={uid}", MS_NOSUID | MS_NODEV
    )


def drop_network() -> None:
    """A network namespace with nothing in it: no connection leaves the worker."""
    _check(_libc().unshare(CLONE_NEWNET), "unshare network namespace")


def become(uid: int) -> None:
    """Switch to an unprivileged user and group id (irreversible)."""
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)


def set_limits(memory_mb: int, file_mb: int, nproc: int, cpu_seconds: int) -> None:
    """Kernel-enforced ceilings; a worker that hits one fails or is killed, alone."""
    limits = {
        resource.RLIMIT_AS: memory_mb * 2**20,
        resource.RLIMIT_FSIZE: file_mb * 2**20,
        resource.RLIMIT_NPROC: nproc,
        resource.RLIMIT_CORE: 0,
        resource.RLIMIT_NOFILE: 256,
        resource.RLIMIT_CPU: cpu_seconds,
    }
    for which, value in limits.items():
        soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value))


def user_process_count(uid: int) -> int:
    """Processes and threads owned by ``uid`` (RLIMIT_NPROC counts both)."""
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry}/task"))
            except OSError:
                continue
    return count


def isolate(config: dict) -> list[str]:
    """Apply every step that this machine allows; returns what was applied."""
    applied = []
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    if os.environ.get("H2_WORKER_STDERR"):  # debugging the grader itself: keep crash reports
        log = os.open(os.environ["H2_WORKER_STDERR"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)
        os.dup2(log, 2)
        os.close(log)
        import faulthandler

        faulthandler.enable()
    limits = config["limits"]
    uid = config["uid"]
    privileged = os.geteuid() == 0 and config.get("isolate", True)
    if privileged:
        try:
            runtime = sorted({sys.base_prefix, sys.prefix}, key=len)
            hide_paths(config["hide"], config["scratch"], uid, limits["file_mb"], runtime)
            applied.append("private-filesystem")
        except OSError:
            os.makedirs(config["scratch"], exist_ok=True)
        try:
            drop_network()
            applied.append("no-network")
        except OSError:
            pass
    else:
        os.makedirs(config["scratch"], exist_ok=True)
    os.chdir(config["scratch"])
    nproc = limits["nproc"]
    if privileged:
        os.chown(config["scratch"], uid, uid)
        become(uid)
        applied.append("own-user")
    else:
        nproc += user_process_count(os.getuid())
    cpu = int(limits["submission_timeout"]) + 5
    set_limits(limits["memory_mb"], limits["file_mb"], nproc, cpu)
    applied.append("rlimits")
    return applied
