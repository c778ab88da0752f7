"""Safe loading of an untrusted evidence file: bytes in, a dict or findings out.

A student file may be anything: huge, binary, a symlink to the grader's secrets,
nested deeply enough to crash the JSON parser, or written with Python's
non-standard ``NaN``. Every such case becomes a finding with a message that
says where and what; nothing here raises, so one file never stops a batch.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from dataclasses import dataclass, field

from solutions.evidence import EVIDENCE_FILENAME

from .report import Finding

MAX_BYTES = 1 << 20  # 1 MiB: a correct file is about 5 KiB (refused unread if larger)
MAX_DEPTH = 16  # the evidence format nests 4 levels deep
MAX_NUMBER_CHARS = 64  # longer numeric literals are not numbers a notebook writes
MAX_LISTED = 20  # findings of one kind reported before summarising

# A JSON string (possibly unterminated: the closing quote is optional, so a match never
# fails and the scan stays linear) or a bracket. Possessive quantifiers: no backtracking.
_DEPTH_TOKENS = re.compile(r'"(?:[^"\\]++|\\.)*+"?|[\[\]{}]', re.DOTALL)

_HINTS = {
    "Expecting property name enclosed in double quotes": (
        "keys must be in double quotes and there must be no comma before a closing brace"
    ),
    "Expecting value": (
        "a value is missing or is not JSON; JSON has no comments, single quotes, "
        "trailing commas or None/True/False (write null/true/false)"
    ),
    "Unterminated string starting at": "a string is missing its closing double quote",
    "Invalid control character at": "a string contains a raw line break or control character",
}


@dataclass
class Loaded:
    """What loading produced: ``data`` when the file is a readable JSON object."""

    status: str  # ok | unreadable | missing
    data: dict | None = None
    findings: list[Finding] = field(default_factory=list)


def _problem(code: str, message: str, pointer: str = "") -> Finding:
    return Finding(code=code, part="evidence", layer="file", pointer=pointer, message=message)


def _fail(code: str, message: str, status: str = "unreadable") -> Loaded:
    return Loaded(status=status, findings=[_problem(code, message)])


def _where(text: str, index: int) -> str:
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return f"line {line}, column {column}"


def read_file_bytes(path: str | os.PathLike[str]) -> tuple[bytes | None, Loaded | None]:
    """Read at most ``MAX_BYTES + 1`` bytes of a regular, non-symlink file.

    Returns ``(raw, None)`` or ``(None, failure)``. The size is checked from
    ``lstat`` first, so a 100 MB file is refused without reading it. Messages name
    the file, never its absolute path (they reach students).
    """
    name = os.fspath(path)
    shown = os.path.basename(name) or name
    try:
        info = os.lstat(name)
    except FileNotFoundError:
        return None, _fail(
            "missing",
            f"no file at {shown!r}: save the evidence from the notebook's evidence cell "
            f"(it writes {EVIDENCE_FILENAME} next to the notebook) and submit it",
            status="missing",
        )
    except OSError as error:
        return None, _fail("cannot_open", f"cannot look at {shown!r}: {error.strerror or error}")
    if stat.S_ISLNK(info.st_mode):
        return None, _fail(
            "symlink",
            f"{shown!r} is a symbolic link; submit the evidence file itself, not a link to it",
        )
    if not stat.S_ISREG(info.st_mode):
        kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
        return None, _fail("not_a_file", f"{shown!r} is {kind}; the evidence must be a JSON file")
    if info.st_size > MAX_BYTES:
        return None, _fail("too_large", _too_large_message(info.st_size))
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        descriptor = os.open(name, flags)
    except OSError as error:
        return None, _fail("cannot_open", f"cannot open {shown!r}: {error.strerror or error}")
    with os.fdopen(descriptor, "rb") as handle:
        # Re-check on the open file: the path may have been swapped since lstat.
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return None, _fail("not_a_file", f"{shown!r} is not a regular file")
        try:
            raw = handle.read(MAX_BYTES + 1)
        except OSError as error:
            return None, _fail("cannot_open", f"cannot read {shown!r}: {error.strerror or error}")
    return raw, None


def _too_large_message(size: int | None) -> str:
    found = f" ({size:,} bytes)" if size is not None else ""
    return (
        f"the file is larger than {MAX_BYTES:,} bytes (1 MiB){found}; a correct evidence "
        "file is a few kilobytes: re-run the evidence cell instead of editing the file"
    )


class _DuplicateKeys(dict):
    """A parsed object that had repeated keys (kept so the walk can say where)."""

    duplicates: list[str]


class _BadNumber:
    """Stands in for NaN, Infinity, or a number too large for a float."""

    def __init__(self, literal: str, too_long: bool = False) -> None:
        self.literal = literal
        self.too_long = too_long


def _object(pairs: list[tuple[str, object]]) -> dict:
    result: dict = {}
    repeated = []
    for key, value in pairs:
        if key in result and key not in repeated:
            repeated.append(key)
        result[key] = value
    if repeated:
        result = _DuplicateKeys(result)
        result.duplicates = repeated
    return result


def _float(literal: str) -> float | _BadNumber:
    if len(literal) > MAX_NUMBER_CHARS:
        return _BadNumber(literal[:20] + "...", too_long=True)
    value = float(literal)
    return value if math.isfinite(value) else _BadNumber(literal)


def _int(literal: str) -> int | _BadNumber:
    if len(literal) > MAX_NUMBER_CHARS:
        return _BadNumber(literal[:20] + "...", too_long=True)
    return int(literal)


def _pointer(parts: list[str | int]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def _has_surrogate(text: str) -> bool:
    return any("\ud800" <= char <= "\udfff" for char in text)


def _walk(value: object, path: list[str | int], out: list[Finding]) -> None:
    """Collect every duplicate key, non-finite number and broken string, with its pointer."""
    if isinstance(value, _BadNumber) and value.too_long:
        out.append(_problem(
            "number_too_long",
            f"the number {value.literal} has more than {MAX_NUMBER_CHARS} characters; "
            "write numbers as the evidence cell does",
            _pointer(path),
        ))
    elif isinstance(value, _BadNumber):
        out.append(_problem(
            "non_finite_number",
            f"{value.literal} is not a finite JSON number; JSON has no NaN or Infinity "
            "(Python's json.dump writes them unless allow_nan=False). A NaN here usually "
            "means a bug, e.g. a fully masked row or a softmax that overflowed; the notebook's "
            "evidence cell records one your function returned as the text \"NaN\" (or "
            "\"Infinity\", \"-Infinity\"): save the file with that cell, do not write it yourself",
            _pointer(path),
        ))
    elif isinstance(value, str):
        if _has_surrogate(value):
            out.append(_problem(
                "invalid_string", "this text contains a broken \\ud800-style escape", _pointer(path)
            ))
    elif isinstance(value, dict):
        for key in getattr(value, "duplicates", []):
            out.append(_problem(
                "duplicate_key",
                f"the key {key!r} appears more than once in this object; a reader would "
                "silently keep only one of them",
                _pointer([*path, key]),
            ))
        for key, item in value.items():
            if _has_surrogate(key):
                out.append(_problem(
                    "invalid_string", "a key contains a broken \\ud800-style escape", _pointer(path)
                ))
            _walk(item, [*path, key], out)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _walk(item, [*path, index], out)


def _too_deep(text: str) -> int | None:
    """Index of the first bracket nested deeper than MAX_DEPTH, found without parsing."""
    depth = 0
    for match in _DEPTH_TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return match.start()
        elif token in "]}":
            depth = max(depth - 1, 0)
    return None


def parse_evidence_bytes(raw: bytes) -> Loaded:
    """Decode strict UTF-8, bound the nesting, parse strict JSON; top level must be an object."""
    if len(raw) > MAX_BYTES:
        return _fail("too_large", _too_large_message(None))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        prefix = raw[: error.start].decode("utf-8", errors="replace")
        return _fail(
            "not_utf8",
            f"byte 0x{raw[error.start]:02x} at {_where(prefix, len(prefix))} is not valid "
            "UTF-8; the evidence must be a UTF-8 text file (re-run the evidence cell rather "
            "than saving it from another program)",
        )
    text = text.removeprefix("\ufeff")  # a BOM is harmless; some editors add one
    if not text.strip():
        return _fail("empty", "the file is empty; re-run the notebook's evidence cell to write it")
    deep = _too_deep(text)
    if deep is not None:
        return _fail(
            "too_deep",
            f"lists or objects are nested more than {MAX_DEPTH} levels deep at "
            f"{_where(text, deep)}; the evidence format needs only 4",
        )
    try:
        data = json.loads(
            text, object_pairs_hook=_object, parse_float=_float, parse_int=_int,
            parse_constant=_BadNumber,
        )
    except json.JSONDecodeError as error:
        where = _where(text, error.pos)
        if error.msg == "Extra data":
            return _fail(
                "trailing_data",
                f"the JSON value ends before {where} but more text follows; the file must "
                "hold exactly one JSON object and nothing after it",
            )
        hint = next((h for start, h in _HINTS.items() if error.msg.startswith(start)), "")
        what = error.msg.removesuffix(" at").removesuffix(" starting")
        return _fail(
            "invalid_json",
            f"not valid JSON at {where}: {what}" + (f". Hint: {hint}" if hint else ""),
        )
    except (ValueError, RecursionError) as error:  # defensive: the checks above should catch these
        return _fail("invalid_json", f"not valid JSON: {type(error).__name__}")
    problems: list[Finding] = []
    _walk(data, [], problems)
    if problems:
        return Loaded(status="unreadable", findings=_summarise(problems))
    if not isinstance(data, dict):
        kind = {list: "a list", str: "a string", bool: "true/false", type(None): "null"}.get(
            type(data), "a number"
        )
        return _fail(
            "not_object",
            f"the file holds {kind}, but the evidence must be one JSON object "
            '({"schema_version": ..., "student_id": ..., ...})',
        )
    return Loaded(status="ok", data=data)


def _summarise(findings: list[Finding]) -> list[Finding]:
    if len(findings) <= MAX_LISTED:
        return findings
    rest = len(findings) - MAX_LISTED
    return [
        *findings[:MAX_LISTED],
        _problem("more_problems", f"... and {rest} more problems of the same kinds"),
    ]


def load_evidence(source: str | os.PathLike[str] | bytes) -> Loaded:
    """Load an evidence file (a path, or the raw bytes) safely; never raises."""
    if isinstance(source, bytes | bytearray):
        return parse_evidence_bytes(bytes(source))
    raw, failure = read_file_bytes(source)
    if failure is not None:
        return failure
    return parse_evidence_bytes(raw)
