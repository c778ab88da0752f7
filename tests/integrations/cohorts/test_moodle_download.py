"""Moodle's own assignment download, collected as Moodle writes it (issue 29).

Moodle names each file of a student's submission after the student's full name and the
assignment's *participant id* (``mod/assign/classes/downloader.php``): the name with every
``_`` written as a space, then ``clean_filename`` (which drops ``&<>"`|':\\/`` and control
characters), ``_<participant id>_assignsubmission_file``, then ``/<path>`` (in folders,
Moodle's default since 3.1; ``_/<path>`` before 4.1) or ``_<file name>`` (without
folders). ``moodle_download`` below builds a download exactly so, and ``worksheet`` the
assignment's grading worksheet as ``mod/assign/gradingtable.php`` writes it (a UTF-8
byte-order mark first, as Moodle's CSV writer puts there). Every download goes through the
real ``cohort collect --zip`` and the real ``nbgrader zip_collect``.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from autograder.integrations.cohorts import archives
from autograder.integrations.cohorts.archives import ArchiveError, ArchiveLimits, MoodleDownload
from autograder.integrations.cohorts.config import (
    LMS_FILENAME_REGEXP,
    CohortConfigError,
    get_cohort,
)
from autograder.integrations.lms import roster as moodle_roster
from autograder.spec import REPO
from tests.integrations.cohorts.test_lms_archives import (
    ASSIGNMENT,
    EVIDENCE,
    NOTEBOOK,
    cohort_cli,
    fake_release,
    submitted,
    tree,
    write_zip,
)
from tests.support.cli import one_line_error

# ------------------------------------------------------------------ Moodle, as it writes


def clean_filename(text: str) -> str:
    """Moodle's clean_filename (clean_param PARAM_FILE)."""
    return re.sub(r"[\x00-\x1f\x7f&<>\"`|':\\/]", "", text)


def moodle_prefix(full_name: str, participant: int) -> str:
    """downloader.php's get_student_prefix for an individual submission."""
    return clean_filename(f"{full_name.replace('_', ' ')}_{participant}")


# A course as Moodle knows it: full name, participant id (this assignment's), username,
# and the files each submitted (path inside the submission -> bytes).
def notebook(who: str) -> bytes:
    return f'{{"cells": [], "metadata": {{"who": "{who}"}}, "nbformat": 4, "nbformat_minor": 5}}\n'.encode()


STUDENTS = [
    # a "_" and spaces (and an accent) in the name; a "_" in the username
    ("Ana_María de la Cruz", 4817203, "ana_maria.cruz", "ana@uni.example",
     {NOTEBOOK: notebook("ana"), EVIDENCE: b'{"who": "ana"}\n'}),
    # several files, the notebook in a folder of the upload
    ("Bo Li", 4817204, "bli", "bo.li@uni.example",
     {f"work/{NOTEBOOK}": notebook("bo"), EVIDENCE: b'{"who": "bo"}\n',
      "notes.txt": b"my notes\n"}),
    # an apostrophe, which clean_filename drops
    ("Chloé O'Brien", 4817205, "chloe-obrien", "chloe@uni.example",
     {NOTEBOOK: notebook("chloe"), EVIDENCE: b'{"who": "chloe"}\n'}),
]


def moodle_download(layout: str = "folders", students=STUDENTS) -> list[tuple[str, bytes]]:
    """The members of Moodle's "Download all submissions" zip, in one of its layouts."""
    members = []
    for name, participant, _, _, files in students:
        plugin = f"{moodle_prefix(name, participant)}_assignsubmission_file"
        for path, data in files.items():
            folder, _, file = path.rpartition("/")
            if layout == "folders":  # downloader.php: prefix . filepath . filename
                members.append((f"{plugin}/{folder + '/' if folder else ''}{file}", data))
            elif layout == "folders-before-4.1":  # locallib.php: a "_" before the path
                members.append((f"{plugin}_/{folder + '/' if folder else ''}{file}", data))
            else:  # without folders: prefix_plugin_filename
                members.append((f"{plugin}_{file}", data))
    return members


