"""Text for Gradescope's ``output_format: "md"``: lists and code render, nothing else does.

A message can carry a fragment of the student's own text (an exception message), so every
character Markdown gives a meaning to is escaped: a student's ``[link](...)``,
``![image](...)``, heading or raw HTML shows as the characters it is. Code spans
(```my_function```, as the grader's messages write names) are kept: Markdown shows a
code span's content literally, whoever wrote it. The grader adds its own formatting: one
list item per line, and the assignment's function names as code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# CommonMark's backslash-escapable ASCII punctuation, less "." and "-" (escaped only where
# they would start a list: a "0.5" inside a sentence stays readable as it is).
_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+!|~&$])")
_CODE_SPAN = re.compile(r"`[^`\n]+`")
_LIST_START = re.compile(r"^(\s*)(\d+)([.)])|^(\s*)([-+*])(?=\s|$)")


def escape(text: str) -> str:
    """``text`` shown literally by a CommonMark renderer (one line or several)."""
    escaped = _SPECIAL.sub(r"\\\1", text)
    return "\n".join(_LIST_START.sub(_escape_list_start, line) for line in escaped.split("\n"))


def _escape_list_start(match: re.Match[str]) -> str:
    if match.group(2) is not None:  # "1." / "1)" would start an ordered list
        return f"{match.group(1)}{match.group(2)}\\{match.group(3)}"
    return f"{match.group(4)}\\{match.group(5)}"


def as_code(text: str, names: Iterable[str]) -> str:
    """Escaped ``text`` with each of ``names`` (identifiers of ours) set as inline code."""
    for name in sorted(set(names), key=len, reverse=True):
        text = re.sub(rf"(?<![\w\\`]){re.escape(escape(name))}(?![\w`])", f"`{name}`", text)
    return text


def inline(text: str, code_names: Iterable[str] = ()) -> str:
    """One line of a message: its code spans as they are, the rest escaped (with
    ``code_names`` set as code)."""
    names = tuple(code_names)
    pieces, last = [], 0
    for span in _CODE_SPAN.finditer(text):
        pieces += [as_code(escape(text[last:span.start()]), names), span.group()]
        last = span.end()
    pieces.append(as_code(escape(text[last:]), names))
    return "".join(pieces)


def bullet_list(lines: Iterable[str], code_names: Iterable[str] = ()) -> str:
    """One Markdown list item per non-empty line (see ``inline``)."""
    items = [inline(line.strip(), code_names) for line in lines if line.strip()]
    return "\n".join(f"- {item}" for item in items)
