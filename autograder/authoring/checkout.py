"""Authoring works from a checkout: an assignment's ``source/<name>/`` (and ``release/``,
``schemas/``) in the repository this package runs from.

The authoring commands (``sync-solutions``, ``generate-release``) take the assignment as
every command does (``ASSIGNMENT``, ``--assignments DIR``). Without one they author the
checkout's only bundle with a folder in ``source/``; none or several, and an assignment
without a source folder here, is one line (a ``SpecError``, printed by ``autograder.cli``).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path

from autograder.assignments.arguments import add_assignment_arguments
from autograder.assignments.bundle import Assignment
from autograder.assignments.registry import available, load_assignment
from autograder.batch.course import SOURCE
from autograder.spec import REPO, SpecError

AUTO = "the checkout's one bundle with a folder in source/"
"""The ASSIGNMENT argument's default: found in the checkout (``default_assignment``)."""


class NoCheckout(SpecError):
    """What to author cannot be found in this checkout: one line saying what is missing."""


def add_authoring_arguments(parser: argparse.ArgumentParser) -> None:
    """``[ASSIGNMENT]`` (default: ``AUTO``) and ``--assignments DIR``."""
    add_assignment_arguments(parser, optional=True, when_left_out=AUTO)


def source_root(repo: Path = REPO) -> Path:
    """The checkout's ``source/``: one folder per assignment an instructor authors."""
    return repo / SOURCE


def authored(folders: Iterable[Path | str] = (), repo: Path = REPO) -> list[str]:
    """The assignments with a folder in the checkout's ``source/``, by name."""
    source = source_root(repo)
    if not source.is_dir():
        return []
    bundles = {found.name for found in available(folders)}
    return sorted(path.name for path in source.iterdir() if path.is_dir() and path.name in bundles)


def default_assignment(folders: Iterable[Path | str] = (), repo: Path = REPO) -> str:
    """The one assignment this checkout authors; ``NoCheckout`` when there is not exactly one."""
    folders = tuple(folders)
    names = authored(folders, repo)
    if len(names) == 1:
        return names[0]
    if names:
        raise NoCheckout(f"{source_root(repo)} holds several assignments ({', '.join(names)}): "
                         "name the one to author")
    known = ", ".join(found.name for found in available(folders)) or "none"
    raise NoCheckout(f"no folder of {source_root(repo)} is an assignment bundle (the "
                     f"assignments are: {known}): authoring works from a checkout holding "
                     "source/<assignment>/")


def require_checkout(assignment: Assignment) -> Assignment:
    """``assignment`` if this checkout holds its source folder, else ``NoCheckout``."""
    if not assignment.source_dir.is_dir():
        raise NoCheckout(f"assignment {assignment.name!r} has no source folder "
                         f"{assignment.source_dir}: authoring (sync-solutions, "
                         "generate-release) works from a checkout holding its source/, "
                         "release/ and schemas/")
    return assignment


def authoring_assignment(args: argparse.Namespace) -> Assignment:
    """The assignment ``args`` name (or the checkout's one), with its source folder here."""
    folders = tuple(getattr(args, "assignments", None) or ())
    name = args.assignment
    if not name:
        name = default_assignment(folders)
    return require_checkout(load_assignment(name, folders))