def worksheet(path: Path, students=STUDENTS, identity=("Email address", "Username"),
              maximum: str = "100.00", extra: tuple[str, ...] = ()) -> Path:
    """The assignment's grading worksheet, as gradingtable.php downloads it."""
    header = ["Identifier", "Full name", *identity, "Status", *extra, "Grade", "Maximum Grade",
              "Grade can be changed", "Last modified (submission)", "Last modified (grade)",
              "Feedback comments"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for name, participant, username, email, _ in students:
        fields = {"Email address": email, "Username": username, "ID number": ""}
        writer.writerow([f"Participant {participant}", name, *(fields[c] for c in identity),
                         "Submitted for grading", *("" for _ in extra), "", maximum, "Yes",
                         "Monday, 14 December 2026, 11:00 PM", "-", ""])
    path.write_bytes(b"\xef\xbb\xbf" + buffer.getvalue().encode("utf-8"))
    return path


def write_config(tmp: Path, roster: str | None = "worksheet.csv", extra: str = "") -> Path:
    """A cohort with the default lms_filename_regexp (none written) and the worksheet as
    moodle_roster (relative to the file)."""
    path = tmp / "cohorts.toml"
    roster_line = f'moodle_roster = "{roster}"' if roster else ""
    path.write_text(f"""
[defaults]
courses_root = "{tmp / 'courses'}"
exchange = "{tmp / 'exchange'}"
{extra}
[cohorts.fall-a]
due = "2030-01-01 00:00:00 UTC"
{roster_line}
""")
    return path


# ------------------------------------------------------------------ collected for everyone


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["folders", "folders-before-4.1", "flat"])
def test_a_moodle_download_is_collected_for_every_student(tmp_path, layout):
    worksheet(tmp_path / "worksheet.csv")
    config = write_config(tmp_path)
    cohort = fake_release(config)
    assert cohort.lms_filename_regexp == LMS_FILENAME_REGEXP  # the default pattern
    members = moodle_download(layout)
    members.append((f"{moodle_prefix('Ana_María de la Cruz', 4817203)}_assignsubmission_"
                    f"onlinetext{'/' if layout != 'flat' else '_'}onlinetext.html", b"<p>hi</p>"))
    download = write_zip(tmp_path / "DL-H2-2026-h2_attention-88.zip", members)

    done = cohort_cli(config, "collect", "fall-a", "--zip", str(download),
                      "--received", "2026-12-14 23:30 UTC")
    assert done.returncode == 0, done.stderr
    assert submitted(cohort) == {student: [EVIDENCE, NOTEBOOK]
                                 for student in ("ana_maria.cruz", "bli", "chloe-obrien")}
    for _, _, username, _, files in STUDENTS:
        for path, data in files.items():
            if path.endswith((".ipynb", ".json")):
                got = cohort.root / "submitted" / username / ASSIGNMENT / Path(path).name
                assert got.read_bytes() == data, (username, path)
    lines = done.stdout.splitlines()
    assert (f"{download.name} is Moodle's own download: 8 file(s) of 3 student(s) named by "
            f"their Username in {tmp_path / 'worksheet.csv'} (moodle_roster)") in lines
    # What is not a notebook is named, under the student's id (never silently dropped).
    [skipped] = [line for line in lines if line.startswith("not collected from")]
    assert "2 file(s)" in skipped and "ana_maria.cruz__onlinetext.html" in skipped
    assert "bli__notes.txt" in skipped
    # Arrival times go to the students the roster names.
    assert "arrival times of 3 submission(s) recorded" in done.stdout, done.stdout
    assert "3 submission(s)" in done.stdout and "3 new" in done.stdout


