"""The names the engine gave its files, folders and settings while it named its first
assignment: read here only, to migrate what those names left on disk.

Before the engine named no assignment, its operational names carried the first bundle's
prefix. Course roots, machines and TAs' shells still hold them: a lock file in a course root
(an older grader still running there takes it), the uid lease directory (an older grader
on the machine still leases from it), receipts files saved under the old format name, the
formgrader block in a root's ``nbgrader_config.py``, a Dask worker's scratch folders left
by a killed worker, and the debugging variable in a developer's environment. Each module
that owns one of these reads the old name from here (and writes only the new one), so this
is the one file of the engine that still spells them (``tests/test_engine_names_no_
assignment.py`` lets it, and nothing else). What each migration does:
docs/development.md, "Renamed operational names".
"""

from __future__ import annotations

ROOT_LOCK_FILE = ".h2-grading.lock"
"""A course root's lock (``autograder.batch.root_lock``): held too where it exists, so an
older grader still running in, or started on, that root is excluded."""

UID_LOCK_DIR_AS_ROOT = "/run/h2-grader-uids"
UID_LOCK_DIR_PREFIX = "h2-grader-uids-"
"""The uid lease directory (``autograder.sandbox.uids``), ``/run``'s for root, else
``<base>/<prefix><euid>``: a uid is leased in it too where it exists, so an older grader on
the same machine never shares a sandbox uid with this one."""

RECEIPTS_FORMAT = "h2-attention-receipts"
"""The ``format`` of receipts files (``autograder.batch.receipts``): still read, and
rewritten under the new name the next time the file is saved."""

FORMGRADER_BEGIN = "# >>> h2-grader: nbgrader's autograde refuses here (keep this block) >>>"
FORMGRADER_END = "# <<< h2-grader <<<"
"""The markers of the block ``autograder.views.formgrader`` writes into a course root's
``nbgrader_config.py``: an old block is replaced in place by the new one."""

DASK_SCRATCH_PREFIX = "h2-dask-"
"""A Dask worker's scratch folders (``autograder.batch.cluster.worker``): those a killed
worker left under the old name are swept like the new ones (they may hold student files)."""

WORKER_STDERR_ENV = "H2_WORKER_STDERR"
"""The debugging variable that keeps the sandbox's stderr (``autograder.sandbox.zygote``):
still honoured, with a one-line notice naming the new one."""
