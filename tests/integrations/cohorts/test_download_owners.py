"""Issue 38, items 1 and 5: whose files an LMS download holds, and a second download.

1. Each file of a download belongs to the participant of its top-level entry (Moodle's
   ``<full name>_<participant id>_assignsubmission_<plugin>``), whatever folders lie below:
   Alice's upload holding a folder (or a file) named after Bob's prefix is refused with
   both named, never filed under Bob; two files of one student from different entries (or
   two downloads) are refused in one line naming both.
5. A second download with a student already collected is a new version of that student's
   submission, never a failure of the whole cohort; a download that fails leaves nothing
   behind, and the next one collects only itself.

Every case runs the real ``cohort collect --zip`` and the real ``nbgrader zip_collect``,
on zips laid out as Moodle writes them (``tests/integrations/cohorts/test_moodle_download.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.base.course import Course
from autograder.batch import receipts, versions
from autograder.integrations.cohorts import workflow
from autograder.integrations.cohorts.archives import ArchiveError
from tests.integrations.cohorts.test_lms_archives import (
    ASSIGNMENT,
    EVIDENCE,
    NOTEBOOK,
    cohort_cli,
    fake_release,
    honest,
    submitted,
    tree,
    write_zip,
)
from tests.integrations.cohorts.test_lms_archives import write_config as generic_config
from tests.integrations.cohorts.test_moodle_download import (
    moodle_download,
    moodle_prefix,
    notebook,
    unpack_with,
    worksheet,
    write_config,
)
from tests.support.cli import one_line_error

pytestmark = pytest.mark.slow

ALICE = ("Alice Smith", 4817201, "asmith", "alice@uni.example",
         {NOTEBOOK: notebook("alice"), EVIDENCE: b'{"who": "alice"}\n'})
BOB = ("Bob Jones", 4817202, "bjones", "bob@uni.example", {})  # submitted nothing
PEOPLE = [ALICE, BOB]


def alice_with(inner: str) -> list[tuple[str, bytes]]:
    """Alice's own submission, plus one file of her upload at ``inner`` in her folder."""
    prefix = f"{moodle_prefix('Alice Smith', 4817201)}_assignsubmission_file"
    return [*moodle_download(students=[ALICE]), (f"{prefix}/{inner}", notebook("alice, as bob"))]


def moodle_cohort(tmp_path: Path):  # noqa: ANN201
    worksheet(tmp_path / "worksheet.csv", PEOPLE)
    config = write_config(tmp_path)
    return config, fake_release(config)


# ------------------------------------------------------------------ item 1: whose files


@pytest.mark.parametrize("inner", [
    f"Bob Jones_4817202_assignsubmission_file/{NOTEBOOK}",  # Moodle's folder, nested
    f"work/Bob Jones_4817202_assignsubmission_file_/{NOTEBOOK}",  # before 4.1, deeper
    f"Bob Jones_4817202_assignsubmission_file_{NOTEBOOK}",  # Moodle's flat name, nested
    f"participant_4817202_assignsubmission_file/{NOTEBOOK}",  # blind marking: no name check
])
def test_a_folder_named_for_another_participant_is_refused_naming_both(tmp_path, inner):
    config, cohort = moodle_cohort(tmp_path)
    download = write_zip(tmp_path / "moodle.zip", alice_with(inner))
    before = tree(cohort.root)
    line = one_line_error(cohort_cli(config, "collect", "fall-a", "--zip", str(download)))
    assert line.startswith(f"error: --zip {download} refused: "), line
    assert "participant 4817201" in line and "participant 4817202" in line, line
    assert "asmith" in line and "bjones" in line, line  # both students, by their ids
    assert "nothing was unpacked" in line
    assert tree(cohort.root) == before  # nothing written: no staging, no submitted/bjones
    assert not (cohort.root / "submitted").exists()


def test_alices_own_folder_inside_her_upload_is_hers(tmp_path):
    """Her own prefix again below the top (she uploaded the folder she downloaded): hers."""
    roster = worksheet(tmp_path / "worksheet.csv", PEOPLE)
    prefix = f"{moodle_prefix('Alice Smith', 4817201)}_assignsubmission_file"
    members = [(f"{prefix}/{prefix}/{NOTEBOOK}", notebook("alice"))]
    [done] = unpack_with(tmp_path, roster, members)
    assert done.moodle.renames == {members[0][0]: f"asmith__{NOTEBOOK}"}


def test_a_mac_copy_inside_a_participants_folder_is_filed_for_nobody_else(tmp_path):
    """`__MACOSX/` or `._` inside Alice's folder was left under its own name, which the
    default pattern files under whoever it names (`bjones__...`): it is not unpacked."""
    roster = worksheet(tmp_path / "worksheet.csv", PEOPLE)
    prefix = f"{moodle_prefix('Alice Smith', 4817201)}_assignsubmission_file"
    sneaky = f"{prefix}/__MACOSX/bjones__{NOTEBOOK}"
    [done] = unpack_with(tmp_path, roster, [*alice_with("notes.ipynb")[:2],
                                            (sneaky, notebook("x"))])
    unpacked = [p.name for p in done.folder.rglob("*") if p.is_file()]
    assert f"bjones__{NOTEBOOK}" not in unpacked and sneaky in done.moodle.dropped


def test_a_moodle_folder_below_a_wrapper_folder_is_refused(tmp_path):
    """A download re-zipped with a folder around it: Moodle's names are not at the top."""
    roster = worksheet(tmp_path / "worksheet.csv", PEOPLE)
    members = [(f"DL-H2/{name}", data) for name, data in moodle_download(students=[ALICE])]
    with pytest.raises(ArchiveError, match="below the top of the download") as refused:
        unpack_with(tmp_path, roster, members)
    assert "\n" not in str(refused.value)


