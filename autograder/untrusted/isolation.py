"""Confine a freshly forked worker before it runs any student code.

Applied in the child, in this order: its own session (so it can be killed as a
group), no terminal and no inherited output; then, when the grader runs as
root on Linux, a private mount namespace with a *minimal root*: a fresh tmpfs
holding read-only bind mounts of the system (``/usr``, ``/etc`` ...) and of the
Python installation only, plus an empty working directory. The repository,
every course root, ``/tmp``, ``/home`` and anything else on the machine simply
do not exist for the worker. Then no network, and an unprivileged user id of
its own (which makes the process limit count this worker alone and lets the
grader kill every process it started, even one that left the session).
Resource limits always apply.

Each step that could not be applied is reported, never silently skipped: the
grader records the isolation level with every result.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import site
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18

SYSTEM_TREES = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
DEVICES = ("/dev/null", "/dev/zero", "/dev/random", "/dev/urandom")
WORKDIR = "/submission"  # the worker's working directory (and HOME) inside its root


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def _mount(libc: ctypes.CDLL, source: str, target: str, fstype: str | None, flags: int,
           options: str | None = None) -> None:
    _check(libc.mount(source.encode(), target.encode(), fstype.encode() if fstype else None,
                      flags, options.encode() if options else None), f"mount {source} on {target}")


def _bind_readonly(libc: ctypes.CDLL, source: str, target: str) -> None:
    if os.path.isdir(source):
        os.makedirs(target, mode=0o755, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
        open(target, "a").close()
    _mount(libc, source, target, None, MS_BIND | MS_REC)
    _mount(libc, source, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID)


def runtime_paths() -> list[str]:
    """The Python installation the worker needs: the interpreter's prefixes and the
    site-packages directories (a virtual environment may live inside the repository)."""
    paths = {os.path.realpath(p) for p in (sys.base_prefix, sys.prefix, *site.getsitepackages())}
    # Keep only the outermost of nested paths.
    return sorted(p for p in paths if not any(p != q and p.startswith(q + "/") for q in paths))


def build_root(libc: ctypes.CDLL, new_root: str, uid: int, file_mb: int) -> None:
    """A tmpfs at ``new_root`` with read-only system and Python trees, devices,
    /proc, a private /tmp and the writable working directory."""
    _mount(libc, "tmpfs", new_root, "tmpfs", MS_NOSUID | MS_NODEV, f"size={file_mb}m,mode=0755")
    for tree in SYSTEM_TREES:
        if os.path.islink(tree):  # /bin -> usr/bin on merged-/usr systems
            os.symlink(os.readlink(tree), new_root + tree)
        elif os.path.isdir(tree):
            _bind_readonly(libc, tree, new_root + tree)
    for path in runtime_paths():
        _bind_readonly(libc, path, new_root + path)
    for device in DEVICES:
        if os.path.exists(device):
            os.makedirs(new_root + "/dev", mode=0o755, exist_ok=True)
            open(new_root + device, "a").close()
            _mount(libc, device, new_root + device, None, MS_BIND)
    os.makedirs(new_root + "/proc", mode=0o555)
    _mount(libc, "/proc", new_root + "/proc", None, MS_BIND | MS_REC)
    for private, mode in (("/tmp", 0o1777), ("/dev/shm", 0o1777), (WORKDIR, 0o700)):
        os.makedirs(new_root + private, exist_ok=True)
        os.chmod(new_root + private, mode)
    os.chown(new_root + WORKDIR, uid, uid)


def enter_minimal_root(scratch: str, uid: int, file_mb: int) -> None:
    """New mount namespace, then chroot into a minimal root built under ``scratch``."""
    libc = _libc()
    _check(libc.unshare(CLONE_NEWNS), "unshare mount namespace")
    _mount(libc, "none", "/", None, MS_REC | MS_PRIVATE)
    os.makedirs(scratch, exist_ok=True)
    build_root(libc, scratch, uid, file_mb)
    os.chroot(scratch)
    os.chdir(WORKDIR)


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


def _redirect_output() -> None:
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


def isolate(config: dict) -> list[str]:
    """Apply every step that this machine allows; returns what was applied."""
    applied = []
    os.setsid()
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the zygote ignores it; students' subprocesses must not
    _redirect_output()
    limits = config["limits"]
    uid = config["uid"]
    privileged = os.geteuid() == 0 and config.get("isolate", True)
    workdir = config["scratch"]
    if privileged:
        try:
            enter_minimal_root(config["scratch"], uid, limits["file_mb"])
            applied.append("minimal-root")
            workdir = WORKDIR
        except OSError:
            pass
        try:
            drop_network()
            applied.append("no-network")
        except OSError:
            pass
    os.makedirs(workdir, exist_ok=True)
    os.chdir(workdir)
    os.environ["HOME"] = workdir
    os.environ["TMPDIR"] = "/tmp" if "minimal-root" in applied else workdir
    nproc = limits["nproc"]
    if privileged:
        if "minimal-root" not in applied:
            os.chown(workdir, uid, uid)
        become(uid)
        applied.append("own-user")
    else:
        nproc += user_process_count(os.getuid())
    cpu = int(limits["submission_timeout"]) + 5
    set_limits(limits["memory_mb"], limits["file_mb"], nproc, cpu)
    applied.append("rlimits")
    return applied
