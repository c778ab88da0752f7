"""The notebook formgrader opens for a graded submission: ``autograded/<student>/<assignment>/
<assignment>.ipynb``.

Formgrader lists a submission for manual grading, and opens its grading page, only when this
file exists (nbgrader's own autograde writes it after executing the notebook). Ours is the
student's submitted notebook, never executed: each ``check_<part>`` cell (the release's text,
as nbgrader's ``OverwriteCells`` restores a locked cell) shows as its output the points and
messages the sandboxed grade gave that part, and for a limitation waiting for a person the
text to judge; nothing of the hidden checks or their inputs.

Formgrader renders this notebook as HTML in the TA's logged-in Jupyter session, without
sanitizing it, so nothing the student wrote may reach that page as HTML: their saved outputs
are dropped (a student can forge any output), their own markdown and raw cells are shown as
plain text, every cell's metadata is rebuilt (only the check cells carry nbgrader's), and cell
ids are ours. Markdown identical to the release's is kept as markdown.

It is plain JSON written from a dict (no nbformat, no nbconvert), in the grading process that
graded the submission: about 2 ms a submission (40 sample submissions: see docs/benchmarks.md).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.base.course import RESULTS_JSON, Course
from autograder.base.safe_text import safe_text
from autograder.grading.cells import assign_roles, locked_cells_of
from autograder.grading.submission import _claimed_id
from autograder.results.result import STATUS_ERROR, PartResult, SubmissionResult, write_atomically

if TYPE_CHECKING:
    from autograder.assignments import Assignment
    from autograder.grading.cells import LockedCell

MAX_NOTEBOOK_BYTES = 50 * 2**20  # as the grader reads it (autograder.grading.submission)
HEADER = (
    "**Graded by the autograder in its sandbox; this notebook was not run here.** Each `check_...` "
    "cell shows, as its output, the points and messages the grader gave its part. The "
    "student's own outputs are not shown, and their own markdown is shown as text. A score "
    "you enter in a part's box is the grade of record from the next `python -m autograder "
    "autograde` or `python -m autograder review` on this course root (see docs/ta-guide.md)."
)
NOTES_SOURCE = "# autograder: about this submission"
MISSING_SOURCE = "# This check cell is missing from the submission; the grader graded the part anyway.\n"


def path(course: Course, student: str) -> Path:
    """Where formgrader looks for the graded notebook (the gradebook's notebook name)."""
    return course.autograded(student) / f"{course.assignment}.ipynb"


@dataclass(frozen=True)
class _Release:
    """What the graded notebook takes from the assignment's release notebook."""

    metadata: dict
    markdown: frozenset[str]  # its markdown texts (trusted: the instructor's)
    checks: dict[str, str]  # grade_id of each check cell -> its text
    locked: dict[str, LockedCell]  # its locked cells, which give each cell its role


@cache
def _release(assignment: Assignment) -> _Release:
    """The release notebook of ``assignment``, read once per process."""
    notebook = json.loads(assignment.grader_release_notebook.read_text(encoding="utf-8"))
    markdown = frozenset(_text(cell.get("source", "")) for cell in notebook.get("cells", [])
                         if cell.get("cell_type") == "markdown")
    locked = locked_cells_of(notebook, assignment.spec)
    checks = {gid: cell.source for gid, cell in locked.items()
              if assignment.grade_cell_part(gid)}
    metadata = {key: notebook.get("metadata", {})[key] for key in ("kernelspec", "language_info")
                if key in notebook.get("metadata", {})}
    return _Release(metadata, markdown, checks, locked)


def _text(source: object) -> str:
    if isinstance(source, list) and all(isinstance(line, str) for line in source):
        return "".join(source)
    return source if isinstance(source, str) else ""


def _as_text_block(source: str) -> str:
    """Markdown that shows ``source`` verbatim as a code block: no HTML, links or math of the
    student's reach the page (the fence is longer than any run of backticks inside)."""
    longest = max((len(run) for run in re.findall(r"`+", source)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"*(the student's own text, shown as written)*\n\n{fence}text\n{source}\n{fence}"


def _read(notebook: Path | None) -> list | None:
    """The submitted notebook's cells, or None when there is no notebook to read."""
    if notebook is None or notebook.is_symlink() or not notebook.is_file():
        return None
    try:
        if notebook.stat().st_size > MAX_NOTEBOOK_BYTES:
            return None
        data = json.loads(notebook.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, RecursionError, ValueError):
        return None
    cells = data.get("cells") if isinstance(data, dict) else None
    return [cell for cell in cells if isinstance(cell, dict)] if isinstance(cells, list) else None


def find_notebook(folder: Path, assignment: Assignment) -> Path | None:
    """The submitted notebook as the grader finds it: the assignment's name, else the only one."""
    expected = folder / assignment.notebook
    if expected.is_file() and not expected.is_symlink():
        return expected
    others = sorted(p for p in folder.glob("*.ipynb") if p.is_file() and not p.is_symlink())
    return others[0] if len(others) == 1 else None


def part_text(part: PartResult, to_judge: str = "", evidence_file: str = "") -> str:
    """A check cell's output: the machine's points and messages for the part (a person's
    score is formgrader's score box; this text says a person reviewed it, so the machine's
    "provisional" does not stand above it); ``to_judge``: the text a person must read, from
    the student's ``evidence_file``."""
    points = part.points if part.auto_points is None else part.auto_points
    review = part.needs_review if part.auto_review is None else part.auto_review
    if part.auto_points is not None:  # a person's score stands (formgrader's score box)
        state = f", reviewed by a person since: {part.decided}" if part.decided else ""
    else:
        state = ", provisional: a person must review this part" if review else ""
    lines = [f"autograder (sandboxed): {points:g}/{part.max_points:g} for {part.part}" + state]
    lines += [f"  - {message.flat()}" for message in part.messages]
    lines += [f"  - likely cause: {explanation}" for explanation in part.explanations]
    if to_judge:
        lines.append(f"Text to judge (from the student's {evidence_file}): {to_judge}")
    return "\n".join(lines) + "\n"


def text_to_judge(folder: Path, part: str, assignment: Assignment) -> str:
    """The text a person must judge for ``part``, as the student wrote it in the evidence
    file of ``folder`` under the part's name ("" unless ``part`` is the assignment's
    limitation). The evidence plugin reads the file, with the grader's safe loader."""
    limitation, plugin = assignment.limitation_part, assignment.evidence
    if limitation is None or plugin is None or part != limitation.name:
        return ""
    text = (plugin.read(folder / assignment.evidence_file) or {}).get(part)
    return safe_text(text, 2000) if isinstance(text, str) else ""


def _to_judge(folder: Path, part: PartResult, assignment: Assignment) -> str:
    """The limitation a person must judge, when the machine left it to one."""
    review = part.needs_review if part.auto_review is None else part.auto_review
    return text_to_judge(folder, part.part, assignment) if review else ""


def build(result: SubmissionResult, notebook: Path | None, folder: Path | None = None, *,
          assignment: Assignment) -> dict:
    """The graded notebook of ``result`` from the submitted ``notebook`` (see the module
    docstring); ``folder``: the submission folder (the evidence file), default the notebook's."""
    release = _release(assignment)
    checks = release.checks
    folder = folder or (notebook.parent if notebook is not None else None)
    parts = {assignment.part(part.part).grade_cell: part for part in result.parts
             if part.part in assignment.part_points}
    cells: list[dict] = [{"cell_type": "markdown", "metadata": {}, "source": HEADER}]
    notes = [result.reason] if result.reason else []
    if result.late_penalty:  # formgrader shows the points before it; nbgrader export after
        notes.append(f"Late penalty: -{result.late_penalty:g} ({result.late_policy}). The grade "
                     f"of record is {result.score:g}/{result.max_score:g}: formgrader shows the "
                     f"points before the penalty ({result.parts_score:g}), nbgrader export and "
                     "every file of the grader the total after it.")
    if notes:
        cells.append(_code(NOTES_SOURCE, "".join(f"{note}\n" for note in notes)))
    submitted = _read(notebook)
    code = [cell for cell in submitted or [] if cell.get("cell_type") == "code"]
    roles = iter(_roles(code, release.locked))
    placed: set[str] = set()
    for cell in submitted or []:
        kind, source = cell.get("cell_type"), _text(cell.get("source", ""))
        if kind == "code":
            grade_id = next(roles)
            if grade_id in parts and grade_id not in placed:
                placed.add(grade_id)
                cells.append(_check(grade_id, checks.get(grade_id, source), parts[grade_id],
                                    folder, assignment))
            else:
                cells.append(_code(source))
        elif kind == "markdown" and source in release.markdown:
            cells.append({"cell_type": "markdown", "metadata": {}, "source": source})
        elif kind in ("markdown", "raw") and source.strip():
            cells.append({"cell_type": "markdown", "metadata": {}, "source": _as_text_block(source)})
    for grade_id, part in parts.items():  # deleted, or no notebook: the TA still scores it
        if grade_id not in placed:
            cells.append(_check(grade_id, MISSING_SOURCE + checks.get(grade_id, ""), part, folder,
                                assignment))
    for number, cell in enumerate(cells):
        cell["id"] = f"graded-{number}"
    return {"cells": cells, "metadata": release.metadata, "nbformat": 4, "nbformat_minor": 5}


def _roles(code: list[dict], locked: dict[str, LockedCell]) -> list[str]:
    """Each code cell's identity, from the release (``autograder.grading.cells``), never
    from the student's metadata alone."""
    return [role.grade_id for role in assign_roles(
        [(_text(cell.get("source", "")), _claimed_id(cell)) for cell in code], locked)]


def _code(source: str, output: str | None = None) -> dict:
    outputs = [] if output is None else [{"output_type": "stream", "name": "stdout",
                                          "text": output}]
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": outputs,
            "source": source}


def _check(grade_id: str, source: str, part: PartResult, folder: Path | None,
           assignment: Assignment) -> dict:
    to_judge = _to_judge(folder, part, assignment) if folder else ""
    cell = _code(source, part_text(part, to_judge, assignment.evidence_file))
    cell["metadata"] = {"nbgrader": {
        "cell_type": "code", "grade": True, "grade_id": grade_id, "locked": True,
        "points": part.max_points, "schema_version": 3, "solution": False}}
    return cell


def write(course: Course, result: SubmissionResult, notebook: Path | None = None, *,
          assignment: Assignment, folder: Path | None = None) -> Path | None:
    """Write ``result``'s graded notebook for formgrader (none for a grader error, which is not
    in the gradebook either); ``notebook``: the submitted notebook, found when not given;
    ``folder``: the submission's (default: its folder in submitted/; a kept version's when an
    earlier version counts)."""
    if result.status == STATUS_ERROR:
        return None
    folder = folder or course.submitted(result.student)
    if notebook is None:
        notebook = find_notebook(folder, assignment)
    out = path(course, result.student)
    built = build(result, notebook, folder, assignment=assignment)
    # No indent: json's C encoder (an indented dump is pure Python, 4 ms a notebook).
    write_atomically(out, json.dumps(built, ensure_ascii=False) + "\n")
    return out


def write_missing(course: Course, results: list[SubmissionResult], *,
                  assignment: Assignment) -> int:
    """Write the graded notebook of every result whose notebook is missing or older than its
    results.json (a root graded before formgrader was supported, a result saved by another
    writer, such as a Dask worker); returns how many. Two ``stat`` calls a student otherwise."""
    written = 0
    for result in results:
        try:
            saved = (course.autograded(result.student) / RESULTS_JSON).stat().st_mtime_ns
        except OSError:
            continue  # not graded in this root (nothing for formgrader to open)
        try:
            current = path(course, result.student).stat().st_mtime_ns >= saved
        except OSError:
            current = False
        if not current:
            written += write(course, result, assignment=assignment) is not None
    return written
