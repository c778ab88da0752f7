"""Finding assignment bundles by name: the package's own, then folders the instructor names.

A folder named with ``--assignments DIR`` (or in ``AUTOGRADER_ASSIGNMENTS``, separated as
``PATH`` is) holds bundles as subfolders, each with an ``assignment.toml``. A folder bundle
of the same name as a packaged one wins: an instructor can change a copy without
reinstalling. An unknown name is one line naming the assignments there are.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from autograder.assignments.bundle import Assignment, open_bundle
from autograder.spec import SPEC_FILE, SpecError

PACKAGED = Path(__file__).resolve().parents[1] / "bundles"
PACKAGED_IMPORT = "autograder.bundles"
FOLDERS_VARIABLE = "AUTOGRADER_ASSIGNMENTS"


class UnknownAssignment(SpecError):
    """No bundle has that name: one line naming the ones there are (a usage mistake)."""


@dataclass(frozen=True)
class Found:
    """A bundle seen on the search path: its name, folder and where it came from."""

    name: str
    root: Path
    origin: str  # "package" or the folder it is in


def search_folders(extra: Iterable[Path | str] = ()) -> list[Path]:
    """The instructor's folders: those given, then ``AUTOGRADER_ASSIGNMENTS``'s."""
    named = [Path(folder) for folder in extra]
    named += [Path(part) for part in os.environ.get(FOLDERS_VARIABLE, "").split(os.pathsep) if part]
    return [folder.expanduser().resolve() for folder in named]


def available(folders: Iterable[Path | str] = ()) -> list[Found]:
    """Every bundle that can be graded, by name (a folder's hides the package's)."""
    found: dict[str, Found] = {}
    for root in sorted(PACKAGED.iterdir()):
        if (root / SPEC_FILE).is_file():
            found[root.name] = Found(root.name, root, "package")
    for folder in search_folders(folders):
        if not folder.is_dir():
            raise SpecError(f"the assignments folder {folder} does not exist")
        for root in sorted(folder.iterdir()):
            if (root / SPEC_FILE).is_file():
                found[root.name] = Found(root.name, root, str(folder))
    return sorted(found.values(), key=lambda item: item.name)


def load_assignment(name: str, folders: Iterable[Path | str] = ()) -> Assignment:
    """The assignment called ``name`` (its evidence plugin is checked on first use);
    ``UnknownAssignment`` (one line) if there is none, ``SpecError`` for a broken bundle."""
    return _load(name, tuple(search_folders(folders)))


@cache
def _load(name: str, folders: tuple[Path, ...]) -> Assignment:
    for item in reversed(available(folders)):
        if item.name == name:
            package = f"{PACKAGED_IMPORT}.{name}" if item.origin == "package" else None
            # The evidence plugin is checked when first used (``Assignment.evidence``), not
            # here: loading a bundle must not import its hooks (NumPy...) before a command
            # launches the sandbox (tests/batch/test_early_sandbox.py).
            return open_bundle(item.root, origin=item.origin, package=package)
    names = ", ".join(item.name for item in available(folders)) or "none"
    raise UnknownAssignment(f"no assignment called {name!r}: the assignments here are {names} "
                            f"(add a folder of bundles with --assignments DIR)")
