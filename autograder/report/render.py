"""The report page: one Jinja2 template, autoescaped, with the plots inline.

Everything from a submission (student ids, reasons, the code shown side by side)
is escaped by the template; the grader's texts (reasons, check names, the wording of a
misconception) are Markdown, escaped first and then their code spans and emphasis made
markup (``md``); only the SVG the report drew itself is inserted as it is. The page has no script and loads nothing: it opens from disk, offline.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import jinja2

from autograder.base.wording import inline_markdown, plural

if TYPE_CHECKING:
    from autograder.report.build import Report

_ENVIRONMENT = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def _percent(value: float | None, digits: int = 0) -> str:
    return "—" if value is None else f"{100 * value:.{digits}f} %"


def _signed(value: float | None) -> str:
    return "—" if value is None else f"{value:+.2f}"


_ENVIRONMENT.filters["percent"] = _percent
_ENVIRONMENT.filters["signed"] = _signed
_ENVIRONMENT.filters["plural"] = plural  # "1 pair", "2 pairs"
_ENVIRONMENT.filters["md"] = inline_markdown  # the grader's texts: code spans, *emphasis*


def render_html(report: Report) -> str:
    """The page as an HTML string."""
    return _ENVIRONMENT.get_template("report.html.j2").render(report=report)
