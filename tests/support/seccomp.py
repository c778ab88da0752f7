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
