"""Read one submission folder into plain facts, without running anything.

A broken submission is data, not an exception: a missing or malformed notebook
gives a ``Submission`` with ``fatal`` set (the student still gets a row and a
reason); deleted or renamed cells are noted and grading goes on.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.grading.cells import LockedCell, assign_roles, release_locked_cells
from autograder.results import note_codes
from autograder.results.message import Message

if TYPE_CHECKING:
    from autograder.assignments import Assignment

MAX_NOTEBOOK_BYTES = 50 * 2**20
MAX_HASHED_BYTES = 200 * 2**20


@dataclass(frozen=True)
class Cell:
    """One code cell: where it is, what it is, the text to run (None = not run).

    The text is the cell as written (IPython syntax included): the worker turns it into
    Python, so the trusted process never parses student code.

    ``grade_id`` is the release's identity of the cell (``autograder.grading.cells``);
    for the student's own cells it is whatever id their metadata claims."""

    index: int
    grade_id: str
    source: str | None


@dataclass
class Submission:
    """Everything the grader needs to know about one student's folder."""

    student: str
    folder: Path
    notebook: Path | None = None
    cells: list[Cell] = field(default_factory=list)
    evidence: Path | None = None
    content_hash: str = ""
    fatal: str = ""  # why the notebook cannot be graded at all (student-facing)
    # Student-facing remarks; one with ``review`` is why a person must look whatever the
    # grade: e.g. a copy of the notebook beside it, which may hold the work not graded.
    notes: list[Message] = field(default_factory=list)

    def note(self, text: str, code: str, *, review: bool = False) -> None:
        self.notes.append(Message(text, code=code, review=review))

    @property
    def runnable(self) -> list[str]:
        """The cell texts the worker runs, in notebook order."""
        return [cell.source for cell in self.cells if cell.source is not None]


@dataclass(frozen=True)
class FolderHash:
    """A submission folder's content hash, and the files too large to be hashed in full
    (their relative paths): a change in what was not read cannot be seen."""

    digest: str
    unhashed: tuple[str, ...] = ()


def _read_by_the_grader(path: Path, folder: Path) -> bool:
    """What grading reads, hashed in full whatever else the folder holds: the top level's
    notebooks, JSON files (an evidence file) and ``timestamp.txt``."""
    return path.parent == folder and (path.suffix in (".ipynb", ".json")
                                      or path.name == "timestamp.txt")


def hash_folder(folder: Path) -> FolderHash:
    """SHA-256 of every file's relative path and bytes (unchanged submissions are skipped, a
    decision's basis is checked with it). What grading reads is hashed in full (up to the
    largest file it reads, ``MAX_NOTEBOOK_BYTES``); the other files share
    ``MAX_HASHED_BYTES``, in name order, so padding can never push the notebook, the evidence
    file or ``timestamp.txt`` out of the hash. A folder within the budget hashes as before."""
    digest = hashlib.sha256()
    budget = MAX_HASHED_BYTES
    unhashed = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()):
        relative = str(path.relative_to(folder))
        digest.update(relative.encode() + b"\0")
        read = _read_by_the_grader(path, folder)
        limit = MAX_NOTEBOOK_BYTES if read else max(budget, 0)
        with path.open("rb") as handle:
            data = handle.read(limit)
            if handle.read(1):
                unhashed.append(relative)
        if not read:
            budget -= len(data)
        digest.update(hashlib.sha256(data).digest())
    return FolderHash(digest.hexdigest(), tuple(unhashed))


def content_hash(folder: Path) -> str:
    """``hash_folder``'s digest."""
    return hash_folder(folder).digest


def _find_notebook(folder: Path, submission: Submission, name: str) -> Path | None:
    """The notebook to grade: the assignment's (``name``), else the only other one. Copies
    beside it (``<name>-Copy1.ipynb``) may hold the real work, so they are named and a
    person checks; with several copies and no original there is no telling which to grade."""
    expected = folder / name
    # Hidden files (macOS's ``._name.ipynb`` in a zip) are never a student's notebook.
    others = sorted(p for p in folder.glob("*.ipynb") if p.is_file() and not p.is_symlink()
                    and p.name != name and not p.name.startswith("."))
    names = ", ".join(repr(p.name) for p in others)
    if expected.is_file() and not expected.is_symlink():
        if others:
            note = (f"{name!r} was graded; {names} "
                    f"{'was' if len(others) == 1 else 'were'} submitted beside it and not graded "
                    "(only the assignment's notebook is); a person will check which one holds "
                    "your work")
            submission.note(note, note_codes.NOTEBOOK_COPIES, review=True)
        return expected
    if len(others) == 1:
        submission.note(
            f"the notebook was named {others[0].name!r} instead of {name!r}; it was graded anyway",
            note_codes.NOTEBOOK_RENAMED)
        return others[0]
    if others:
        submission.fatal = (
            f"{name} was not found and several other notebooks were: {names}; none "
            "was graded and a person will check them; submit the assignment's notebook under "
            "its original name"
        )
    else:
        submission.fatal = f"no notebook was submitted (expected {name})"
    return None


