"""The grader's own files, which a worker's minimal root must not show (untrusted side).

The minimal root binds Python's installation read-only into every worker. Where the grader
is installed into that Python (``pip install .``, a Dask worker's environment, a Gradescope
image), its site-packages also hold the grader: the assignments' references, the hidden
checks, the grading logic. This module finds them, once, in the zygote before it forks: the
project's distribution is the one whose record names this very package (read from its
``.dist-info``/``.egg-info`` next to it on ``sys.path``, never from a list of names written
here), and what it installed is hidden: its top-level packages and modules, its metadata
folder, its ``.pth`` files and editable finders, its scripts. The package's own folder (and
the source tree around it, when the grader runs from a checkout on ``PYTHONPATH``) is added
whatever the records say. ``isolation.build_root`` hides what is visible in the worker's root
and refuses (fail closed) when something is still there.

``importlib.metadata`` is not used: importing it and reading every distribution costs the
zygote about 0.2 s, which a whole batch waits for; listing the few folders on ``sys.path``
costs milliseconds.
"""

from __future__ import annotations

import csv
import os
import sys
from dataclasses import dataclass

PACKAGE = __name__.partition(".")[0]  # the grader's package (this module lives inside it)
METADATA_SUFFIXES = (".dist-info", ".egg-info")
LOADER_SUFFIXES = (".pth", ".py")  # top-level files that can point Python at a source tree
LOADER_LIMIT = 1 << 16  # bytes of such a file read to find the package's path in it


@dataclass(frozen=True)
class GraderFiles:
    """What student code must not see: absolute real paths, and the import names."""

    paths: tuple[str, ...]  # files and folders to hide wherever the worker's root shows them
    names: tuple[str, ...]  # the project's top-level import names (checked on sys.path)


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


def _record(metadata: str) -> list[str]:
    """The files a distribution installed, relative to its site folder (RECORD, or an
    egg-info's installed-files.txt, which is relative to the egg-info folder)."""
    text = _read(os.path.join(metadata, "RECORD"))
    if text:
        return [row[0] for row in csv.reader(text.splitlines()) if row]
    name = os.path.basename(metadata)
    listed = _read(os.path.join(metadata, "installed-files.txt")).split("\n")
    return [os.path.normpath(os.path.join(name, line.strip())) for line in listed if line.strip()]


def _may_be_ours(metadata: str) -> bool:
    """Cheap test before a record is parsed (torch's lists some 10,000 files): a line names
    a file of the package, or the record lists a ``.pth`` file."""
    package = PACKAGE.encode() + b"/"
    for listing in ("RECORD", "installed-files.txt"):
        try:
            with open(os.path.join(metadata, listing), "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        if data.startswith(package) or b"\n" + package in data or b".pth" in data:
            return True
    return False


def _top_level(metadata: str) -> list[str]:
    try:
        with open(os.path.join(metadata, "top_level.txt"), encoding="utf-8") as handle:
            return handle.read().split()
    except OSError:
        return []


def _points_at(site: str, files: list[str], source_root: str) -> bool:
    """An editable install: a ``.pth`` file it installed, or a top-level module beside one
    (setuptools' finder), names the source tree."""
    top = [name for name in files if "/" not in name and name.endswith(LOADER_SUFFIXES)]
    if not any(name.endswith(".pth") for name in top):
        return False
    for name in top:
        try:
            with open(os.path.join(site, name), encoding="utf-8", errors="replace") as handle:
                if source_root in handle.read(LOADER_LIMIT):
                    return True
        except OSError:
            continue
    return False


def _installed(site: str, metadata: str, files: list[str]) -> tuple[set[str], set[str]]:
    """(paths, names) one distribution put in ``site``: its top-level packages, modules and
    metadata folder; every other file it lists (scripts, ``.pth``, caches) by itself."""
    paths, names = {os.path.join(site, metadata)}, set()
    for name in files:
        parts = name.split("/")
        first = parts[0]
        if first == ".." or first == "__pycache__" or len(parts) == 1:
            paths.add(os.path.normpath(os.path.join(site, name)))
            if len(parts) == 1 and name.endswith(".py"):
                names.add(name[:-3])
        elif not first.endswith(METADATA_SUFFIXES + (".data",)):
            paths.add(os.path.join(site, first))
            names.add(first)
        else:
            paths.add(os.path.join(site, first))
    return paths, names


def find(extra: tuple[str, ...] = ()) -> GraderFiles:
    """The grader's files on this machine (see the module docstring), and ``extra`` folders
    the trusted side names as private (an assignment's bundle kept outside the package)."""
    package_dirs = [os.path.realpath(p) for p in sys.modules[PACKAGE].__path__]
    source_roots = {os.path.dirname(p) for p in package_dirs}
    paths: set[str] = set(package_dirs) | {os.path.realpath(path) for path in extra}
    names: set[str] = {PACKAGE}
    shared: set[str] = set()  # folders that also hold other projects' installs
    folders = dict.fromkeys(os.path.realpath(p or ".") for p in sys.path)
    for site in folders:
        try:
            entries = os.listdir(site)
        except OSError:
            continue
        for metadata in entries:
            if not metadata.endswith(METADATA_SUFFIXES):
                continue
            full = os.path.join(site, metadata)
            top_level = _top_level(full)
            if (top_level and PACKAGE not in top_level) or (
                    not top_level and not _may_be_ours(full)):
                shared.add(site)  # another project's (the record says what it installed)
                continue
            files = _record(full)
            if not (PACKAGE in top_level
                    or any(name.split("/", 1)[0] == PACKAGE for name in files)
                    or any(_points_at(site, files, root) for root in source_roots)):
                shared.add(site)
                continue
            found, imported = _installed(site, metadata, files)
            paths |= found
            names |= imported | set(top_level)
    for name in sorted(names):
        for root in source_roots:
            for candidate in (os.path.join(root, name), os.path.join(root, name + ".py")):
                if os.path.lexists(candidate):
                    paths.add(os.path.realpath(candidate))
    # A checkout or an unpacked zip on PYTHONPATH: the whole tree is the grader's (its
    # instructor notebooks hold the answers too).
    paths |= {root for root in source_roots if root not in shared
              and not root.endswith(("site-packages", "dist-packages"))}
    existing = sorted(p for p in paths if os.path.lexists(p))
    return GraderFiles(tuple(existing), tuple(sorted(names)))
