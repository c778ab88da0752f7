"""Where a course root's bundle lives: remembered in its course.json, found there again.

A command given ``--assignments DIR`` (or a cohorts file's ``assignments``) in a course
root writes the folder of the bundle it found there into the root's course.json
(``autograder.results.root_settings``: ``"bundle"`` under the assignment); a later command in
that root without ``--assignments`` finds the bundle there, so a TA names the folder once.
Folders given on the command line still come first (a new place replaces the remembered
one). A remembered folder that is gone is one line saying which and how to fix it (a
``SpecError``), never a quiet fall back to a packaged bundle of the same name. The
package's own bundles are never written down: they are found without.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from autograder.assignments.bundle import Assignment
from autograder.assignments.registry import available, load_assignment
from autograder.results import root_settings
from autograder.spec import SPEC_FILE, SpecError


class BundleGone(SpecError):
    """The bundle folder a course root remembers is no longer there (one line)."""


def recalled(root: Path, name: str) -> Path | None:
    """The bundle folder ``root`` remembers for ``name`` (None: none, or ``root`` is not a
    folder); a damaged course.json is a ``SpecError`` naming it."""
    if not root.is_dir():
        return None
    try:
        return root_settings.remembered_bundle(root, name)
    except root_settings.RootSettingsError as error:
        raise SpecError(str(error)) from None


def load_in_root(root: Path, name: str, given: Iterable[Path | str] = ()) -> Assignment:
    """The assignment ``name`` as graded in ``root``: from ``given`` folders, else the
    folder ``root`` remembers, else the package. ``BundleGone`` when the remembered folder
    is gone and no given folder holds the bundle."""
    given = tuple(given)
    remembered = recalled(root, name)
    if remembered is None or (remembered / SPEC_FILE).is_file():
        folders = ((remembered.parent,) if remembered is not None else ()) + given
        return load_assignment(name, folders)
    if any(found.name == name and found.origin != "package" for found in available(given)):
        return load_assignment(name, given)  # a new place: remembered by the caller
    raise BundleGone(
        f"course root {root} remembers the bundle of {name} at {remembered} (in "
        f"{root_settings.path(root)}), which is no longer there: pass --assignments DIR, the "
        f"folder that now holds {name}/, and the root remembers that instead")


def remember(root: Path, assignment: Assignment) -> str:
    """Write where ``assignment``'s bundle lives into ``root``'s course.json when it is not
    the package's and it changed; the line saying so ("" when nothing changed)."""
    if assignment.origin == "package" or not root.is_dir():
        return ""
    folder = assignment.root.resolve()
    try:
        changed = root_settings.remember_bundle(root, assignment.name, folder)
    except root_settings.RootSettingsError as error:
        raise SpecError(str(error)) from None
    if not changed:
        return ""
    return (f"bundle of {assignment.name}: {folder}, remembered in {root_settings.path(root)} "
            "(later commands in this root need no --assignments)")
