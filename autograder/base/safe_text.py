"""What student text must be before it reaches a file, a page or a terminal.

Text that comes from a submission (an exception message, a file name, a string
in the evidence file) is made safe once, where it enters the trusted side
(``autograder.sandbox.client``, ``autograder.grading.submission``,
``autograder.evidence.loading``): valid UTF-8 (lone surrogates replaced),
no control characters (terminal escape sequences, NUL, carriage returns), a
bounded length, and nothing of the grader's world (hidden check inputs quoted
back, the grading machine's absolute paths). ``csv_cell`` is the one more step
a spreadsheet needs: a cell that starts like a formula is neutralised.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np

DEFAULT_LIMIT = 2000
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069]")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
INPUTS_HIDDEN = "(the message quoted the check's inputs, which stay hidden)"
MIN_QUOTED_NUMBERS = 3  # this many of the inputs' numbers in one message is quoting them
MAX_FRACTIONS = 6  # a message with more non-integer numbers quotes some array (maybe derived)
_FRACTION = re.compile(r"-?\d*\.\d+(?:[eE][-+]?\d+)?|-?\d+[eE][-+]?\d+")


def safe_text(text: object, limit: int = DEFAULT_LIMIT, *, multiline: bool = False) -> str:
    """``text`` as valid UTF-8 without control characters, at most ``limit`` characters.

    Newlines and tabs become spaces unless ``multiline``; other control and
    bidirectional-override characters are removed."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    text = text.encode("utf-8", "replace").decode("utf-8")  # lone surrogates -> "?"
    if not multiline:
        text = text.replace("\r\n", " ").replace("\n", " ").replace("\t", " ")
    text = _CONTROL.sub("", text)
    return text if len(text) <= limit else text[: max(limit - 3, 0)] + "..."


def shown_id(text: object) -> str:
    """A student id as a TA reads it (a terminal, summary.md): each control, bidirectional
    or invisible character written as its escape (``\\x1b``, ``\\u202e``), so an id from a
    folder or LMS file name cannot move the cursor, ring or hide itself, and two ids that
    differ only there still read differently; anything else as it is."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    text = text.encode("utf-8", "replace").decode("utf-8")  # lone surrogates -> "?"
    return _UNSHOWN.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


_UNSHOWN = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069]")


def csv_cell(text: str) -> str:
    """A cell a spreadsheet shows as text: one that starts like a formula gets a quote."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


PRIVATE_PATH = "<path>"
"""What a private path of the grading machine reads as in text that may reach a student."""


class Hidden(NamedTuple):
    """Text with the grading machine's paths hidden, and whether it named one: code that
    named one reached outside its submission, which a person must look at (a decision made
    on this flag, never on finding ``PRIVATE_PATH`` in the text afterwards)."""

    text: str
    hid: bool


def hide_paths(text: str, private: Iterable[str]) -> Hidden:
    """Every occurrence of a private absolute path (longest first) replaced by
    ``PRIVATE_PATH``, and whether there was any."""
    hid = False
    for path in sorted({p.rstrip("/") for p in private if p and len(p) > 1}, key=len, reverse=True):
        if path in text:
            text = text.replace(path, PRIVATE_PATH)
            hid = True
    return Hidden(text, hid)


def without_paths(text: str, private: Iterable[str]) -> str:
    """``text`` with every private absolute path replaced by ``PRIVATE_PATH``."""
    return hide_paths(text, private).text


def _numbers(value: Any, out: set[float], budget: list[int]) -> None:
    if budget[0] <= 0:
        return
    if type(value) is np.ndarray and value.dtype.kind in "biuf":
        flat = value.ravel()[: budget[0]]
        budget[0] -= flat.size
        out.update(float(x) for x in flat.tolist())
    elif type(value) in (int, float) and not isinstance(value, bool):
        budget[0] -= 1
        out.add(float(value))
    elif type(value) in (list, tuple):
        for item in value:
            _numbers(item, out, budget)
    elif type(value) is dict:
        for item in value.values():
            _numbers(item, out, budget)


def quotes_inputs(message: str, arguments: Sequence[Any]) -> bool:
    """Whether ``message`` quotes several numbers of ``arguments`` (a student's
    ``raise ValueError(f"{Q}")`` would show the hidden inputs in feedback), or many
    fractional numbers at all (an array computed from them, e.g. the scores a nested
    function saw). Small integers (shapes, indexes, counts) do not count: a message
    may name a row."""
    if len(_FRACTION.findall(message)) > MAX_FRACTIONS:
        return True
    inputs: set[float] = set()
    _numbers(list(arguments), inputs, [20_000])
    inputs = {x for x in inputs if not (x.is_integer() and abs(x) < 100)}
    if not inputs:
        return False
    quoted = 0
    for token in _NUMBER.findall(message):
        number = float(token)
        if number.is_integer() and abs(number) < 100:
            continue
        precision = 0.5 * 10.0 ** -_decimals(token)  # the token is some input, rounded
        if any(abs(number - x) <= precision * (1 + 1e-9) for x in inputs):
            quoted += 1
            if quoted >= MIN_QUOTED_NUMBERS:
                return True
    return False


def _decimals(token: str) -> int:
    mantissa = re.split("[eE]", token)[0]
    exponent = int(re.split("[eE]", token)[1]) if re.search("[eE]", token) else 0
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return decimals - exponent
