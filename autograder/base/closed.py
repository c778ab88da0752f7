"""A course root only its teaching team can enter, whatever the umask (issue 50).

On a shared machine (a JupyterHub: every student a Unix user of the same machine) the
course root holds the reference solutions (``source/``), every classmate's submission and
``submission_secret.txt``, every grade. So whatever the grader creates in a root is closed
to other users: folders 0700 and files 0600, or, when the course names a teaching-team
group (``team_group``), folders 2770 (setgid: new files keep the group) and files 0660, that
group owning them. ``umask_for`` is the process umask a command runs under; ``close_tree``
closes what was copied with modes of its own (``shutil.copytree`` keeps the source's;
``nbgrader collect`` keeps the exchange's 0777); ``open_to_others`` names what another user
can still read or write, for ``status`` and the commands that write the root.
"""

from __future__ import annotations

import grp
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ALONE = (0o700, 0o600)  # folder, file: the TA alone
TEAM = (0o2770, 0o660)  # folder (setgid), file: the TA and the team's group
OTHERS = 0o007  # what no other user may have
MAX_LISTED = 5  # open paths named in one line


class TeamGroupError(ValueError):
    """The course names a team group this machine does not have."""


def group_id(team_group: str | None) -> int | None:
    """The team group's id (None: no team group); ``TeamGroupError`` for an unknown one."""
    if not team_group:
        return None
    try:
        return grp.getgrnam(team_group).gr_gid
    except KeyError:
        raise TeamGroupError(
            f"team_group {team_group!r} is not a group on this machine: create it "
            f"(`groupadd {team_group}`, then `usermod -aG {team_group} <ta>` for each TA), or "
            "leave team_group out to keep the course root to yourself") from None


def umask_for(team_group: str | None) -> int:
    """The umask under which what a command creates is closed: 077 alone, 007 with a team."""
    return 0o007 if team_group else 0o077


@contextmanager
def closed_umask(team_group: str | None = None) -> Iterator[None]:
    """Run the block (and every process it starts) under ``umask_for(team_group)``."""
    previous = os.umask(umask_for(team_group))
    try:
        yield
    finally:
        os.umask(previous)


def _close(path: Path, info: os.stat_result, gid: int | None) -> None:
    folder, file = TEAM if gid is not None else ALONE
    if gid is not None and info.st_gid != gid:
        os.chown(path, -1, gid, follow_symlinks=False)
    want = folder if stat.S_ISDIR(info.st_mode) else file
    # a file keeps its owner's execute bit (a script stays runnable), nothing for others
    if not stat.S_ISDIR(info.st_mode) and info.st_mode & stat.S_IXUSR:
        want |= stat.S_IXUSR | (stat.S_IXGRP if gid is not None else 0)
    if stat.S_IMODE(info.st_mode) != want:
        os.chmod(path, want)


def close_tree(path: Path, team_group: str | None = None) -> None:
    """Close ``path`` and everything under it to other users (links are left alone: their
    mode means nothing, and they are never followed)."""
    gid = group_id(team_group)
    path = Path(path)
    if not path.exists() or path.is_symlink():
        return
    _close(path, path.lstat(), gid)
    if path.is_dir():
        for folder, dirs, files in os.walk(path):
            for name in dirs + files:
                entry = Path(folder) / name
                info = entry.lstat()
                if not stat.S_ISLNK(info.st_mode):
                    _close(entry, info, gid)


def open_to_others(root: Path, *, depth: int = 3) -> list[Path]:
    """What under ``root`` (itself, and entries up to ``depth`` folders down) another user
    can read, enter or write: empty for a closed root."""
    found: list[Path] = []
    root = Path(root)

    def visit(path: Path, level: int) -> None:
        try:
            info = path.lstat()
        except OSError:
            return
        if stat.S_ISLNK(info.st_mode):
            return
        if info.st_mode & OTHERS:
            found.append(path)
        if stat.S_ISDIR(info.st_mode) and level < depth:
            try:
                entries = sorted(path.iterdir())
            except OSError:
                return
            for entry in entries:
                visit(entry, level + 1)

    visit(root, 0)
    return found


def open_root_line(root: Path, team_group: str | None = None) -> str:
    """One line naming what of the root other users can read or write, with the fix; empty
    when the root is closed (or absent)."""
    if not Path(root).exists():
        return ""
    found = open_to_others(root)
    if not found:
        return ""
    named = ", ".join(str(path.relative_to(root)) if path != Path(root) else str(root)
                      for path in found[:MAX_LISTED])
    more = f" and {len(found) - MAX_LISTED} more" if len(found) > MAX_LISTED else ""
    fix = (f"chgrp -R {team_group} {root} && chmod -R o-rwx,g+rwX {root}" if team_group
           else f"chmod -R go-rwx {root}")
    return (f"other users of this machine can read or write the course root {root} "
            f"({named}{more}): on a shared machine students read the reference and each "
            f"other's work there; close it with `{fix}`")
