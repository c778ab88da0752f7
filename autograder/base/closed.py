"""A course root only its teaching team can enter, whatever the umask (issue 50).

On a shared machine (a JupyterHub: every student a Unix user of the same machine) the
course root holds the reference solutions (``source/``), every classmate's submission and
``submission_secret.txt``, every grade. So whatever the grader creates in a root is closed
to other users: folders 0700 and files 0600, or, when the course names a teaching-team
group (``team_group``), folders 2770 (setgid: new files keep the group) and files 0660, that
group owning them. ``make_root`` creates a root closed; ``open_root_line`` names a root that
others can reach (``status`` and every command that writes a root say it); ``close_tree``
closes what was copied with modes of its own (``nbgrader collect`` keeps the exchange's 0777).
"""

from __future__ import annotations

import grp
import os
import stat
from pathlib import Path

ALONE = (0o700, 0o600)  # folder, file: the TA alone
TEAM = (0o2770, 0o660)  # folder (setgid), file: the TA and the team's group
OTHERS = 0o007  # what no other user may have


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


def team_of(root: Path) -> str | None:
    """The root's teaching-team group: the group of a root made with the setgid bit (as
    ``make_root`` makes one for a course that names ``team_group``); None otherwise."""
    try:
        info = Path(root).stat()
    except OSError:
        return None
    if not info.st_mode & stat.S_ISGID:
        return None
    try:
        return grp.getgrgid(info.st_gid).gr_name
    except KeyError:
        return str(info.st_gid)


def make_root(root: Path, team_group: str | None = None) -> bool:
    """Create the course root closed (0700; 2770 owned by ``team_group``), its parents as
    usual; returns whether it was created. An existing root is left as it is (its openness
    is ``open_root_line``'s to name)."""
    gid = group_id(team_group)
    root = Path(root)
    if root.exists():
        return False
    root.parent.mkdir(parents=True, exist_ok=True)
    mode = TEAM[0] if gid is not None else ALONE[0]
    root.mkdir(mode=0o700)  # closed from its first instant; then the team's mode exactly
    if gid is not None:
        os.chown(root, -1, gid)
    os.chmod(root, mode)
    return True


def _reachable(root: Path) -> bool:
    """Whether other users can pass through every folder above ``root`` (a root under a
    0700 folder, as pytest's and a private home's, is closed whatever its own mode)."""
    for folder in Path(root).resolve().parents:
        try:
            if not folder.stat().st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
    return True


def openness(root: Path) -> str:
    """How users outside the team reach ``root``: "" when they cannot (no bits for others;
    group bits only on a team root, ``team_of``), else what they can do, e.g.
    ``read and enter (drwxr-xr-x)``. Everything in a root is reached through it, so a closed
    root keeps what it holds closed whatever those files' own modes (a feedback page stays
    0644: ``nbgrader release_feedback`` copies its mode into the exchange, where its student
    reads it). A root under a folder others cannot pass through is closed too."""
    try:
        info = Path(root).stat()
    except OSError:
        return ""
    if not _reachable(Path(root)):
        return ""
    mode = info.st_mode
    bits = mode & OTHERS
    if team_of(root) is None:
        bits |= (mode >> 3) & OTHERS
    if not bits:
        return ""
    can = [word for bit, word in ((4, "read"), (1, "enter"), (2, "write")) if bits & bit]
    return f"{' and '.join(can)} ({stat.filemode(mode)})"


def open_root_line(root: Path) -> str:
    """One line naming a course root other users can reach, with the fix; empty when the
    root is closed (or absent)."""
    how = openness(root)
    if not how:
        return ""
    team = team_of(root)
    fix = (f"chmod o-rwx {root}" if team else f"chmod go-rwx {root}")
    return (f"other users of this machine can {how} the course root {root}: on a shared "
            "machine (a JupyterHub) students would read the reference solutions, each "
            f"other's submissions and every grade there; close it with `{fix}` (or give the "
            "course a team group: see docs/ta-guide.md, \"A shared machine\")")
