"""The feedback report a student reads: one HTML page, rendered from a template."""

from __future__ import annotations

from pathlib import Path

import jinja2

from autograder.results.result import SubmissionResult, write_atomically

_ENVIRONMENT = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=True,  # student text (messages quoting their errors) is never markup
    undefined=jinja2.StrictUndefined,
)


def render(result: SubmissionResult) -> str:
    """The report as an HTML string."""
    return _ENVIRONMENT.get_template("feedback.html.j2").render(result=result)


def save(result: SubmissionResult, path: Path) -> None:
    """Write the report atomically."""
    write_atomically(path, render(result))
