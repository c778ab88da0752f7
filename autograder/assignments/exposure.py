"""Whether a bundle's hidden material is readable by the machine's other users (issue 50).

The sandbox keeps the checks and the reference from student code while it is graded; on a
shared machine (a JupyterHub: every student a Unix user of it) the install itself must keep
them from students in their own terminals. A clone or a ``pip install`` leaves files 0644
under folders others may pass through, so the hidden checks, the reference solution and the
instructor's source notebook are one ``cat`` away. A command that runs a course (``autograde``,
``cohort release``, ``collect``, ``grade``) with a bundle whose hidden material others can
read says so once (stderr), with the fix, on a machine with
other login users (``pwd``: an account with a uid of 1000 or more, besides the TA's and
``nobody``). ``AUTOGRADER_SINGLE_USER=1`` says the machine has no other users (the check is
skipped: the test suite runs so, since one of its tests makes users); ``=0`` checks
whatever accounts the machine lists (a hub whose users are not enumerable).
"""

from __future__ import annotations

import importlib.util
import os
import pwd
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autograder.assignments.bundle import Assignment

SINGLE_USER = "AUTOGRADER_SINGLE_USER"
FIRST_LOGIN_UID = 1000  # Debian's UID_MIN
NOBODY = 65534
_said: set[Path] = set()  # bundles this process has already warned about


def readable_by_others(path: Path) -> bool:
    """Whether a user who is neither the owner nor in the file's group can read ``path``:
    the file readable by others and every folder above it passable by them."""
    try:
        if not os.stat(path).st_mode & stat.S_IROTH:
            return False
        return all(os.stat(folder).st_mode & stat.S_IXOTH
                   for folder in Path(path).resolve().parents)
    except OSError:
        return False


def _reference_files(assignment: Assignment) -> list[Path]:
    """The reference solution's files: a module of the bundle or one importable beside it."""
    name = assignment.spec.reference
    inside = [assignment.root / f"{name}.py", assignment.root / name]
    found = [path for path in inside if path.exists()]
    if not found:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.origin and spec.origin not in ("built-in", "frozen"):
            found = [Path(spec.origin).parent if spec.submodule_search_locations
                     else Path(spec.origin)]
    files = []
    for path in found:
        files += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return files


def hidden_files(assignment: Assignment) -> list[Path]:
    """What students must never read: the checks, the reference, the source notebook."""
    checks = sorted(assignment.checks_dir.rglob("*.py")) if assignment.checks_dir.is_dir() else []
    source = [assignment.source_notebook] if assignment.source_notebook.is_file() else []
    return [*checks, *_reference_files(assignment), *source]


def exposed(assignment: Assignment) -> list[Path]:
    """The bundle's hidden files other users can read (empty: none)."""
    return [path for path in hidden_files(assignment) if readable_by_others(path)]


def exposure_line(assignment: Assignment) -> str:
    """One line naming what of the bundle others can read and the folder to close; empty
    when nothing is exposed."""
    found = exposed(assignment)
    if not found:
        return ""
    folder = Path(os.path.commonpath([str(path.resolve()) for path in found]))
    if folder.is_file():
        folder = folder.parent
    kinds = []
    for kind, under in (("hidden checks", assignment.checks_dir),
                        ("source notebook", assignment.source_dir)):
        if any(path.is_relative_to(under) for path in found):
            kinds.append(kind)
    if any(path in found for path in _reference_files(assignment)):
        kinds.append("reference solution")
    return (f"other users of this machine can read assignment {assignment.name}'s "
            f"{', '.join(kinds)} ({len(found)} file(s) under {folder}): on a shared machine "
            f"students would read them in a terminal; close the grader's install with "
            f"`chmod -R o-rwx {folder}` (see docs/ta-guide.md, \"A shared machine\"), or set "
            f"{SINGLE_USER}=1 on a machine no one else uses")


def other_users() -> list[str]:
    """The machine's login accounts besides this process's user (and ``nobody``)."""
    me = os.getuid()
    return sorted(entry.pw_name for entry in pwd.getpwall()
                  if entry.pw_uid >= FIRST_LOGIN_UID and entry.pw_uid not in (me, NOBODY))


def shared_machine() -> bool:
    """Whether to check: ``AUTOGRADER_SINGLE_USER`` as set, else whether others log in here."""
    said = os.environ.get(SINGLE_USER)
    if said in ("0", "1"):
        return said == "0"
    return bool(other_users())


def warn_once(assignment: Assignment) -> None:
    """Say ``exposure_line`` on stderr, once per bundle and process, on a shared machine."""
    if assignment.root in _said or not shared_machine():
        return
    _said.add(assignment.root)
    line = exposure_line(assignment)
    if line:
        print(f"warning: {line}", file=sys.stderr, flush=True)
