"""Confine a freshly forked worker before it runs any student code.

Containment is the kernel's, not a scan of ``/proc``. The zygote's child
(``enter_namespaces``) creates, for this one submission, a PID namespace, a
mount namespace and an empty network namespace (and, when the grader is not
root, a user namespace that owns them, so no privilege is needed), then forks
the worker: the worker is PID 1 of its namespace, and when it ends, the kernel
kills every process the submission started, whatever it did (``setsid``,
double forks, a thread outliving its main thread). The worker (``isolate``)
then builds a *minimal root*: a small tmpfs holding read-only bind mounts of
the system (``/usr``, ``/etc`` ...) and of the Python installation only, a
fresh ``/proc`` that shows the namespace alone, a private ``/tmp`` and
``/dev/shm`` inside that tmpfs (so their size is capped), and the working
directory; the repository, every course root, ``/home`` and anything else on
the machine do not exist for it, nor does anything of the grader installed into that
Python (``grader_files``: the reference, the checks; hidden, then checked from inside). It
then drops every privilege (its own leased user id as root; no capabilities in a user
namespace), installs a seccomp filter that refuses the memory ``RLIMIT_AS`` does not
count (``memfd_create``, System V shared memory) and the calls that could undo the sandbox
(``mount``, ``unshare``, ``setns``, ``ptrace``, ``bpf`` ...), and sets resource limits.

Every step is reported: the worker's first message lists what was applied, and
the trusted side refuses to grade when a required step is missing (fail
closed), unless the TA explicitly allowed weaker isolation.
"""

from __future__ import annotations

import ctypes
import errno
import faulthandler
import os
import resource
import signal
import site
import stat
import sys
import sysconfig
from collections.abc import Sequence

from autograder.untrusted import grader_files

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_NOEXEC = 8
MS_NOATIME = 1024
MS_NODIRATIME = 2048
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
    # In a user namespace the source's nodev/noexec/atime flags are locked: keep them.
    kept = os.statvfs(source).f_flag & (MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME)
    _mount(libc, source, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | kept)


