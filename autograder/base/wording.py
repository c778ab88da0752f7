"""Words the pages put around our data: counts in English and the small Markdown our texts use.

``plural`` is the one place a count meets its noun ("1 pair", "2 pairs"), for the
student's page, the instructor's report and the command line alike.

``inline_markdown`` renders the only Markdown the grader's texts are written in: code
spans (`my_function`) and emphasis (``*all*``, ``**bold**``). A text can quote a
student's own words (an exception message), so it is HTML-escaped first and only then
are those two constructs made markup; nothing else (links, images, HTML, headings) is
ever rendered. A small renderer of our own, not a Markdown library: none that lets one
switch every other rule off is installed (markdown-it-py is not; nbconvert's mistune only
through its private parser tables), and CommonMark's ``_``/``__`` emphasis would turn a
quoted ``'__len__'`` into bold "len". So only ``*`` makes emphasis, and only between word
boundaries (``a*b*c`` and ``2 * 3 * 4`` stay as written).
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

# A code span: a run of backticks, text, the same run (`x`, ``x`y``); not inside a longer run.
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
# Emphasis on already-escaped text: ** or * right after a non-word character (or the start),
# then text that neither starts nor ends with a space, then the same run before a non-word.
_STRONG = re.compile(r"(?<![\w*])\*\*(?=\S)(.+?)(?<=\S)\*\*(?![\w*])")
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])")


def plural(count: float, noun: str, plural_form: str | None = None) -> str:
    """``count`` and ``noun`` as English: "1 pair", "0 pairs", "2.5 points"."""
    word = noun if count == 1 else (plural_form or f"{noun}s")
    return f"{count:g} {word}"


def points(value: float) -> str:
    """A number of points: "1 point", "2 points", "0.5 points"."""
    return plural(value, "point")


def listing(items: list[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _emphasis(escaped: str) -> str:
    escaped = _STRONG.sub(r"<strong>\1</strong>", escaped)
    return _EMPHASIS.sub(r"<em>\1</em>", escaped)


def inline_markdown(text: str) -> Markup:
    """``text`` as safe HTML: escaped first, then code spans as ``<code>`` and ``*x*`` as
    ``<em>`` (``**x**`` as ``<strong>``) outside code spans. An unpaired backtick or
    asterisk stays a character."""
    out, last = [], 0
    for span in _CODE_SPAN.finditer(text):
        out.append(_emphasis(str(escape(text[last:span.start()]))))
        code = span.group(2)
        out.append(f"<code>{escape(code.strip() or code)}</code>")
        last = span.end()
    out.append(_emphasis(str(escape(text[last:]))))
    return Markup("".join(out))
