"""Moodle's grading worksheet, read as the roster that names the students of a download.

Moodle's own assignment download ("Download all submissions") names each student's files
after the student's full name and *participant id* (``mod/assign/classes/downloader.php``:
``clean_filename(str_replace('_', ' ', fullname) . '_' . get_uniqueid_for_user(userid))``).
The participant id is the assignment's own number for the student (``assign_user_mapping``:
one per assignment, never a user id), and Moodle's grade import matches none of it. The
assignment's *grading worksheet* ("Download grading worksheet", ``assignfeedback_offline``,
written by ``mod/assign/gradingtable.php``) is the one export that holds it beside who the
student is. Its columns, as Moodle writes them in English:

* ``Identifier``: ``Participant <id>`` (``get_string('hiddenuser', 'assign')`` followed by
  the id), always the first column;
* ``Full name``, then the identity fields the site shows (Site administration > Users >
  Permissions > User policies > "Show user identity", ``showuseridentity``: ``Email
  address`` by default, ``ID number`` and ``Username`` when listed there);
* ``Status``, (``Group`` for group submissions), ``Grade``, ``Maximum Grade`` (the grade
  item's maximum), ``Last modified (submission)``, ``Last modified (grade)``, feedback.

The student id we use is the value of the column that holds ``moodle_identifier``'s user
field, so it is the very value ``moodle-grades.csv`` gives Moodle's import to match.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

# The worksheet's headers (Moodle's English strings: assign's recordid, core's fullname,
# email, idnumber, username; assign's maxgrade and submissionteam).
IDENTIFIER = "Identifier"
FULL_NAME = "Full name"
MAXIMUM = "Maximum Grade"
GROUP = "Group"
# Our moodle_identifier -> the worksheet column holding that user field.
COLUMNS = {"username": "Username", "idnumber": "ID number", "email": "Email address"}
# What a student id may be: what Moodle allows in a username (lower-case letters, digits,
# "_", "-", ".", "@"; PARAM_USERNAME), upper case too (SIS ids), and never a path trick: no
# "/", no leading ".", no "..". The default lms_filename_regexp is built from it.
STUDENT_ID = r"(?!\.)(?:[A-Za-z0-9_@-]|\.(?!\.))+"
PARTICIPANT = re.compile(r"^\D*?(\d+)$")  # "Participant 123456" -> 123456
# clean_filename (PARAM_FILE) drops these from a name; Moodle writes "_" as a space first.
DROPPED = re.compile(r"[\x00-\x1f\x7f&<>\"`|':\\/]")
SHOWN = 5  # participants or students named in a line; the rest are counted


class RosterError(ValueError):
    """The roster cannot be read, or cannot name the students (one line saying why)."""


@dataclass(frozen=True)
class Participant:
    """One row of the worksheet: the participant id, the full name and our student id."""

    participant: str
    name: str
    student: str  # the identity column's value ("" when Moodle has none for the student)


@dataclass(frozen=True)
class Roster:
    """The worksheet, by participant id."""

    path: Path
    identifier: str  # moodle_identifier: username, idnumber or email
    column: str  # the worksheet column holding it
    participants: dict[str, Participant] = field(default_factory=dict)
    maximum: float | None = None  # the grade item's maximum ("Maximum Grade"), when given

    def students(self) -> set[str]:
        """Every student id the roster knows (Moodle users the import can match)."""
        return {p.student for p in self.participants.values() if p.student}


def shown(names: list[str]) -> str:
    """Up to ``SHOWN`` names, then how many more."""
    more = f" and {len(names) - SHOWN} more" if len(names) > SHOWN else ""
    return ", ".join(names[:SHOWN]) + more


def comparable(name: str) -> str:
    """A full name as Moodle's download writes it (``_`` as a space, clean_filename's
    characters dropped), folded for comparison."""
    return " ".join(DROPPED.sub("", name.replace("_", " ")).split()).casefold()


def _rows(path: Path) -> list[list[str]]:
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as error:
        raise RosterError(f"cannot read the Moodle roster {path}: {error.strerror or error}; "
                          "download the assignment's grading worksheet again") from None
    except UnicodeDecodeError:
        raise RosterError(f"the Moodle roster {path} is not UTF-8 text: use the grading "
                          "worksheet as Moodle wrote it (not saved again by a spreadsheet)"
                          ) from None
    first = text.split("\n", 1)[0]
    delimiter = max(",;\t", key=first.count)  # Moodle writes commas; a spreadsheet may not
    return [row for row in csv.reader(io.StringIO(text), delimiter=delimiter) if any(row)]


def load(path: Path, identifier: str) -> Roster:
    """The roster in ``path`` (Moodle's grading worksheet, CSV), with the student id read from
    the column of ``identifier`` (moodle_identifier); ``RosterError`` unless it is one and
    that column is there."""
    path = Path(path)
    rows = _rows(path)
    worksheet = "download the assignment's grading worksheet (Moodle: the assignment > " \
        "Submissions > Download grading worksheet) in English"
    if not rows or rows[0][0].strip() != IDENTIFIER:
        found = ", ".join(repr(c) for c in rows[0][:6]) if rows else "nothing"
        raise RosterError(f"the Moodle roster {path} is not a grading worksheet: its first "
                          f"column is not {IDENTIFIER!r} (it has {found}); {worksheet}")
    header = [cell.strip() for cell in rows[0]]
    if GROUP in header:
        raise RosterError(f"the Moodle roster {path} is a group assignment's worksheet: Moodle "
                          "names a group submission's files after the group, not a student, "
                          "so they cannot be collected per student; make it an individual "
                          "assignment, or name the files <student id>__<file> yourself")
    if FULL_NAME not in header:
        raise RosterError(f"the Moodle roster {path} does not say who its participants are "
                          f"(no {FULL_NAME!r} column: an assignment with anonymous submissions "
                          "hides them): reveal student identities first, then download the "
                          "grading worksheet again")
    if identifier not in COLUMNS:
        raise RosterError(f"moodle_identifier = {identifier!r} is not in Moodle's grading "
                          "worksheet (it has no user id): use \"username\", \"idnumber\" or "
                          "\"email\"")
    column = COLUMNS[identifier]
    if column not in header:
        others = [f'"{key}" (its {name!r})' for key, name in COLUMNS.items() if name in header]
        instead = (f", or set moodle_identifier = {' or '.join(others)}" if others else "")
        raise RosterError(
            f"the Moodle roster {path} has no {column!r} column, so its participants cannot be "
            f"matched by {column} (moodle_identifier = {identifier!r}): the "
            "worksheet shows the identity fields the site lists in \"Show user identity\" "
            f"(showuseridentity); ask your Moodle administrator to add {column}{instead}")
    where = {name: header.index(name) for name in (column, FULL_NAME, MAXIMUM) if name in header}
    participants: dict[str, Participant] = {}
    maxima = set()
    for number, row in enumerate(rows[1:], start=2):
        cells = [cell.strip() for cell in row] + [""] * len(header)
        found = PARTICIPANT.match(cells[0])
        if not found:
            raise RosterError(f"the Moodle roster {path}, line {number}: {cells[0]!r} is not "
                              f"a participant identifier (\"Participant 123456\"); {worksheet}")
        participant = found.group(1)
        if participant in participants:
            raise RosterError(f"the Moodle roster {path} lists participant {participant} twice; "
                              f"{worksheet}")
        student = cells[where[column]]
        if student and (not re.fullmatch(STUDENT_ID, student) or "__" in student):
            raise RosterError(f"the Moodle roster {path}, line {number}: {column} {student!r} "
                              "cannot be a student id (letters, digits, _ - . @ only; no "
                              "leading '.', no '..', no '__', which ends the id in a file "
                              "name): set moodle_identifier to another of "
                              f"{', '.join(COLUMNS)}")
        name = cells[where[FULL_NAME]] if FULL_NAME in where else ""
        participants[participant] = Participant(participant, name, student)
        if MAXIMUM in where and cells[where[MAXIMUM]]:
            maxima.add(cells[where[MAXIMUM]])
    return Roster(path, identifier, column, participants, _maximum(maxima))


def _maximum(values: set[str]) -> float | None:
    """The grade item's maximum, as Moodle formats it ("100.00", or "100,00" with a comma
    decimal); None when absent, unreadable or not one value."""
    if len(values) != 1:
        return None
    text = next(iter(values)).replace("\u00a0", "").replace(" ", "")
    if "," in text and "." not in text:
        text = text.replace(",", ".")
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None
