"""The feedback report a student reads: one HTML page, rendered from a template.

The page is read by the student, so it is written for them and shows only what is
theirs (issues 15 and 26):

* per part, the likely cause first (the diagnosis of a known misconception), then the
  failed checks with the points each cost; a reason several checks share is said once,
  with the checks under it and their combined points (reasons that differ only in their
  numbers, "expected 0.09, got 0.97" and "expected 0.27, got 0.74", count as one, the
  first shown as the example);
* the evidence part lists its sections with what each is worth (the spec's
  ``[parts.sections]``), and a paragraph several sections (or checks) repeat is said once;
* the grader's texts are Markdown (code spans, ``*emphasis*``): rendered, never shown raw,
  and always escaped first (``autograder.base.wording.inline_markdown``), since they
  can quote the student's own text;
* "carried forward" is said only where points were carried: on the checks (or evidence
  sections) that passed on the student's own earlier results, with the points concerned;
* a notebook that could not be graded shows no total (it has none), only why;
* a message is said once: one that is already a note above the table, or that several
  parts repeat, or that several evidence sections share, appears once; a note about one
  part is said in that part's row;
* the header says which course, cohort, assignment and grading day the page is about;
* nothing of the grading machine: no absolute path (the course root, this repository, the
  TA's home, the temporary folder), and none of the TA's notes (``ta_notes``).
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import jinja2
from markupsafe import Markup

from autograder.base.course import AUTOGRADED, course_root_of
from autograder.base.safe_text import without_paths
from autograder.base.wording import inline_markdown, listing, plural, points
from autograder.results import root_settings
from autograder.results.message import Message
from autograder.results.result import (
    STATUS_GRADED,
    SubmissionResult,
    TestResult,
    write_atomically,
)
from autograder.results.version_note import sentence
from autograder.spec import REPO

if TYPE_CHECKING:
    from autograder.assignments import Assignment

_ENVIRONMENT = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=True,  # student text (messages quoting their errors) is never markup
    undefined=jinja2.StrictUndefined,
)
_ENVIRONMENT.filters["points"] = points
_ENVIRONMENT.filters["plural"] = plural
_COURSE_ID = re.compile(
    r"""^\s*c\.CourseDirectory\.course_id\s*=\s*(?P<q>['"])(?P<id>[^'"\n]+)(?P=q)\s*$""", re.M)
# A number in a message (a position, an expected or a computed value).
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
# Where one sentence ends and the next begins.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(`])")


def code_spans(text: str) -> Markup:
    """``text`` as HTML, its Markdown rendered (see ``wording.inline_markdown``)."""
    return inline_markdown(text)


def _course_id_in(config: Path) -> str:
    try:
        match = _COURSE_ID.search(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return ""
    return match.group("id") if match else ""


def course_id(root: Path) -> str:
    """The nbgrader course id of a course root (its ``nbgrader_config.py``, read as text,
    never run; a cohort's root has one, from cohorts.toml), "" without one."""
    return _course_id_in(root / "nbgrader_config.py")


def course_name(root: Path, assignment: str) -> str:
    """The course a root's pages name: the name a TA gave it (``autograde --course-name``,
    remembered in the root's course.json), else its nbgrader course id (``course_id``), else
    none ("": the page says "—"). Never the grader's own project or checkout, which name no
    course, nor the root folder's name: a page does not depend on where its root lives (a
    copied or moved root renders the same pages)."""
    try:
        remembered = root_settings.load(root, assignment).course
    except root_settings.RootSettingsError:
        remembered = None  # the grading command that read it has said what is wrong
    return remembered or course_id(root)


def course_root(page: Path) -> Path | None:
    """The course root of ``<root>/autograded/<student>/<assignment>/feedback.html``."""
    return course_root_of(page.parent, (AUTOGRADED,))


@dataclass
class CheckLine:
    """One hidden check that failed, and the points it cost."""

    name: Markup
    lost: float


@dataclass
class Failure:
    """One reason, said once, with every check that failed for it."""

    text: Markup
    checks: list[CheckLine] = field(default_factory=list)
    similar: bool = False  # the checks' texts differ in their numbers; the first is shown

    @property
    def lost(self) -> float:
        return sum(check.lost for check in self.checks)


@dataclass
class SectionView:
    """One section of the evidence file: what it is worth and what was found in it."""

    name: str
    worth: float
    earned: float | None  # None: the part's points do not say how this section fared
    problems: list[Markup] = field(default_factory=list)
    failed: bool = False  # something was found (its text may be the part's shared paragraph)
    carried: bool = False


@dataclass
class PartView:
    """One row of the table, as the student reads it."""

    part: str
    points: float
    max_points: float
    graded: bool = True  # False: the notebook could not be graded, so this part was not
    causes: list[Markup] = field(default_factory=list)  # "Likely cause", shown first
    failures: list[Failure] = field(default_factory=list)  # failed checks, by reason
    problems: list[Markup] = field(default_factory=list)  # the part's other messages
    sections: list[SectionView] = field(default_factory=list)  # the evidence part's
    shared: Markup | None = None  # a paragraph several of the above repeat, said once
    carried: list[Markup] = field(default_factory=list)
    carried_points: float = 0.0
    notes: list[Markup] = field(default_factory=list)  # what the run noticed about this part
    needs_review: bool = False
    see_above: bool = False  # its message is a note above the table
    decided: Markup | None = None  # a person's decision on this part (results.decisions)
    person_score: bool = False  # the decision stands: the points are a person's
    machine_points: float = 0.0  # what the machine gave, when a person's score replaced it

    @property
    def grade(self) -> str:
        if not self.graded:
            return "ungraded"
        if self.points == self.max_points:
            return "full"
        return "zero" if self.points == 0 else "lost"

    @property
    def explained(self) -> bool:
        """Whether the row says something about a problem."""
        return bool(self.failures or self.problems or self.notes or self.shared
                    or any(s.failed for s in self.sections))


@dataclass
class PageView:
    """Everything the template shows, already made safe."""

    result: SubmissionResult
    course: str
    notice: Markup | None  # why the notebook could not be graded
    notes: list[Markup]
    parts: list[PartView]

    @property
    def has_total(self) -> bool:
        """Only a graded notebook has a total: an ungradable one (or a grader error) shows
        none rather than the points of the few parts graded without it."""
        return self.result.status == STATUS_GRADED


def _unique(texts: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(text for text in texts if text))


def _pointed(messages: Sequence[Message]) -> list[tuple[list[str], str]]:
    """Messages as (pointers, text): one entry per distinct text, with every JSON pointer
    (evidence section) it was said for, in order."""
    grouped: dict[str, list[str]] = {}
    for message in messages:
        pointers = grouped.setdefault(message.text, [])
        if message.pointer and message.pointer not in pointers:
            pointers.append(message.pointer)
    return [(pointers, text) for text, pointers in grouped.items()]


def _code_listing(names: Sequence[str]) -> str:
    return listing([f"`{name}`" for name in names])


def _problem(pointers: list[str], text: str) -> Markup:
    return code_spans(f"{_code_listing(pointers)}: {text}" if pointers else text)


def _carried_text(message: Message, where: str = "") -> Markup:
    """A carried-forward message as a labelled note ("Carried forward from `f`: ...")."""
    blocks = message.label()[len("carried forward"):]
    return Markup("<strong>Carried forward</strong>") + code_spans(
        f"{blocks}{where}: {message.text}")


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text.strip()) if s]