@pytest.mark.slow
def test_a_moodle_download_without_a_roster_is_refused_with_one_line(tmp_path):
    config = write_config(tmp_path, roster=None)
    cohort = fake_release(config)
    download = write_zip(tmp_path / "moodle.zip", moodle_download())
    before = tree(cohort.root)
    line = one_line_error(cohort_cli(config, "collect", "fall-a", "--zip", str(download)))
    assert line.startswith(f"error: --zip {download} refused: it is Moodle's own assignment "
                           "download"), line
    assert "a participant id is not a student id" in line and "set moodle_roster" in line
    assert "Download grading worksheet" in line
    assert tree(cohort.root) == before


# ------------------------------------------------------------------ rosters that cannot name them


def unpack_with(tmp_path: Path, roster: Path, members=None, identifier: str = "username"):
    download = write_zip(tmp_path / "moodle.zip", members or moodle_download())
    return archives.unpack([download], tmp_path / "course" / "archive", ArchiveLimits(),
                           MoodleDownload(roster, identifier))


@pytest.mark.parametrize(("make_roster", "identifier", "refusal"), [
    # another assignment's worksheet: same people, other participant ids
    (lambda p: worksheet(p, [(n, i + 1000, u, e, f) for n, i, u, e, f in STUDENTS]),
     "username", "participant 4817203 (Ana María de la Cruz) is not in the Moodle roster"),
    # another assignment's worksheet whose ids happen to be there, for other people
    (lambda p: worksheet(p, [(STUDENTS[1][0], STUDENTS[0][1], "bli", "b@x", {}),
                             (STUDENTS[0][0], STUDENTS[1][1], "ana", "a@x", {}),
                             STUDENTS[2]]),
     "username", "participant 4817203 is 'Ana María de la Cruz' in it but 'Bo Li' in the "
                 "Moodle roster"),
    # the site shows no username in the worksheet (Moodle's default: email only)
    (lambda p: worksheet(p, identity=("Email address",)), "username",
     "has no 'Username' column"),
    (lambda p: worksheet(p, identity=("Email address", "ID number")), "idnumber",
     "participant 4817203 (Ana_María de la Cruz) has no ID number in the Moodle roster"),
    (lambda p: worksheet(p, extra=("Group",)), "username", "a group assignment's worksheet"),
    (lambda p: p.write_text("Student,ID,SIS User ID\n"), "username",
     "is not a grading worksheet: its first column is not 'Identifier'"),
])
def test_a_roster_that_cannot_name_every_participant_refuses_the_download(
        tmp_path, make_roster, identifier, refusal):
    roster = tmp_path / "worksheet.csv"
    make_roster(roster)
    with pytest.raises(ArchiveError) as refused:
        unpack_with(tmp_path, roster, identifier=identifier)
    message = str(refused.value)
    assert message.startswith(f"--zip {tmp_path / 'moodle.zip'} refused: "), message
    assert refusal in message and "\n" not in message
    assert "nothing was unpacked" in message
    assert not (tmp_path / "course").exists()


def test_the_roster_points_at_the_column_the_site_does_show(tmp_path):
    roster = worksheet(tmp_path / "worksheet.csv", identity=("Email address",))
    with pytest.raises(moodle_roster.RosterError,
                       match=r"ask your Moodle administrator to add Username, or set "
                             r"moodle_identifier = \"email\" \(its 'Email address'\)"):
        moodle_roster.load(roster, "username")
    emails = moodle_roster.load(roster, "email")
    assert emails.students() == {email for _, _, _, email, _ in STUDENTS}
    assert emails.maximum == 100.0 and emails.column == "Email address"


def test_two_files_one_name_are_refused(tmp_path):
    """Bo uploaded h2_attention.ipynb twice, in two folders: which one to grade is asked."""
    roster = worksheet(tmp_path / "worksheet.csv")
    prefix = f"{moodle_prefix('Bo Li', 4817204)}_assignsubmission_file"
    members = [(f"{prefix}/{NOTEBOOK}", notebook("a")), (f"{prefix}/old/{NOTEBOOK}", notebook("b"))]
    with pytest.raises(ArchiveError, match=f"would both be unpacked as 'bli__{NOTEBOOK}'"):
        unpack_with(tmp_path, roster, members)


