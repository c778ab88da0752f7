"""Diagnosis codes and what they tell a student: the engine's own and an assignment's.

A check fails with ``CheckFailure(message, diagnoses=codes)``; a code names a known
mistake, and its explanation is what the feedback shows. Most codes are an assignment's
(its bundle's ``misconceptions``: ``Assignment.misconceptions``); the engine's helpers
diagnose a few that mean the same in every assignment (``ENGINE_DIAGNOSES``: a function
that writes into its inputs). An assignment may list an engine code in its own table to
word it (or place it) differently; its table wins.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autograder.assignments import Assignment

MUTATES_INPUT = "mutates_input"
ENGINE_DIAGNOSES: dict[str, str] = {
    MUTATES_INPUT: (
        "Your function writes into an input array. Inputs must not be modified: work on a copy "
        "(e.g. np.array(x) or x.copy()) or use operations that create new arrays."
    ),
}
# What NumPy (and torch) say when code writes into an array it was given read-only.
READ_ONLY_WORDS = ("read-only", "not writeable", "readonly")


def known(assignment: Assignment) -> dict[str, str]:
    """Every code ``assignment``'s checks may report -> its explanation, in the order a
    part lists its codes: the assignment's, then the engine's it does not word itself."""
    table = dict(assignment.misconceptions)
    return {**table, **{code: text for code, text in ENGINE_DIAGNOSES.items() if code not in table}}


def explanations(codes: Iterable[str], table: Mapping[str, str]) -> tuple[str, ...]:
    """The student-facing explanation of each code ``table`` knows (others have none)."""
    return tuple(table[code] for code in codes if code in table)


def in_order(codes: Iterable[str], table: Mapping[str, str]) -> tuple[str, ...]:
    """``codes`` once each, in ``table``'s order (codes it does not know last, by name)."""
    order = {code: index for index, code in enumerate(table)}
    return tuple(sorted(set(codes), key=lambda code: (order.get(code, len(order)), code)))


def readonly_signatures(error_message: str, code: str = MUTATES_INPUT) -> list[str]:
    """``code`` if a call with read-only inputs failed because the student wrote into them.

    The worker reports the error a student's code raised by its type and message only, and
    NumPy says "read-only" in the message (a ``ValueError`` like many others): the words are
    the only sign there is."""
    text = error_message.lower()
    return [code] if any(word in text for word in READ_ONLY_WORDS) else []
