"""NaN and infinities the student's functions computed, as the evidence cell records them.

Strict JSON has no NaN or infinity, so the notebook's helper (``solutions.evidence``)
writes such a number as the text "NaN", "Infinity" or "-Infinity", and the schema accepts
that text only where a function's result is expected (never in the inputs). A bare ``NaN``
literal is still not JSON: ``loading`` refuses the file, as before.

A section that holds such a number cannot be compared with the reference, so the verifier
fails it with one finding that says where, and which function computed it. It is not
charged twice: the grader carries the section forward when the student's own functions,
charged in their own parts, compute exactly these numbers (the bundle's ``provenance``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from solutions.evidence import NON_FINITE_TEXT

from ..sections import SECTIONS, TITLES
from .report import Finding

# Section -> each number the evidence cell computes there -> the student's functions behind it.
COMPUTED_BY: dict[str, dict[str, tuple[str, ...]]] = {
    name: section.computed_by for name, section in SECTIONS.items()}
WORDS = {"NaN": "NaN", "Infinity": "infinity", "-Infinity": "minus infinity"}
WHY = {
    "NaN": ("NaN comes from 0/0 or inf - inf; in attention it is usually a softmax whose sum "
            "is 0: normalised over the wrong axis (a key no query may attend to gives a column "
            "of zeros), or a row with every key masked"),
    "Infinity": ("an infinity comes from an overflow or a division by 0, e.g. exp of a large "
                 "score without subtracting the row maximum first"),
}
WHY["-Infinity"] = WHY["Infinity"]


def decode_numbers(value: object) -> object:
    """``value`` with the evidence cell's "NaN", "Infinity" and "-Infinity" turned back into
    floats (only those exact texts), so it can be compared with what a function returns."""
    if isinstance(value, str) and value in NON_FINITE_TEXT:
        return float(value)
    if isinstance(value, list):
        return [decode_numbers(item) for item in value]
    if isinstance(value, dict):
        return {key: decode_numbers(item) for key, item in value.items()}
    return value


@dataclass(frozen=True)
class NonFinite:
    """Where a section first holds a recorded NaN or infinity, and how many it holds."""

    section: str
    field: str
    pointer: str  # JSON pointer of the first one
    text: str  # "NaN", "Infinity" or "-Infinity"
    count: int  # recorded non-finite numbers in the section
    size: int  # numbers the section's functions computed

    @property
    def functions(self) -> tuple[str, ...]:
        """The student's functions behind the field."""
        return COMPUTED_BY[self.section][self.field]

    def returned(self) -> str:
        """What the student reads, naming the function, the section and the field: "your
        function returned NaN here (`f`, in the masked case's weights)"."""
        names = " or ".join(f"`{name}`" for name in self.functions)
        return (f"your function returned {WORDS[self.text]} here ({names}, in "
                f"{TITLES[self.section]}'s {self.field})")


def _numbers(value: object, pointer: str) -> Iterator[tuple[str, object]]:
    if isinstance(value, list):
        for index, item in enumerate(value):
            yield from _numbers(item, f"{pointer}/{index}")
    else:
        yield pointer, value


def _computed(data: dict, section: str) -> Iterator[tuple[str, str, object]]:
    """(field, pointer, value) of every number the section's functions computed."""
    value = data.get(section)
    entries = (list(enumerate(value)) if section == "parity" and isinstance(value, list)
               else [(None, value)])
    for index, entry in entries:
        if not isinstance(entry, dict):
            continue
        base = f"/{section}" if index is None else f"/{section}/{index}"
        for field in COMPUTED_BY[section]:
            if field in entry:
                for pointer, number in _numbers(entry[field], f"{base}/{field}"):
                    yield field, pointer, number


def locate(data: dict, section: str) -> NonFinite | None:
    """The section's recorded NaN or infinities, or None when it holds none."""
    found: list[tuple[str, str, str]] = []
    size = 0
    for field, pointer, number in _computed(data, section):
        size += 1
        if isinstance(number, str) and number in NON_FINITE_TEXT:
            found.append((field, pointer, number))
    if not found:
        return None
    field, pointer, text = found[0]
    return NonFinite(section, field, pointer, text, len(found), size)


def non_finite_findings(data: dict, skip: set[str]) -> list[Finding]:
    """One finding per section not in ``skip`` that records a NaN or an infinity: the
    section scores 0 in the verifier (its numbers cannot be checked), said in words about
    the student's function, never a serialiser's."""
    findings = []
    for section in COMPUTED_BY:
        where = None if section in skip else locate(data, section)
        if where is None:
            continue
        word = WORDS[where.text]
        findings.append(Finding(
            code="non_finite_value", part="evidence", layer="consistency",
            pointer=where.pointer, check=section,
            message=(
                f"{where.returned()}; the evidence cell records it as \"{where.text}\" in place "
                f"of the number ({where.count} of the {where.size} numbers of this section). "
                f"{WHY[where.text][0].upper()}{WHY[where.text][1:]}. A section with {word} "
                "cannot be checked against the reference, so it scores 0 unless the grader "
                "confirms that your own functions compute exactly these numbers and lost points "
                "for that bug in their own parts: then it keeps its points (carried forward) and "
                "the bug costs points once, there"
            ),
        ))
    return findings