def shared_paragraph(texts: Sequence[str]) -> tuple[list[str], str]:
    """(each text without the sentences all of them repeat, those sentences once). Texts
    that share nothing, or would be left empty, come back as they are with ``""``."""
    if len(texts) < 2:
        return list(texts), ""
    if len(set(texts)) == 1:
        return ["" for _ in texts], texts[0]
    split = [_sentences(text) for text in texts]
    common = [s for s in split[0] if all(s in other for other in split[1:])]
    rests = [[s for s in sentences if s not in common] for sentences in split]
    if not common or any(not rest for rest in rests):
        return list(texts), ""
    return [" ".join(rest) for rest in rests], " ".join(common)


def _alike(first: str, second: str, words: int = 3) -> bool:
    """Whether two texts differ only in one run of at most ``words`` words (a name)."""
    a, b = first.split(), second.split()
    if a == b:
        return False
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    return (len(a) - start - end <= words and len(b) - start - end <= words
            and start + end >= 2 * words)


def _numbers_masked(text: str) -> str:
    return _NUMBER.sub("#", text)


def _failures(failed: Sequence[tuple[TestResult, str]]) -> list[Failure]:
    """Failed checks grouped by reason; reasons that differ only in their numbers are one
    group, shown with the first check's text."""
    groups: dict[str, tuple[str, list[TestResult], set[str]]] = {}
    for test, reason in failed:
        key = _numbers_masked(reason)
        first, tests, texts = groups.setdefault(key, (reason, [], set()))
        tests.append(test)
        texts.add(reason)
    return [Failure(code_spans(first or "This check failed."),
                    [CheckLine(code_spans(t.name), round(t.max_score - t.score, 6))
                     for t in tests],
                    similar=len(texts) > 1)
            for first, tests, texts in groups.values()]


