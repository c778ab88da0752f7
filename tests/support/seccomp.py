"""A launcher that takes namespaces away from a process tree, for tests of fail-closed
isolation: ``python -c NO_NAMESPACES <args of python>`` runs ``python <args>`` under a
seccomp filter (inherited by every child) that refuses ``unshare`` and namespace clones,
as Docker's default seccomp profile does."""

NO_NAMESPACES = """
import errno, os, sys, pyseccomp as s
rules = s.SyscallFilter(defaction=s.ALLOW)
rules.add_rule(s.ERRNO(errno.EPERM), "unshare")
rules.add_rule(s.ERRNO(errno.EPERM), "clone", s.Arg(0, s.MASKED_EQ, 0x10000000, 0x10000000))
rules.add_rule(s.ERRNO(errno.ENOSYS), "clone3")
rules.load()
os.execv(sys.executable, [sys.executable, *sys.argv[1:]])
"""


def sandbox_user_cannot_read_python() -> bool:
    """As root without namespaces the worker runs as the sandbox user in the machine's own
    file system: when this Python lies where other users cannot search (under /root), the
    grader refuses to grade even with --allow-weaker-isolation (student code could not import
    the standard library)."""
    import os
    import sysconfig
    from pathlib import Path

    stdlib = Path(sysconfig.get_paths()["stdlib"])
    return os.geteuid() == 0 and not all(
        part.stat().st_mode & 0o001 for part in (stdlib, *stdlib.parents))
