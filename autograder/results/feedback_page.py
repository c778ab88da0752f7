"""The feedback report a student reads: one HTML page, rendered from a template.

The page is read by the student, so it is written for them and shows only what is
theirs (issue 15):

* messages use Markdown-style code spans (`stable_softmax`); they become ``<code>``
  elements after the text is HTML-escaped, so student text is never markup;
* a message is said once: one that is already a note above the table, or that several
  parts repeat, or that several evidence sections share, appears once;
* the header says which course, cohort, assignment and grading day the page is about;
* a check that passed on the student's own earlier results ("carried forward", see
  ``autograder.grading.carried_forward``) is shown as such, not as a problem;
* nothing of the grading machine: no absolute path (the course root, this repository, the
  TA's home, the temporary folder), and none of the TA's notes (``ta_notes``).
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import jinja2
from markupsafe import Markup, escape

from autograder.results.result import (
    CARRIED_FORWARD,
    STATUS_GRADED,
    SubmissionResult,
    is_carried_forward,
    write_atomically,
)
from autograder.results.safe_text import without_paths
from autograder.spec import REPO

_ENVIRONMENT = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=True,  # student text (messages quoting their errors) is never markup
    undefined=jinja2.StrictUndefined,
)
# A Markdown code span: a run of backticks, text, the same run (`x`, ``x`y``).
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
# An evidence finding's "<JSON pointer>: <message>" (autograder.grading.evidence_parts).
_POINTED = re.compile(r"^(/[\w/~.-]*): (.+)$", re.S)
_COURSE_ID = re.compile(
    r"""^\s*c\.CourseDirectory\.course_id\s*=\s*(?P<q>['"])(?P<id>[^'"\n]+)(?P=q)\s*$""", re.M)


def code_spans(text: str) -> Markup:
    """``text`` as HTML: escaped first, then every code span a ``<code>`` element. A backtick
    without its pair stays a (harmless) character."""
    escaped = str(escape(text))
    return Markup(_CODE_SPAN.sub(lambda m: f"<code>{m.group(2).strip() or m.group(2)}</code>",
                                 escaped))


def _course_id_in(config: Path) -> str:
    try:
        match = _COURSE_ID.search(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return ""
    return match.group("id") if match else ""


def course_id(root: Path) -> str:
    """The nbgrader course id of a course root (its ``nbgrader_config.py``, read as text,
    never run), else the repository's: ``make demo`` and plain roots use that one."""
    return _course_id_in(root / "nbgrader_config.py") or _course_id_in(REPO / "nbgrader_config.py")


def course_root(page: Path) -> Path | None:
    """The course root of ``<root>/autograded/<student>/<assignment>/feedback.html``."""
    parents = page.parents
    return parents[3] if len(parents) > 3 and parents[2].name == "autograded" else None


@dataclass
class PartView:
    """One row of the table, as the student reads it."""

    part: str
    points: float
    max_points: float
    problems: list[Markup] = field(default_factory=list)
    carried: list[Markup] = field(default_factory=list)
    explanations: list[Markup] = field(default_factory=list)
    needs_review: bool = False
    see_above: bool = False  # its message is a note above the table

    @property
    def grade(self) -> str:
        if self.points == self.max_points:
            return "full"
        return "zero" if self.points == 0 else "lost"


@dataclass
class PageView:
    """Everything the template shows, already made safe."""

    result: SubmissionResult
    course: str
    notice: Markup | None  # why the notebook could not be graded
    notes: list[Markup]
    parts: list[PartView]


def _unique(texts: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(text for text in texts if text))


def _pointed(messages: Sequence[str]) -> list[tuple[list[str], str]]:
    """Messages as (pointers, text): one entry per distinct text, with every JSON pointer
    (evidence section) it was said for, in order."""
    grouped: dict[str, list[str]] = {}
    for message in messages:
        match = _POINTED.match(message)
        pointer, text = (match.group(1), match.group(2)) if match else ("", message)
        pointers = grouped.setdefault(text, [])
        if pointer and pointer not in pointers:
            pointers.append(pointer)
    return [(pointers, text) for text, pointers in grouped.items()]


def _listing(names: Sequence[str]) -> str:
    quoted = [f"`{name}`" for name in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _problem(pointers: list[str], text: str) -> Markup:
    return code_spans(f"{_listing(pointers)}: {text}" if pointers else text)


def _carried(pointers: list[str], text: str) -> Markup:
    """A carried-forward message as a labelled note that says what it means for the points."""
    rest = text[len(CARRIED_FORWARD):] if text.startswith(CARRIED_FORWARD) else f": {text}"
    where = f" in {_listing(pointers)}" if pointers else ""
    return (Markup("<strong>Carried forward</strong>") + code_spans(where + rest)
            + Markup(' <span class="why">Graded on your own earlier results: these points '
                     "stand.</span>"))


def view(result: SubmissionResult, *, course: str = "",
         private_paths: Sequence[str] = ()) -> PageView:
    """What the page shows: every text without private paths, each message once."""
    hidden = [*private_paths, str(REPO), str(Path.home()), tempfile.gettempdir()]

    def clean(text: str) -> str:
        return without_paths(text, hidden)

    notice = clean(result.reason) if result.status != STATUS_GRADED and result.reason else ""
    messages = {part.part: _unique(clean(m) for m in part.messages) for part in result.parts}
    where: dict[str, list[str]] = {}  # a problem's text -> the parts that say it
    for part, texts in messages.items():
        for text in texts:
            if not is_carried_forward(text):
                where.setdefault(text, []).append(part)
    # A problem of one part is said in its row (a note that repeats it is left out); one that
    # several parts repeat, or that is the notice, is said once above the table.
    notes = [note for note in _unique(clean(note) for note in result.notes)
             if note != notice and len(where.get(note, ())) != 1]
    above = {notice, *notes}
    shared = {text: parts for text, parts in where.items() if len(parts) > 1 and text not in above}
    notes += [f"{_listing(parts)}: {text}" for text, parts in shared.items()]
    parts = []
    for part in result.parts:
        texts = messages[part.part]
        row = PartView(part.part, part.points, part.max_points,
                       explanations=[code_spans(clean(e)) for e in _unique(part.explanations)],
                       needs_review=part.needs_review,
                       see_above=any(text in above or text in shared for text in texts))
        kept = [text for text in texts if text not in above and text not in shared]
        for pointers, text in _pointed([t for t in kept if not is_carried_forward(t)]):
            row.problems.append(_problem(pointers, text))
        for pointers, text in _pointed([t for t in kept if is_carried_forward(t)]):
            row.carried.append(_carried(pointers, text))
        parts.append(row)
    return PageView(result, course, code_spans(notice) if notice else None,
                    [code_spans(note) for note in notes], parts)


def render(result: SubmissionResult, *, course: str = "",
           private_paths: Sequence[str] = ()) -> str:
    """The report as an HTML string (``private_paths``: more paths no text may show)."""
    page = view(result, course=course, private_paths=private_paths)
    return _ENVIRONMENT.get_template("feedback.html.j2").render(page=page, result=result)


def save(result: SubmissionResult, path: Path) -> None:
    """Write the report atomically; the course (and the paths it hides) come from where it
    is written, ``<root>/autograded/<student>/<assignment>/feedback.html``."""
    root = course_root(path.absolute())
    hidden = [str(root), str(root.resolve())] if root is not None else []
    course = course_id(root) if root is not None else course_id(REPO)
    write_atomically(path, render(result, course=course, private_paths=hidden))
