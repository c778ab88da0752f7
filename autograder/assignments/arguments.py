"""The assignment argument every command shares: a bundle's name, and where else to look.

    add_assignment_arguments(parser, optional=True)   # [ASSIGNMENT] and --assignments DIR
    assignment = assignment_in_root(args, root)        # named, else the course root's one;
                                                       # its bundle folder remembered there
    course, assignment = graded_course(args)           # the same, in a root graded already
    assignment = only_assignment(args)                 # named, else the one bundle there is

An unknown name, or none where several could be meant, is one line naming the choices (a
``SpecError``, which ``autograder.cli`` prints as one line with exit 2).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from autograder.assignments import remembered
from autograder.assignments.bundle import Assignment
from autograder.assignments.registry import FOLDERS_VARIABLE, available, load_assignment
from autograder.base.course import AUTOGRADED, Course, assignments_in
from autograder.spec import SpecError

LISTED_BY = "`python -m autograder assignments` lists them"


def add_assignment_arguments(parser: argparse.ArgumentParser, *, positional: bool = True,
                             optional: bool = False, when_left_out: str = "") -> None:
    """``ASSIGNMENT`` (or ``--assignment`` when not ``positional``) and ``--assignments``;
    ``optional``: it may be left out, and ``when_left_out`` says what is meant then."""
    help_text = f"the assignment: a bundle's name ({LISTED_BY})"
    if optional:
        help_text += f"; default: {when_left_out or 'the one there is'}"
    if positional:
        parser.add_argument("assignment", metavar="ASSIGNMENT", nargs="?" if optional else None,
                            default=None, help=help_text)
    else:
        parser.add_argument("--assignment", metavar="NAME", default=None,
                            required=not optional, help=help_text)
    parser.add_argument(
        "--assignments", metavar="DIR", type=Path, action="append", default=[],
        help=f"a folder of assignment bundles besides the package's (repeatable; also "
             f"{FOLDERS_VARIABLE}, separated by ':'); a course root given --root "
             "remembers the bundle's folder")


def assignment_from(args: argparse.Namespace) -> Assignment:
    """The assignment ``args`` name, found in the package or the named folders."""
    return load_assignment(args.assignment, getattr(args, "assignments", None) or ())


def assignment_in_root(args: argparse.Namespace, root: Path, *,
                       remember: bool = True) -> Assignment:
    """The assignment ``args`` name; without one, the one assignment the course root holds
    (under submitted/<student>/, else release/). None or several is one line naming them.
    Its bundle is looked for in ``--assignments``, then where the root remembers it
    (``remembered``); ``remember``: write a folder given here into the root's course.json
    (``autograde`` does it itself, once the sandbox is starting)."""
    if not args.assignment:
        if not root.is_dir():
            raise SpecError(f"course root {root} is not a folder: pass --root <the folder "
                            "that holds submitted/ and autograded/>")
        found = assignments_in(root)
        if len(found) != 1:
            held = f"holds {', '.join(found)}" if found else "holds no assignment"
            raise SpecError(f"name the assignment: the course root {root} {held} ({LISTED_BY})")
        args.assignment = found[0]
    assignment = remembered.load_in_root(root, args.assignment,
                                         getattr(args, "assignments", None) or ())
    if remember:
        remembered.remember(root, assignment)
    return assignment


def only_assignment(args: argparse.Namespace) -> Assignment:
    """The assignment ``args`` name; without one, the one bundle there is (the package's and
    ``--assignments``'); several is one line naming them."""
    if not args.assignment:
        names = [found.name for found in available(getattr(args, "assignments", None) or ())]
        if len(names) != 1:
            raise SpecError(f"name the assignment: the assignments here are "
                            f"{', '.join(names) or 'none'}")
        args.assignment = names[0]
    return assignment_from(args)


def add_graded_root_arguments(parser: argparse.ArgumentParser) -> None:
    """``--root`` (default: the current directory) and ``--assignment``/``--assignments``,
    as ``graded_course`` reads them."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--root", type=Path, default=Path.cwd(),
                        help="graded nbgrader course root (default: the current directory)")
    add_assignment_arguments(parser, positional=False, optional=True,
                             when_left_out="the course root's one assignment")


def graded_course(args: argparse.Namespace) -> tuple[Course, Assignment]:
    """``args.root`` as a graded course root and the assignment ``args`` name there (else its
    one); a root that is no folder, or has nothing graded, is one line saying so and what to
    do (a ``SpecError``)."""
    root = args.root.resolve()
    if not root.is_dir():
        raise SpecError(f"no such folder: {root} (pass --root <the course root>)")
    if not (root / AUTOGRADED).is_dir():
        raise SpecError(f"nothing graded in {root}: run `python -m autograder autograde` "
                        "there first, or pass --root <the course root>")
    assignment = assignment_in_root(args, root)
    return Course(root, assignment.name), assignment
