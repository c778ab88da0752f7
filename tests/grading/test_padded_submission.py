"""Padding never hides a resubmission (issue 38): the files grading reads are hashed in full
whatever else the folder holds, and what is too large to hash is named and sent to a person.

Three 70 MiB files that sort first (sparse: no disk is written) used to use up the 200 MiB
the hash reads, so a changed notebook, evidence file or timestamp.txt went unseen: a TA's
decision still applied to a resubmission, and a broken notebook stayed "graded"."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from autograder.base.course import RESULTS_JSON, TIMESTAMP_TXT, Course
from autograder.batch import receipts
from autograder.grading.submission import MAX_HASHED_BYTES, hash_folder, load_submission
from autograder.results.result import load
from tests.support.vectors import BUNDLES, VECTORS, submit

# the small test bundle: hashing a submission folder is the engine's, not H2's
PAD = 70 * 2**20
EVIDENCE = "evidence.json"  # an evidence file as a bundle may name one: a top-level JSON file


def pad(folder: Path, count: int = 3) -> list[str]:
    names = [f"A{index}-notes.bin" for index in range(count)]
    for name in names:
        with (folder / name).open("wb") as handle:
            handle.truncate(PAD)  # sparse: read as zeros, nothing written
    return names


def test_what_grading_reads_is_hashed_whatever_pads_it(tmp_path):
    folder = submit(tmp_path, "s1")
    (folder / TIMESTAMP_TXT).write_text(receipts.time_text(datetime(2026, 12, 1, tzinfo=UTC)),
                                        encoding="utf-8")
    (folder / EVIDENCE).write_text('{"measured": [1, 2, 3]}', encoding="utf-8")
    names = pad(folder)
    assert 3 * PAD > MAX_HASHED_BYTES
    before = hash_folder(folder)
    assert before.unhashed == (names[-1],)  # the third pad is past the budget, and named
    for changed in (VECTORS.notebook, TIMESTAMP_TXT, EVIDENCE):
        path = folder / changed
        original = path.read_bytes()
        path.write_bytes(original + b" ")
        assert hash_folder(folder).digest != before.digest, changed
        path.write_bytes(original)
    assert hash_folder(folder) == before


def test_a_folder_with_files_not_hashed_in_full_goes_to_a_person(tmp_path):
    folder = submit(tmp_path, "s1")
    assert not any(note.review for note in load_submission(folder, "s1", assignment=VECTORS).notes)
    pad(folder)
    (note,) = [note for note in load_submission(folder, "s1", assignment=VECTORS).notes
               if note.review]
    assert note.code == "unhashed" and "A2-notes.bin" in note.text


@pytest.mark.slow
def test_a_broken_notebook_behind_padding_is_regraded_ungradable(tmp_path):
    root = tmp_path / "course"
    folder = submit(root, "s1")
    pad(folder)
    course = Course(root, VECTORS.name)

    def autograde() -> None:
        subprocess.run([sys.executable, "-m", "autograder", "autograde", VECTORS.name, "--root",
                        str(root), "--assignments", str(BUNDLES), "--no-progress", "--jobs", "1"],
                       check=True, capture_output=True, timeout=600)

    autograde()
    first = load(course.autograded("s1") / RESULTS_JSON)
    assert first.status == "graded" and first.needs_review  # unhashed: a person compares
    (folder / VECTORS.notebook).write_text('{"cells": [')  # broken, resubmitted: no --force
    autograde()
    again = load(course.autograded("s1") / RESULTS_JSON)
    assert again.status == "ungradable" and again.submission_hash != first.submission_hash