def test_two_entries_of_one_student_are_refused_in_one_line(tmp_path):
    """The same student under two participant ids (the worksheet names one username twice)."""
    twin = ("Alice Smith", 4817299, "asmith", "alice@uni.example", {NOTEBOOK: notebook("b")})
    roster = worksheet(tmp_path / "worksheet.csv", [ALICE, twin])
    with pytest.raises(ArchiveError) as refused:
        unpack_with(tmp_path, roster, moodle_download(students=[ALICE, twin]))
    line = str(refused.value)
    assert "4817201" in line and "4817299" in line and "\n" not in line
    assert f"asmith__{NOTEBOOK}" in line


def test_a_generic_download_files_nested_work_under_its_top_level_entry(tmp_path):
    """<student id>__<file name> names (Canvas-style): a folder named for s001 holding a
    file named for s002 is refused naming both; so is one student in two downloads."""
    config = generic_config(tmp_path)
    cohort = fake_release(config)
    nested = write_zip(tmp_path / "nested.zip",
                       [*honest("s001"), (f"s001__work/s002__{NOTEBOOK}", b"{}")])
    line = one_line_error(cohort_cli(config, "collect", "fall-a", "--zip", str(nested)))
    assert "s001" in line and "s002" in line and "refused" in line, line
    assert not (cohort.root / "downloaded").exists() and not (cohort.root / "submitted").exists()

    first = write_zip(tmp_path / "first.zip", honest("s001"))
    again = write_zip(tmp_path / "again.zip", honest("s001", "s002"))
    line = one_line_error(cohort_cli(config, "collect", "fall-a", "--zip", str(first),
                                     "--zip", str(again)))
    assert "first.zip's s001__" in line and "again.zip's s001__" in line, line
    assert not (cohort.root / "downloaded").exists() and not (cohort.root / "submitted").exists()


# ------------------------------------------------------------------ item 5: a second download


def test_a_second_download_is_a_new_version_of_a_returning_student(tmp_path):
    config = generic_config(tmp_path)
    cohort = fake_release(config)
    course = Course(cohort.root, ASSIGNMENT)
    first = write_zip(tmp_path / "download.zip", honest("s001", "s002"))
    done = cohort_cli(config, "collect", "fall-a", "--zip", str(first),
                      "--received", "2026-12-14 23:00 UTC")
    assert done.returncode == 0, done.stderr
    old = (course.submitted("s001") / NOTEBOOK).read_bytes()

    late = [(name, data + b" ") if name.startswith("s001") else (name, data)
            for name, data in honest("s001", "s003")]
    done = cohort_cli(config, "collect", "fall-a", "--zip", str(write_zip(tmp_path / "late.zip",
                      late)), "--received", "2026-12-16 09:00 UTC")
    assert done.returncode == 0, done.stderr
    assert submitted(cohort) == {s: [EVIDENCE, NOTEBOOK] for s in ("s001", "s002", "s003")}
    assert (course.submitted("s001") / NOTEBOOK).read_bytes() == dict(late)[f"s001__{NOTEBOOK}"]
    kept = versions.kept(course, "s001")
    assert len(kept) == 2 and old in [(v.files / NOTEBOOK).read_bytes() for v in kept]
    assert "1 new, 1 updated, 1 unchanged" in done.stdout, done.stdout
    got = receipts.load(cohort.root, ASSIGNMENT)
    assert got["s001"].received_at.startswith("2026-12-16 09:00")  # the new arrival
    assert got["s002"].received_at.startswith("2026-12-14 23:00")
    assert got["s003"].received_at.startswith("2026-12-16 09:00")
    archive = cohort.root / "downloaded" / ASSIGNMENT / "archive"
    assert [p.name for p in archive.iterdir()] == ["late"]  # only this download collected


def test_a_failed_download_leaves_nothing_and_the_next_one_collects_only_itself(
        tmp_path, monkeypatch):
    config = generic_config(tmp_path)
    cohort = fake_release(config)
    workflow.collect(cohort, [write_zip(tmp_path / "first.zip", honest("s001"))])
    before = tree(cohort.root / "submitted")
    downloaded = tree(cohort.root / "downloaded")
    real = workflow.nbgrader

    def failing(cohort_, *args: str) -> str:
        log = real(cohort_, *args)  # it copied the files, then failed
        if args[0] == "zip_collect":
            raise workflow.WorkflowError(f"nbgrader zip_collect failed for {cohort_.name}:\n"
                                         "[ZipCollectApp | INFO] Copying ...\n"
                                         "[ZipCollectApp | ERROR] No space left on device")
        return log

    monkeypatch.setattr(workflow, "nbgrader", failing)
    bad = [(name, data + b" ") for name, data in honest("s001", "s002")]
    with pytest.raises(workflow.WorkflowError) as failed:
        workflow.collect(cohort, [write_zip(tmp_path / "bad.zip", bad)])
    line = str(failed.value)
    assert "\n" not in line and "No space left on device" in line, line
    assert tree(cohort.root / "submitted") == before  # s001 as it was, no s002
    assert tree(cohort.root / "downloaded") == downloaded  # as the first collect left it

    monkeypatch.setattr(workflow, "nbgrader", real)
    workflow.collect(cohort, [write_zip(tmp_path / "good.zip", honest("s003"))])
    assert submitted(cohort) == {s: [EVIDENCE, NOTEBOOK] for s in ("s001", "s003")}
    assert tree(cohort.root / "submitted" / "s001") == {
        k.removeprefix("s001/"): v for k, v in before.items() if k.startswith("s001/")}
    archive = cohort.root / "downloaded" / ASSIGNMENT / "archive"
    assert [p.name for p in archive.iterdir()] == ["good"]
