"""A submission folder as plain data, and back: what a Dask task carries to its worker.

Workers share no filesystem with the coordinator and never see the course root, so the
coordinator reads ``submitted/<student>/<assignment>/`` and sends its entries: regular
files with their bytes, folders, and stand-ins for what the grader refuses unread
(symbolic links, FIFOs and other special files), so that the worker's copy grades
exactly as the original would. The bytes are bounded (``MAX_TASK_BYTES``): a file that
does not fit is sent as its size only and becomes a sparse file of that size on the
worker; the grader reads no file that large (a notebook over 50 MiB, or an evidence file
over its plugin's ``max_bytes``, is refused by its size), and the coordinator then takes
the submission's content hash from the original folder.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from autograder.grading.submission import MAX_NOTEBOOK_BYTES

if TYPE_CHECKING:
    from autograder.assignments import Assignment

MAX_TASK_BYTES = 64 * 2**20
"""File bytes one task carries at most (what a correct submission needs is ~100 KB)."""

FILE, FOLDER, LINK, SPECIAL, SIZE_ONLY = "file", "dir", "link", "special", "size"
Entry = tuple[str, str, bytes | int | None]
"""(path relative to the submission folder, kind, bytes for a file / size for SIZE_ONLY)."""


def _priority(relative: str, size: int, notebook: str, evidence: str) -> tuple[int, int]:
    """What the grader reads goes first: the assignment's ``notebook``, its ``evidence``
    file ("" for an assignment without one), other notebooks."""
    name = PurePosixPath(relative)
    if relative == notebook:
        rank = 0
    elif evidence and relative == evidence:
        rank = 1
    elif name.suffix == ".ipynb" and len(name.parts) == 1:
        rank = 2
    else:
        rank = 3
    return rank, size


def pack(folder: Path, assignment: Assignment,
         budget: int = MAX_TASK_BYTES) -> tuple[list[Entry], bool]:
    """The entries of ``folder`` (a submission of ``assignment``) and whether some file was
    sent as its size only.

    A folder that is a symbolic link (or whose student folder is) gets a first entry ``.``
    of kind LINK, then what the link shows: the grader refuses its notebook, and reads its
    evidence file through the link, on the worker as it would here."""
    entries: list[Entry] = []
    if folder.is_symlink() or folder.parent.is_symlink():
        entries.append((".", LINK, None))
    if not folder.is_dir():
        return entries, False
    files: list[tuple[str, int]] = []
    for path in sorted(folder.rglob("*")):  # rglob does not descend into linked folders
        relative = path.relative_to(folder).as_posix()
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            entries.append((relative, LINK, None))
        elif stat.S_ISDIR(info.st_mode):
            entries.append((relative, FOLDER, None))
        elif stat.S_ISREG(info.st_mode):
            files.append((relative, info.st_size))
        else:
            entries.append((relative, SPECIAL, None))
    truncated = False
    plugin = assignment.evidence  # None: the assignment has no evidence file
    names = (assignment.notebook, plugin.file_name if plugin is not None else "")
    for relative, size in sorted(files, key=lambda item: _priority(*item, *names)):
        rank = _priority(relative, size, *names)[0]
        refused_by_size = ((rank in (0, 2) and size > MAX_NOTEBOOK_BYTES)
                           or (rank == 1 and size > plugin.max_bytes))
        if not refused_by_size and size <= budget:
            data = (folder / relative).read_bytes()
            budget -= len(data)
            entries.append((relative, FILE, data))
        else:
            entries.append((relative, SIZE_ONLY, size))
            truncated = True
    return entries, truncated


def _inside(base: Path, relative: str) -> Path:
    parts = PurePosixPath(relative).parts
    if not parts or relative.startswith("/") or any(p in ("..", "") for p in parts):
        raise ValueError(f"not a relative path inside a submission: {relative!r}")
    return base.joinpath(*parts)


def unpack(entries: list[Entry], folder: Path) -> None:
    """Recreate ``entries`` at ``folder`` (which must not exist; its parent must)."""
    target = folder
    if entries[:1] == [(".", LINK, None)]:  # the folder was a link: it is one here too
        entries = entries[1:]
        target = folder.parent / f".linked-{folder.name}"
        os.symlink(target.name, folder)
    target.mkdir()
    for relative, kind, data in sorted(entries, key=lambda entry: entry[0]):
        path = _inside(target, relative)
        path.parent.mkdir(parents=True, exist_ok=True)
        if kind == FOLDER:
            path.mkdir(exist_ok=True)
        elif kind == FILE and isinstance(data, bytes):
            path.write_bytes(data)
        elif kind == SIZE_ONLY and isinstance(data, int):
            with path.open("wb") as handle:
                handle.truncate(data)
        elif kind == LINK:
            os.symlink("/nonexistent-link-target", path)  # never followed by the grader
        elif kind == SPECIAL:
            os.mkfifo(path)  # refused unread, as the original special file
        else:
            raise ValueError(f"a submission entry of unknown kind {kind!r}")