def _check_rows(row: PartView, tests: Sequence[TestResult],
                clean: Callable[[Message], Message]) -> list[str]:
    """Fill ``row`` from its checks; returns every text the row shows."""
    failed, shown = [], []
    carried: dict[str, tuple[Message, float]] = {}
    for test in tests:
        if test.status == "passed" and test.score >= test.max_score:
            note = test.carried
            if note is not None:
                note = clean(note)
                kept = carried.get(note.flat(), (note, 0.0))[1]
                carried[note.flat()] = (note, kept + test.score)
            continue
        lines = [line.strip() for m in test.messages if not m.carried
                 for line in clean(m).flat().split("\n")]
        reason = " ".join(line for line in lines if line)
        failed.append((test, reason))
        shown.append(reason)
    row.failures = _failures(failed)
    texts = [f.text for f in row.failures]
    rests, common = shared_paragraph([str(t) for t in texts])
    if common and all(rests):  # already HTML: the sentences of rendered texts
        for failure, rest in zip(row.failures, rests, strict=True):
            failure.text = Markup(rest)
        row.shared = Markup("For each of these: ") + Markup(common)
    for text, (note, kept) in carried.items():
        row.carried.append(_carried_text(note))
        row.carried_points += kept
        shown.append(text)
    return shown


def _section_rows(row: PartView, worth: dict[str, int],
                  messages: Sequence[Message]) -> list[str]:
    """Fill the ``row`` of a part with sections (the evidence file's): each section with its
    worth, its problems and carried-forward note; messages of no section are the part's."""
    sections = {name: SectionView(name, float(points), None) for name, points in worth.items()}
    loose: list[Message] = []
    by_section: dict[str, list[tuple[str, str]]] = {}
    # note -> (section, pointer) it is for
    carried_notes: dict[str, tuple[Message, list[tuple[str, str]]]] = {}
    for message in messages:
        pointer, text = message.pointer, message.text
        name = pointer.strip("/").split("/")[0]
        if name in sections:
            if message.carried:
                sections[name].carried = True
                carried_notes.setdefault(message.label() + text, (message, []))[1].append(
                    (name, pointer))
            else:
                by_section.setdefault(name, []).append((pointer, text))
        elif message.carried:
            row.carried.append(_carried_text(message))
        else:
            loose.append(message)
    # A text several sections share is said once, naming them; of the others, a paragraph
    # every one repeats is said once, under the list.
    flat = [(name, pointer, text) for name, found in by_section.items() for pointer, text in found]
    owners: dict[str, list[str]] = {}
    for name, _, text in flat:
        sections[name].failed = True
        if name not in owners.setdefault(text, []):
            owners[text].append(name)
    repeated = {text: names for text, names in owners.items() if len(names) > 1}
    single = [(name, pointer, text) for name, pointer, text in flat if text not in repeated]
    # Texts that differ only in naming their own section ("... of the first example", "... of
    # the second check") are said once, the first in full, then which others it holds for.
    groups: list[list[tuple[str, str, str]]] = []
    for entry in single:
        if entry[1].strip("/") != entry[0]:
            continue
        home = next((g for g in groups if _alike(g[0][2], entry[2])), None)
        if home is None:
            groups.append([entry])
        else:
            home.append(entry)
    for group in groups:
        if len(group) > 1:
            (first, _, text), others = group[0], [name for name, _, _ in group[1:]]
            repeated[f"{text} The same holds for {_code_listing(others)}."] = [first]
            single = [entry for entry in single if entry not in group]
    rests, common = shared_paragraph([text for _, _, text in single])
    seen: set[tuple[str, str]] = set()
    for (name, pointer, _), rest in zip(single, rests, strict=True):
        where = pointer if pointer.strip("/") != name else ""
        if (name, rest) in seen or not rest:
            continue
        seen.add((name, rest))
        sections[name].problems.append(code_spans(f"`{where}`: {rest}" if where else rest))
    if common and not any(rests):  # one text for every section: said once, naming them
        repeated[common] = [name for name, _, _ in single]
    elif common:
        row.shared = Markup("For each of these sections: ") + code_spans(common)
    said_once = [code_spans(f"{_code_listing(names)}: {text}") for text, names in repeated.items()]
    lost = row.max_points - row.points
    failing = sum(s.worth for s in sections.values() if s.failed)
    if row.points in (0, row.max_points) or (not loose and abs(lost - failing) < 1e-9):
        for section in sections.values():  # the points say how each section fared
            full = row.points == row.max_points or (row.points and not section.failed)
            section.earned = section.worth if full else 0.0
    row.sections = list(sections.values())
    for section in row.sections:
        if section.carried:
            row.carried_points += section.worth
    # Each section's own note (a NaN its function returned, the error it raised), each
    # distinct note once, naming the sections it holds for.
    row.carried[:0] = [_carried_text(note, _carried_where(places))
                       for note, places in carried_notes.values()]
    row.problems = said_once + [_problem(pointers, text) for pointers, text in _pointed(loose)]
    return [*(m.flat() for m in loose), *(text for _, _, text in flat)]