def _read_cells(path: Path, submission: Submission, locked: dict[str, LockedCell]) -> list[Cell] | None:
    if path.stat().st_size > MAX_NOTEBOOK_BYTES:
        submission.fatal = f"{path.name} is larger than {MAX_NOTEBOOK_BYTES // 2**20} MiB; clear the outputs and resubmit"
        return None
    try:
        notebook = json.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError:
        submission.fatal = f"{path.name} is not a text (UTF-8) file; it may be damaged"
        return None
    except json.JSONDecodeError as error:
        submission.fatal = (
            f"{path.name} is not a valid notebook: its JSON is broken at line {error.lineno}, "
            f"column {error.colno} ({error.msg}); open it in Jupyter, save it and resubmit"
        )
        return None
    except (RecursionError, ValueError):
        submission.fatal = f"{path.name} is not a valid notebook (its JSON is nested too deeply to read)"
        return None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        submission.fatal = f"{path.name} is not a Jupyter notebook (it has no list of cells)"
        return None
    found: list[tuple[int, str, str]] = []  # (index, source, claimed grade_id)
    for index, raw in enumerate(notebook["cells"]):
        if not isinstance(raw, dict) or raw.get("cell_type") != "code":
            continue
        source = raw.get("source", "")
        if isinstance(source, list) and all(isinstance(line, str) for line in source):
            source = "".join(source)
        if not isinstance(source, str):
            code_cells = sum(1 for cell in notebook["cells"][: index + 1]
                             if isinstance(cell, dict) and cell.get("cell_type") == "code")
            submission.note(f"code cell {code_cells} from the top is damaged (its source is not "
                            "text); it was not run", note_codes.CELL_DAMAGED)
            continue
        found.append((index, source, _claimed_id(raw)))
    # Roles come from the release, never from the student's metadata (which only names a
    # cell); skipping the visible checks, demos and helpers is what makes grading fast.
    roles = assign_roles([(source, claimed) for _, source, claimed in found], locked)
    return [
        Cell(index, role.grade_id, role.source)
        for (index, _, _), role in zip(found, roles, strict=True)
    ]


def _claimed_id(raw: dict) -> str:
    """The grade_id the student's metadata gives the cell (untrusted; "" if none)."""
    meta = raw.get("metadata", {})
    nbgrader = meta.get("nbgrader", {}) if isinstance(meta, dict) else {}
    return str(nbgrader.get("grade_id", ""))[:200] if isinstance(nbgrader, dict) else ""


def load_submission(folder: Path, student: str, *, assignment: Assignment) -> Submission:
    """Inspect ``folder`` as a submission of ``assignment``; never raises for anything a
    student can do to it."""
    submission = Submission(student=student, folder=folder)
    if folder.is_symlink() or folder.parent.is_symlink():
        submission.fatal = "the submission folder is a symbolic link; submit the files themselves"
        return submission
    if not folder.is_dir():
        submission.fatal = "no submission folder"
        return submission
    hashed = hash_folder(folder)
    submission.content_hash = hashed.digest
    if hashed.unhashed:  # a resubmission could change them unseen: a person compares
        shown = ", ".join(hashed.unhashed[:5]) + (", ..." if len(hashed.unhashed) > 5 else "")
        submission.note(f"files too large to be compared between runs were not read in full "
                        f"({shown}); a person will check this submission before its grade is "
                        "final", note_codes.UNHASHED, review=True)
    if assignment.evidence_file:
        evidence = folder / assignment.evidence_file
        submission.evidence = evidence if evidence.exists() or evidence.is_symlink() else None
    submission.notebook = _find_notebook(folder, submission, assignment.notebook)
    if submission.notebook is None:
        return submission
    cells = _read_cells(submission.notebook, submission, release_locked_cells(assignment))
    if cells is None:
        return submission
    submission.cells = cells
    present = {cell.grade_id for cell in cells}
    missing = [name for name in assignment.function_parts if name not in present]
    if missing:
        submission.note(
            "these solution cells were deleted or renamed: "
            + ", ".join(missing)
            + "; the grader still looks for the functions anywhere in the notebook",
            note_codes.CELLS_MISSING)
    return submission