def runtime_paths() -> list[str]:
    """The Python installation the worker needs: the interpreter's prefixes and the
    site-packages directories on its path (a virtual environment may live inside the
    repository; the repository itself is never one of them)."""
    on_path = [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
    paths = {
        os.path.realpath(p)
        for p in (sys.base_prefix, sys.prefix, *site.getsitepackages(), *on_path)
        if os.path.isdir(p)
    }
    # Keep only the outermost of nested paths.
    return sorted(p for p in paths if not any(p != q and p.startswith(q + "/") for q in paths))


def build_root(libc: ctypes.CDLL, new_root: str, uid: int, file_mb: int) -> list[str]:
    """A tmpfs at ``new_root`` with read-only system and Python trees, devices, a fresh
    /proc of the worker's PID namespace, a private /tmp and the writable working directory.
    Nothing of the grader is left in it (``hide_grader_files``). Returns the trees bound."""
    _mount(libc, "tmpfs", new_root, "tmpfs", MS_NOSUID | MS_NODEV, f"size={file_mb}m,mode=0755")
    bound = []
    for tree in SYSTEM_TREES:
        if os.path.islink(tree):  # /bin -> usr/bin on merged-/usr systems
            os.symlink(os.readlink(tree), new_root + tree)
        elif os.path.isdir(tree):
            _bind_readonly(libc, tree, new_root + tree)
            bound.append(tree)
    for path in runtime_paths():
        _bind_readonly(libc, path, new_root + path)
        bound.append(path)
    hide_grader_files(libc, new_root, bound)
    for device in DEVICES:
        if os.path.exists(device):
            os.makedirs(new_root + "/dev", mode=0o755, exist_ok=True)
            open(new_root + device, "a").close()
            _mount(libc, device, new_root + device, None, MS_BIND)
    os.makedirs(new_root + "/proc", mode=0o555)
    _mount(libc, "proc", new_root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    for private, mode in (("/tmp", 0o1777), ("/dev/shm", 0o1777), (WORKDIR, 0o700)):
        os.makedirs(new_root + private, exist_ok=True)
        os.chmod(new_root + private, mode)
    os.chown(new_root + WORKDIR, uid, uid)
    return bound


# The grader's own files (``grader_files``), found once by the zygote before it forks.
_grader_files: grader_files.GraderFiles | None = None
_extra_hidden: tuple[str, ...] = ()  # the assignment's private folders (locate_grader_files)
HIDDEN_LAYERS = "/.grader-hidden"  # in the worker's root: whiteouts, then covered by a tmpfs
S_IFWHT = stat.S_IFCHR  # an overlayfs whiteout: a character device 0/0


def locate_grader_files(extra: tuple[str, ...] = ()) -> None:
    """In the zygote before it forks: find the grader's own files once (about 25 ms), with
    ``extra`` folders to hide (the assignment's bundle, wherever it lives). Kept first, so a
    worker that must look again (this failed) still hides them: fail closed."""
    global _grader_files, _extra_hidden
    _extra_hidden = tuple(extra)
    _grader_files = grader_files.find(_extra_hidden)


def _inside(path: str, tree: str) -> bool:
    return path == tree or path.startswith(tree + "/")


def grader_files_shown(bound: list[str], files: grader_files.GraderFiles) -> dict[str, set[str]]:
    """What of the grader the root would show: folder -> names in it to hide. A path that
    holds a tree the root shows (a virtual environment inside a checkout) is hidden around
    it, child by child."""
    hidden: dict[str, set[str]] = {}

    def hide(path: str) -> None:
        if not any(_inside(path, tree) for tree in bound):
            return  # not in the root at all
        if any(_inside(path, os.path.join(folder, name))
               for folder, names in hidden.items() for name in names):
            return  # already hidden with a folder above it
        if path in bound:
            raise OSError(f"the grader's files include {path}, which the sandbox shows whole")
        if any(_inside(tree, path) for tree in bound):
            for child in sorted(os.listdir(path)):
                if os.path.join(path, child) not in bound:
                    hide(os.path.join(path, child))
            return
        hidden.setdefault(os.path.dirname(path), set()).add(os.path.basename(path))

    for path in sorted(files.paths):  # a folder before what it holds
        hide(path)
    return hidden


def hide_grader_files(libc: ctypes.CDLL, new_root: str, bound: list[str]) -> None:
    """Hide every file of the grader that ``bound`` shows: in each folder that holds some,
    a read-only overlay whose top layer has a whiteout for each (the names do not exist for
    student code, so importing a reference fails instead of finding an empty folder). Where
    overlayfs cannot be mounted, the folder is rebuilt without them (a tmpfs of bind
    mounts). The whiteouts are then covered by an empty tmpfs."""
    files = _grader_files if _grader_files is not None else grader_files.find(_extra_hidden)
    hidden = grader_files_shown(bound, files)
    if not hidden:
        return
    for index, folder in enumerate(sorted(hidden, key=lambda path: path.count("/"))):
        layer = f"{new_root}{HIDDEN_LAYERS}/{index}"
        os.makedirs(layer, mode=0o700)
        target = new_root + folder
        try:
            if any(mark in target + layer for mark in ":,\\"):
                raise OSError("a path overlayfs options cannot hold")
            for name in hidden[folder]:  # refused by kernels before 5.8 in a user namespace
                os.mknod(os.path.join(layer, name), S_IFWHT, 0)
            # The overlay's folder takes the top layer's owner and mode: the original's.
            original = os.stat(folder)
            try:
                os.chown(layer, original.st_uid, original.st_gid)
            except OSError:
                pass  # an owner a user namespace does not map: the layer stays the grader's
            os.chmod(layer, stat.S_IMODE(original.st_mode))
            _mount(libc, "overlay", target, "overlay", MS_RDONLY | MS_NOSUID | MS_NODEV,
                   f"lowerdir={layer}:{target}")
        except OSError:
            _rebuild_without(libc, folder, target, hidden[folder])
    _mount(libc, "tmpfs", new_root + HIDDEN_LAYERS, "tmpfs",
           MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=0555")


def _rebuild_without(libc: ctypes.CDLL, folder: str, target: str, names: set[str]) -> None:
    """``target`` (the root's view of ``folder``) as a tmpfs holding read-only bind mounts
    of every entry of ``folder`` but ``names``: slower than an overlay (a mount per entry),
    for kernels that refuse overlayfs here."""
    original = os.stat(folder)
    _mount(libc, "tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV,
           f"size=1m,mode={stat.S_IMODE(original.st_mode):o},uid={original.st_uid},"
           f"gid={original.st_gid}")
    for entry in os.scandir(folder):
        if entry.name in names:
            continue
        if entry.is_symlink():
            os.symlink(os.readlink(entry.path), os.path.join(target, entry.name))
        else:
            _bind_readonly(libc, entry.path, os.path.join(target, entry.name))
    _mount(libc, "none", target, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


def check_grader_hidden(bound: list[str]) -> None:
    """Inside the worker's root: fail closed (``OSError``) if any file of the grader is
    still there, by its path or by an import name on ``sys.path``."""
    files = _grader_files if _grader_files is not None else grader_files.find(_extra_hidden)
    for path in files.paths:
        if os.path.lexists(path) and not any(_inside(tree, path) for tree in bound):
            raise OSError(f"the grader's {path} is still visible to student code")
    for folder in sys.path:
        for name in files.names:
            for candidate in (os.path.join(folder or ".", name),
                              os.path.join(folder or ".", name + ".py")):
                if os.path.lexists(candidate):
                    raise OSError(f"the grader's {candidate} is still visible to student code")


def enter_namespaces() -> list[str]:
    """In the zygote's child, before it forks the worker: new PID, mount and network
    namespaces (owned by a new user namespace when not root). Returns the steps applied;
    raises ``OSError`` when the kernel refuses (the caller reports it, never ignores it)."""
    libc = _libc()
    uid, gid = os.getuid(), os.getgid()
    if os.geteuid() == 0:
        _check(libc.unshare(CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET), "unshare namespaces")
        return ["pid-namespace", "no-network"]
    _check(libc.unshare(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET),
           "unshare user namespace (unprivileged user namespaces may be disabled)")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                       ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as handle:
            handle.write(text)
    return ["user-namespace", "pid-namespace", "no-network"]


class PidNamespaceFork:
    """As root, the zygote forks each worker straight into a new PID namespace: one fork of
    the warm (torch-sized) zygote instead of two. A fork and exit of it costs about 16 ms of
    CPU, mostly page tables; ``enter_namespaces`` in a forked child, which then forks the
    worker, pays that twice. ``unshare(CLONE_NEWPID)`` only sets the namespace of the
    zygote's next child; ``setns`` back to its own namespace right after the fork makes the
    following ``unshare`` possible again."""

    def __init__(self) -> None:
        self.libc = _libc()
        self.own = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)

    def fork(self) -> int:
        """``os.fork`` into a new PID namespace (the child is its PID 1); ``OSError`` when the
        kernel refuses, before anything was forked. ``ZygoteBroken`` when the zygote could
        not return to its own namespace: it must not fork anything more."""
        _check(self.libc.unshare(CLONE_NEWPID), "unshare pid namespace")
        try:
            pid = os.fork()
        except OSError:
            self._restore()
            raise
        if pid == 0:
            os.close(self.own)
            return 0
        self._restore()
        return pid

    def _restore(self) -> None:
        if self.libc.setns(self.own, CLONE_NEWPID) != 0:
            raise ZygoteBroken("could not return to the zygote's own PID namespace")


class ZygoteBroken(RuntimeError):
    """The zygote's own state is wrong: it must stop rather than fork another worker."""


def enter_child_namespaces() -> list[str]:
    """In a child ``PidNamespaceFork`` made (PID 1 of its namespace): new mount and network
    namespaces, for itself. Returns the steps applied, as ``enter_namespaces`` does."""
    _check(_libc().unshare(CLONE_NEWNS | CLONE_NEWNET), "unshare namespaces")
    return ["pid-namespace", "no-network"]


def enter_minimal_root(scratch: str, uid: int, file_mb: int) -> None:
    """In the worker (inside its mount namespace): chroot into a minimal root built
    under ``scratch``."""
    libc = _libc()
    _mount(libc, "none", "/", None, MS_REC | MS_PRIVATE)
    os.makedirs(scratch, exist_ok=True)
    bound = build_root(libc, scratch, uid, file_mb)
    os.chroot(scratch)
    os.chdir(WORKDIR)
    check_grader_hidden(bound)


def become(uid: int) -> None:
    """Switch to an unprivileged user and group id (irreversible)."""
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)


def drop_capabilities() -> None:
    """No capability left, in any set, and none to gain by exec: in a user namespace the
    worker keeps its own uid but must not keep the namespace's capabilities (a chroot
    could be undone with them)."""
    libc = _libc()
    PR_SET_NO_NEW_PRIVS, PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 38, 24, 47, 4
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    for capability in range(64):
        if libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            break  # past the last capability this kernel knows

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                    ("inheritable", ctypes.c_uint32)]

    header = Header(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
    data = (Data * 2)()
    _check(libc.capset(ctypes.byref(header), data), "capset")


# Refused inside the worker (EPERM): memory RLIMIT_AS does not count, and every way to
# change or leave the sandbox.
DENIED_SYSCALLS = (
    "memfd_create", "shmget", "shmat", "mount", "umount2", "pivot_root", "chroot", "unshare",
    "setns", "ptrace", "process_vm_readv", "process_vm_writev", "bpf", "perf_event_open",
    "userfaultfd", "keyctl", "add_key", "request_key", "kexec_load", "init_module",
    "finit_module", "delete_module", "open_by_handle_at", "name_to_handle_at", "fanotify_init",
    "move_mount", "open_tree", "fsopen", "fsmount", "mount_setattr", "quotactl", "acct",
    "swapon", "swapoff", "reboot", "syslog", "lookup_dcookie", "io_uring_setup",
)


def _seccomp_rules() -> object:
    """The filter's rules (libseccomp through pyseccomp)."""
    # pyseccomp (5-15 ms): the zygote preloads it; the coordinator imports this module
    import pyseccomp

    rules = pyseccomp.SyscallFilter(defaction=pyseccomp.ALLOW)
    for name in DENIED_SYSCALLS:
        try:
            rules.add_rule(pyseccomp.ERRNO(errno.EPERM), name)
        except (RuntimeError, ValueError, OSError):
            continue  # not a system call on this architecture
    # clone3 cannot be filtered by its flags: make the C library fall back to clone.
    rules.add_rule(pyseccomp.ERRNO(errno.ENOSYS), "clone3")
    rules.add_rule(pyseccomp.ERRNO(errno.EPERM), "clone",
                   pyseccomp.Arg(0, pyseccomp.MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER))
    return rules


_compiled_filter: bytes | None = None  # the BPF program, compiled once in the zygote


def compile_seccomp() -> None:
    """Compile the filter to its BPF program once, in the zygote before it forks: libseccomp
    takes about 11 ms to build it, which every worker would otherwise pay."""
    global _compiled_filter
    read, write = os.pipe()
    try:
        with os.fdopen(write, "wb") as sink:
            _seccomp_rules().export_bpf(sink)
        program = os.read(read, 1 << 16)
    finally:
        os.close(read)
    if not program or len(program) % 8:
        raise OSError("libseccomp exported no usable filter")
    _compiled_filter = program


def install_seccomp() -> None:
    """Load the filter; raises when it cannot be loaded. The program compiled by
    ``compile_seccomp`` is loaded with one ``prctl``; without it, libseccomp builds it."""
    if _compiled_filter is None:
        _seccomp_rules().load()
        return
    PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2

    class Program(ctypes.Structure):  # struct sock_fprog
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    code = ctypes.create_string_buffer(_compiled_filter, len(_compiled_filter))
    program = Program(len(_compiled_filter) // 8, ctypes.cast(code, ctypes.c_void_p))
    libc = _libc()
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    _check(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(program), 0, 0),
           "seccomp filter")


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


WORKER_STDERR_ENV = "AUTOGRADER_WORKER_STDERR"
"""A file the workers' stderr (and faulthandler's reports) is appended to, for debugging the
grader itself (docs/development.md); the zygote's environment carries it, nothing else of
the TA's."""


def _redirect_output() -> None:
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    if os.environ.get(WORKER_STDERR_ENV):  # debugging the grader itself: keep crash reports
        log = os.open(os.environ[WORKER_STDERR_ENV], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)
        os.dup2(log, 2)
        os.close(log)
        faulthandler.enable()


PYTHON_READABLE = "python-readable"
"""Not an isolation step but a condition of a fair grade: the worker's user can read the Python
installation (standard library, site-packages). Without it student code cannot import what it
needs and loses points for the grader's setup; the grader refuses to grade (never waived)."""


def python_folders() -> list[str]:
    """This interpreter's library folders. Read them before becoming the sandbox user:
    ``sysconfig`` imports its data module on first use, which that user may not be able to
    read (then the worker would die with no word instead of naming the unreadable folder)."""
    paths = sysconfig.get_paths()
    return list(dict.fromkeys(paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")))


def unreadable_python(folders: Sequence[str]) -> list[str]:
    """Those of ``folders`` (``python_folders()``) that the current user cannot read."""
    unreadable = []
    for folder in folders:
        try:
            os.stat(folder)
        except FileNotFoundError:
            continue  # not part of this installation's layout
        except OSError:
            unreadable.append(folder)  # a folder above it cannot be searched
            continue
        if not os.access(folder, os.R_OK | os.X_OK):
            unreadable.append(folder)
    return unreadable


FULL_ISOLATION = ("pid-namespace", "no-network", "minimal-root", "no-privileges", "seccomp",
                  "rlimits")
"""What every worker must have, as root or not; anything less needs the TA's explicit consent."""


def isolate(config: dict, namespaces: list[str], failures: list[str] | None = None) -> list[str]:
    """In the worker, PID 1 of the namespaces ``enter_namespaces`` made (``namespaces`` lists
    them; empty when they could not be made): apply every other step; returns what was
    applied. A step that fails is left out of the list, never silently assumed; why it
    failed is appended to ``failures`` (the trusted side shows it to the TA)."""
    failures = failures if failures is not None else []
    applied = list(namespaces)
    os.setsid()
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the zygote ignores it; students' subprocesses must not
    _redirect_output()
    limits = config["limits"]
    root = os.geteuid() == 0
    uid = config["uid"] if root else os.getuid()
    workdir = config["scratch"]
    folders = python_folders()  # while this process can still read the installation
    nproc = limits["nproc"]
    if not (root and config.get("isolate", True)):  # RLIMIT_NPROC counts the whole user
        nproc += user_process_count(os.getuid())
    if config.get("isolate", True) and "pid-namespace" in applied:
        try:
            enter_minimal_root(config["scratch"], uid, limits["file_mb"])
            applied.append("minimal-root")
            workdir = WORKDIR
        except OSError as error:
            failures.append(f"minimal root: {error}")
    os.makedirs(workdir, exist_ok=True)
    os.chdir(workdir)
    os.environ.clear()
    os.environ.update(config.get("environment", {}))
    os.environ["HOME"] = workdir
    os.environ["TMPDIR"] = "/tmp" if "minimal-root" in applied else workdir
    try:
        if root and config.get("isolate", True):
            if "minimal-root" not in applied:
                os.chown(workdir, uid, uid)
            become(uid)
            applied.append("own-user")
        drop_capabilities()
        applied.append("no-privileges")
    except OSError as error:
        failures.append(f"dropping privileges: {error}")
    unreadable = unreadable_python(folders)
    if unreadable:
        failures.append(f"the sandbox user cannot read {unreadable[0]}")
    else:
        applied.append(PYTHON_READABLE)
    cpu = int(limits["submission_timeout"]) + 5
    set_limits(limits["memory_mb"], limits["file_mb"], nproc, cpu)
    applied.append("rlimits")
    if config.get("isolate", True):
        try:
            install_seccomp()
            applied.append("seccomp")
        except Exception as error:  # noqa: BLE001 - no libseccomp, or the kernel refused: reported
            failures.append(f"seccomp filter: {error} (is libseccomp2 installed? "
                            "apt-get install libseccomp2)")
    return applied
