"""Assignments as bundles: the engine grades the assignment it is given, never one it names.

    assignment = load_assignment(name)                    # the package's, or a folder's
    [found.name for found in available()]                  # what can be graded here

See ``autograder.assignments.bundle`` for what a bundle holds and
docs/adding-an-assignment.md for how an instructor writes one.
"""

from autograder.assignments.bundle import Assignment
from autograder.assignments.registry import (
    FOLDERS_VARIABLE,
    Found,
    UnknownAssignment,
    available,
    load_assignment,
)

__all__ = ["FOLDERS_VARIABLE", "Assignment", "Found", "UnknownAssignment", "available",
           "load_assignment"]