def _carried_where(places: Sequence[tuple[str, str]]) -> str:
    """Where a carried-forward note holds: its sections, or the one place it points at (the
    note says "here": the NaN's place in the file)."""
    if len(places) == 1 and places[0][1].strip("/") != places[0][0]:
        return f" in `{places[0][1]}`"
    return f" in {_code_listing(list(dict.fromkeys(name for name, _ in places)))}"


def view(result: SubmissionResult, assignment: Assignment, *, course: str = "",
         private_paths: Sequence[str] = ()) -> PageView:
    """What the page shows: every text without private paths, each message once
    (``assignment``: which parts are functions, and the sections of a part that has them)."""
    hidden = [*private_paths, *assignment.private_folders, str(REPO), str(Path.home()),
              tempfile.gettempdir()]

    def clean(text: str) -> str:
        return without_paths(text, hidden)

    def cleaned(message: Message) -> Message:
        return replace(message, text=clean(message.text))

    graded = result.status == STATUS_GRADED
    notice = clean(result.reason) if not graded and result.reason else ""
    messages = {part.part: list({m.flat(): m for m in map(cleaned, part.messages)}.values())
                for part in result.parts}
    tests: dict[str, list[TestResult]] = {}
    for test in result.tests:
        tests.setdefault(test.part, []).append(test)
    by_checks = {part: found for part, found in tests.items()
                 if any(test.name != part for test in found)}
    where: dict[str, list[str]] = {}  # a part-level problem's text -> the parts that say it
    for part, said in messages.items():
        if part in by_checks:
            continue
        for message in said:
            if not message.carried:
                where.setdefault(message.flat(), []).append(part)
    above = {notice}
    shared = {text: parts for text, parts in where.items() if len(parts) > 1 and text != notice}
    parts: list[PartView] = []
    shown: dict[str, list[str]] = {}  # part -> every text its row shows
    for part in result.parts:
        said = messages[part.part]
        row = PartView(part.part, part.points, part.max_points,
                       graded=graded or part.part not in assignment.function_parts,
                       causes=[code_spans(clean(e)) for e in _unique(part.explanations)],
                       needs_review=part.needs_review,
                       see_above=any(m.flat() in above or m.flat() in shared for m in said),
                       decided=code_spans(clean(part.decided)) if part.decided else None,
                       person_score=part.auto_points is not None,
                       machine_points=part.auto_points or 0.0)
        if part.part in by_checks:
            shown[part.part] = _check_rows(row, by_checks[part.part], cleaned)
        else:
            kept = [m for m in said if m.flat() not in above and m.flat() not in shared]
            sections = _sections_of(assignment, part.part)
            if sections:
                shown[part.part] = _section_rows(row, sections, kept)
            else:
                problems = [m for m in kept if not m.carried]
                pointed = [(p if p != [f"/{part.part}"] else [], t)
                           for p, t in _pointed(problems)]
                rests, common = shared_paragraph([t for _, t in pointed])
                if common and not any(rests):
                    rests = [t for _, t in pointed]
                    common = ""
                row.problems = [_problem(p, rest) for (p, _), rest in
                                zip(pointed, rests, strict=True)]
                row.shared = (Markup("For each of these: ") + code_spans(common)
                              if common else None)
                # Without its checks a part cannot show which points were carried: a
                # full-score part then says nothing of carrying (it kept its points).
                if part.points < part.max_points:
                    notes_ = list({(m.label(), m.text): m for m in kept if m.carried}.values())
                    row.carried += [_carried_text(m) for m in notes_]
                shown[part.part] = [m.flat() for m in kept]
        parts.append(row)
    # Notes: one that is the notice, or that a row already says, is left out; one about a
    # single function (its ``part``) is said in that function's row.
    rows = {row.part: row for row in parts}
    notes: list[str] = []
    for note in list({m.text: m for m in map(cleaned, result.notes) if m.text}.values()):
        text = note.text
        if text in above or any(text in said for texts in shown.values() for said in texts):
            continue
        if note.part in rows and rows[note.part].explained:
            rows[note.part].notes.append(code_spans(text))
        else:
            notes.append(text)
    notes += [f"{_code_listing(parts_)}: {text}" for text, parts_ in shared.items()]
    return PageView(result, course, code_spans(notice) if notice else None,
                    [code_spans(note) for note in notes], parts)


def _sections_of(assignment: Assignment, part: str) -> dict[str, int]:
    """The spec's sections of ``part`` and their points (none for a part it does not know)."""
    try:
        return dict(assignment.part(part).sections)
    except KeyError:
        return {}


def render(result: SubmissionResult, assignment: Assignment, *, course: str = "",
           private_paths: Sequence[str] = ()) -> str:
    """The report as an HTML string (``private_paths``: more paths no text may show)."""
    page = view(result, assignment, course=course, private_paths=private_paths)
    return _ENVIRONMENT.get_template("feedback.html.j2").render(
        page=page, result=result, version_note=sentence(result.version),
        hidden_inputs=assignment.hidden_inputs)


def save(result: SubmissionResult, path: Path, assignment: Assignment) -> None:
    """Write the report of ``result`` (graded for ``assignment``) atomically; the course (and
    the paths it hides) come from where it is written,
    ``<root>/autograded/<student>/<assignment>/feedback.html`` (elsewhere, as on Gradescope,
    no course is named)."""
    root = course_root(path.absolute())
    hidden = [str(root), str(root.resolve())] if root is not None else []
    course = course_name(root, assignment.name) if root is not None else ""
    write_atomically(path, render(result, assignment, course=course, private_paths=hidden))
