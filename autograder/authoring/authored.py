"""Which assignment the authoring commands author: a bundle with its source folder.

The authoring commands (``sync-solutions``, ``generate-release``) take the assignment as
every command does (``ASSIGNMENT``, ``--assignments DIR``), wherever its bundle lives: its
source notebook is in the folder its spec names (``source``: by default the bundle's own
``source/``; a packaged bundle may name its checkout's), and its release goes to the
spec's ``release`` (by default the bundle's ``release/``), never elsewhere unless the
instructor says so (``--out``). Without a name they author the one bundle there is with a
source folder; none or several, and an assignment whose source notebook is missing, is one
line (a ``SpecError``, printed by ``autograder.cli``).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path

from autograder.assignments.arguments import add_assignment_arguments
from autograder.assignments.bundle import Assignment
from autograder.assignments.registry import available, load_assignment
from autograder.spec import SPEC_FILE, SpecError

AUTO = "the one bundle there is with a source folder"
"""The ASSIGNMENT argument's default (``default_assignment``)."""


class NoSource(SpecError):
    """What to author cannot be found: one line saying what is missing and where it goes."""


def add_authoring_arguments(parser: argparse.ArgumentParser) -> None:
    """``[ASSIGNMENT]`` (default: ``AUTO``) and ``--assignments DIR``."""
    add_assignment_arguments(parser, optional=True, when_left_out=AUTO)


def authored(folders: Iterable[Path | str] = (),
             broken: list[SpecError] | None = None) -> list[str]:
    """The assignments (the package's and ``folders``') whose source folder exists, by name;
    a bundle whose spec cannot be read is not one of them (its error goes to ``broken``)."""
    folders = tuple(folders)
    names = []
    for found in available(folders):
        try:
            assignment = load_assignment(found.name, folders)
        except SpecError as error:
            if broken is not None:
                broken.append(error)
            continue
        if assignment.source_dir.is_dir():
            names.append(found.name)
    return names


def default_assignment(folders: Iterable[Path | str] = ()) -> str:
    """The one assignment there is to author; ``NoSource`` when there is not exactly one."""
    folders = tuple(folders)
    broken: list[SpecError] = []
    names = authored(folders, broken)
    if len(names) == 1:
        return names[0]
    if not names and len(broken) == 1:
        raise broken[0]  # the one bundle there is cannot be read: say why, not "none"
    if names:
        raise NoSource(f"several assignments have a source folder ({', '.join(names)}): "
                       "name the one to author")
    known = ", ".join(found.name for found in available(folders)) or "none"
    raise NoSource(f"no assignment has a source folder (the assignments are: {known}): put "
                   "its source notebook in its bundle's source/ folder, or name its folder "
                   f"with `source = \"...\"` in its {SPEC_FILE}")


def require_source(assignment: Assignment) -> Assignment:
    """``assignment`` if its source notebook exists, else ``NoSource`` saying where it goes."""
    if not assignment.source_notebook.is_file():
        missing = ("source folder " if not assignment.source_dir.is_dir() else
                   f"source notebook {assignment.notebook} in its source folder ")
        raise NoSource(f"assignment {assignment.name!r} has no {missing}"
                       f"{assignment.source_dir}: put its source notebook there, or name "
                       f"its folder with `source = \"...\"` in {assignment.root / SPEC_FILE}")
    return assignment


def authoring_assignment(args: argparse.Namespace) -> Assignment:
    """The assignment ``args`` name (or the one there is to author), with its source folder."""
    folders = tuple(getattr(args, "assignments", None) or ())
    name = args.assignment or default_assignment(folders)
    return require_source(load_assignment(name, folders))