def test_mac_copies_are_not_taken_for_a_students_files(tmp_path):
    roster = worksheet(tmp_path / "worksheet.csv")
    prefix = f"{moodle_prefix('Bo Li', 4817204)}_assignsubmission_file"
    members = [(f"{prefix}/{NOTEBOOK}", notebook("bo")),
               (f"__MACOSX/{prefix}/._{NOTEBOOK}", b"\0\5\x16\7")]
    [done] = unpack_with(tmp_path, roster, members)
    assert done.moodle.renames == {f"{prefix}/{NOTEBOOK}": f"bli__{NOTEBOOK}"}
    skipped = {s.name for s in archives.not_collected(done, LMS_FILENAME_REGEXP)}
    assert skipped == {f"__MACOSX/{prefix}/._{NOTEBOOK}"}


@pytest.mark.parametrize(("value", "why"), [("x__y", "no '__'"), ("../etc", "no '..'"),
                                            (".hidden", "no leading '.'"), ("a/b", "only")])
def test_a_roster_id_that_cannot_be_a_folder_is_refused(tmp_path, value, why):
    roster = worksheet(tmp_path / "w.csv", [("Ann", 1, value, "a@x", {})])
    with pytest.raises(moodle_roster.RosterError, match=re.escape(why)):
        moodle_roster.load(roster, "username")


def test_a_worksheet_saved_again_by_a_spreadsheet_is_read(tmp_path):
    """Semicolons, no byte-order mark, a comma decimal: what a European Excel writes."""
    path = tmp_path / "w.csv"
    path.write_text("Identifier;Full name;Username;Grade;Maximum Grade\n"
                    "Participant 7;Ann Lee;alee;;20,00\n", encoding="utf-8")
    roster = moodle_roster.load(path, "username")
    assert roster.participants["7"] == moodle_roster.Participant("7", "Ann Lee", "alee")
    assert roster.maximum == 20.0


def test_moodle_roster_comes_from_cohorts_toml(tmp_path):
    cohort = get_cohort("fall-a", write_config(tmp_path, roster="rosters/w.csv"))
    assert cohort.moodle_download == MoodleDownload(tmp_path / "rosters" / "w.csv", "username")
    assert get_cohort("fall-a", write_config(tmp_path, roster=None)).moodle_download.roster is None
    with pytest.raises(CohortConfigError, match="Moodle's grading worksheet holds no user id"):
        get_cohort("fall-a", write_config(tmp_path, extra='moodle_identifier = "id"'))


# ------------------------------------------------------------------ the student ids Moodle uses


@pytest.mark.parametrize("student", ["ana_maria.cruz", "s001", "a-b@uni.example", "x_y_z",
                                     "S0042", "o.brien"])
def test_the_default_pattern_takes_moodle_usernames(student):
    """nbgrader's FileNameCollectorPlugin matches the pattern against the full path."""
    path = f"/c/downloaded/{ASSIGNMENT}/extracted/dl/{student}__{NOTEBOOK}"
    match = re.match(LMS_FILENAME_REGEXP, path)
    assert match and match.groupdict() == {"student_id": student, "file_id": NOTEBOOK}


@pytest.mark.parametrize("name", [f"..__{NOTEBOOK}", f".hidden__{NOTEBOOK}",
                                  f"a..b__{NOTEBOOK}", f"__MACOSX/._s002__{NOTEBOOK}",
                                  f"s002_{NOTEBOOK}", f"s002 {NOTEBOOK}", f"__{NOTEBOOK}"])
def test_the_default_pattern_refuses_path_tricks_and_other_names(name):
    assert re.match(LMS_FILENAME_REGEXP, f"/c/extracted/dl/{name}") is None


def test_the_repository_cohorts_toml_uses_the_default_pattern():
    assert get_cohort("dl-2026-fall-a").lms_filename_regexp == LMS_FILENAME_REGEXP
    assert (REPO / "cohorts.toml").is_file()
