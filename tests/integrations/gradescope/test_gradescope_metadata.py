"""Gradescope as it documents itself (issue 29): the real run_autograder of a built zip, in a
tree laid out like /autograder, with submission_metadata.json as Gradescope's
documentation writes it (``users: [{email, id, name}]``, no ``sid`` unless the course has
student ids; ``created_at``; ``assignment.due_date`` / ``late_due_date``).

* a course without student ids maps them at build time (``--student-id email-local``, or
  ``--roster``): a correct submission scores 100/100, its evidence checked against that id;
  with no mapping it is graded without an identity check, flagged for a person (a hidden
  "needs a person" entry) and run_autograder's output says why in one line;
* the folder the README tells students to keep (``<assignment>/<assignment>.ipynb``) is
  found one level down; two such folders, or none, are said with what was found;
* a submission after the due date is recorded late with the due date, and the zip's late
  policy takes its penalty, shown to the student;
* an assignment without an evidence file needs no student id at all.

The student ids are H2's business (its evidence file is checked against them); the folder
and lateness cases grade the small ``vectors`` test bundle (10 points, no evidence file),
which takes seconds, not H2's torch.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest

from autograder.integrations.gradescope import build, results, scripts
from autograder.results.late_policy import parse
from tests.bundles import students
from tests.integrations.gradescope.test_gradescope_zip import (
    check_gradescope_fields,
    correct_submission,
    unpack_like_gradescope,
)
from tests.support.h2 import SPEC

pytestmark = pytest.mark.slow

SECOND = students.assignment()  # vectors: 10 points, no evidence file
VECTORS = (SECOND.name, "--assignments", str(students.BUNDLES))  # `gradescope build` of it
TOTAL = SECOND.total_points
GRADED = {SPEC.name: SPEC, SECOND.name: SECOND}  # by the name a built tree grades

DUE = "2026-03-01T23:59:00.000000-08:00"  # 2026-03-02 07:59 UTC
LATE_DUE = "2026-03-03T23:59:00.000000-08:00"
ON_TIME = "2026-03-01T22:10:05.123456-08:00"
LATE = "2026-03-02T09:30:00.000000-08:00"  # 9 h 31 min late: one started day
VERY_LATE = "2026-03-04T08:00:00.000000-08:00"  # after the late due date too: 3 started days


def documented_metadata(email: str, created_at: str = ON_TIME, **user: object) -> dict:
    """submission_metadata.json as Gradescope documents it (a ``sid`` only if given)."""
    return {
        "id": 123456,
        "created_at": created_at,
        "assignment": {"due_date": DUE, "group_size": None, "group_submission": False,
                       "id": 25828, "course_id": 1234, "late_due_date": LATE_DUE,
                       "release_date": "2026-02-15T00:00:00.000000-08:00",
                       "title": "H2: attention", "total_points": "100.0"},
        "submission_method": "upload",
        "users": [{"email": email, "id": 1234, "name": "A Student", **user}],
        "previous_submissions": [],
    }


def grade_in_tree(root: Path, make_submission: Callable[[Path, str], None], student: str,
                  metadata: dict) -> tuple[dict, str]:
    """Run the tree's run_autograder (Gradescope's copy at the top) on one submission;
    (results.json, what run_autograder printed)."""
    for stale in ("submission", "results"):
        shutil.rmtree(root / stale, ignore_errors=True)
    (root / "results").mkdir()
    make_submission(root / "submission", student)
    (root / "submission_metadata.json").write_text(json.dumps(metadata), encoding="utf-8")
    env = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}/usr/bin:/bin",
           "HOME": str(root), "LANG": "C.UTF-8"}
    done = subprocess.run([str(root / "run_autograder")], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    data = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    graded = json.loads((root / "source" / scripts.CONFIG_JSON).read_text())["assignment"]
    check_gradescope_fields(data, GRADED[graded].part_points)
    return data, done.stdout


def built_tree(tmp_path: Path, name: str, *build_options: str,
               assignment: tuple[str, ...] = (SPEC.name,)) -> Path:
    """`gradescope build` (the command) of ``assignment`` (H2, or ``VECTORS``) with
    ``build_options``, unpacked like Gradescope."""
    out = tmp_path / f"zip-{name}"
    done = subprocess.run([sys.executable, "-m", "autograder", "gradescope", "build",
                           *assignment, "--out", str(out), *build_options],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return unpack_like_gradescope(out / build.ZIP_NAME, tmp_path / f"autograder-{name}")


def review_entry(data: dict) -> dict | None:
    return next((t for t in data["tests"] if t["name"] == results.NEEDS_A_PERSON), None)


def evidence_test(data: dict) -> dict:
    return next(t for t in data["tests"] if t["tags"] == ["evidence"])


def test_a_course_without_student_ids_maps_them_at_build_time(tmp_path):
    # The part before the @: s301@example.org submitted the evidence of STUDENT_ID "s301".
    local = built_tree(tmp_path, "local", "--student-id", "email-local")
    data, printed = grade_in_tree(local, correct_submission, "s301",
                                  documented_metadata("s301@example.org"))
    assert data["score"] == data["max_score"] == SPEC.total_points, data["output"]
    assert evidence_test(data)["status"] == "passed"
    extra = data["extra_data"]
    assert extra["student"] == "s301" and extra["gradescope"]["student_id_from"] == "email-local"
    assert extra["late"] is False and extra["due"] == "2026-03-02 07:59:00 UTC"
    assert extra["submitted_at"] == "2026-03-02 06:10:05 UTC" and not extra["needs_review"]
    assert review_entry(data) is None and "needs a person" not in printed

    # A roster (Gradescope's columns, staff rows and all): an id the email does not give.
    roster = tmp_path / "roster.csv"
    roster.write_text("\ufeffFirst Name,Last Name,SID,Email,Role\n"
                      "Ada,Lovelace,u1815,Ada.Lovelace@Uni.example,Student\n"
                      "Tom,Assistant,,ta@uni.example,TA\n", encoding="utf-8")
    by_roster = built_tree(tmp_path, "roster", "--roster", str(roster))
    data, _ = grade_in_tree(by_roster, correct_submission, "u1815",
                            documented_metadata("ada.lovelace@uni.example"))
    assert data["score"] == data["max_score"], data["output"]
    assert data["extra_data"]["student"] == "u1815"
    assert data["extra_data"]["gradescope"]["student_id_from"] == "roster"

    # A sid, when the course has student ids, comes first whatever the zip maps.
    data, _ = grade_in_tree(by_roster, correct_submission, "s777",
                            documented_metadata("ada.lovelace@uni.example", sid="s777"))
    assert data["score"] == data["max_score"] and data["extra_data"]["student"] == "s777"


def test_no_sid_and_no_mapping_is_flagged_for_a_person_never_a_wrong_id(tmp_path):
    tree = built_tree(tmp_path, "plain")
    data, printed = grade_in_tree(tree, correct_submission, "s302",
                                  documented_metadata("s302@example.org"))
    extra = data["extra_data"]
    # Graded without an identity check (no "not yours"), and a person must look.
    assert data["score"] == data["max_score"], data["output"]
    assert not any("not yours" in m for p in extra["parts"] for m in p["messages"])
    assert extra["needs_review"] and extra["student"] == "s302@example.org"
    assert extra["gradescope"]["student_id_from"] == "none"
    entry = review_entry(data)
    assert entry is not None and entry["visibility"] == "hidden", data["tests"]
    assert "no student id for s302@example.org" in entry["output"]
    assert "--student-id email" in entry["output"]
    lines = [line for line in printed.splitlines() if line.startswith("no student id")]
    assert len(lines) == 1 and "the zip maps none" in lines[0], printed
    assert "needs a person:" in printed
    # The student reads that a person checks, not the instructor's fix.
    assert "a person will check" in data["output"] and "--roster" not in data["output"]


def vectors_submission(folder: Path, student: str) -> None:  # noqa: ARG001 - no evidence
    """A correct submission of the vectors bundle in ``folder``."""
    students.write_submission(folder)


def in_folder(folder: Path, student: str) -> None:
    """The upload of a student who kept the assignment's folder."""
    vectors_submission(folder / students.NAME, student)


def test_the_assignment_folder_one_level_down_is_found(tmp_path):
    tree = built_tree(tmp_path, "folder", assignment=VECTORS)
    # setup.sh's environment is the one run_autograder uses, when there is one.
    marker = tmp_path / "venv-used"
    venv_python = tree / "venv" / "bin" / "python"
    venv_python.parent.mkdir(parents=True)
    venv_python.write_text(f"#!/bin/bash\ntouch {marker}\nexec {sys.executable} \"$@\"\n")
    venv_python.chmod(0o755)
    data, _ = grade_in_tree(tree, in_folder, "s303",
                            documented_metadata("s303@example.org", sid="s303"))
    assert data["score"] == data["max_score"] == TOTAL, data["output"]
    assert f"found in the folder '{students.NAME}'" in data["output"].replace("\\", "")
    assert marker.exists()

    def two_folders(folder: Path, student: str) -> None:
        vectors_submission(folder / "draft", student)
        vectors_submission(folder / "final", student)

    data, _ = grade_in_tree(tree, two_folders, "s304",
                            documented_metadata("s304@example.org", sid="s304"))
    output = data["output"].replace("\\", "")
    assert data["score"] == 0 and data["extra_data"]["status"] == "ungradable"
    assert "several folders hold notebooks ('draft', 'final')" in output, output

    def two_levels_down(folder: Path, student: str) -> None:
        vectors_submission(folder / "work" / students.NAME, student)
        (folder / "notes.txt").write_text("hello")

    data, _ = grade_in_tree(tree, two_levels_down, "s305",
                            documented_metadata("s305@example.org", sid="s305"))
    output = data["output"].replace("\\", "")
    assert data["score"] == 0 and "your upload holds notes.txt, work/" in output, output


def test_a_late_submission_is_recorded_late_and_the_course_policy_applied(tmp_path):
    tree = built_tree(tmp_path, "late", "--late-policy", "10%/day, cap 50%", assignment=VECTORS)
    data, printed = grade_in_tree(tree, vectors_submission, "s306",
                                  documented_metadata("s306@example.org", LATE))
    extra = data["extra_data"]
    assert extra["late"] is True and extra["due"] == "2026-03-02 07:59:00 UTC"
    assert extra["submitted_at"] == "2026-03-02 17:30:00 UTC"
    assert extra["late_policy"] == parse("10%/day, cap 50%").describe()
    assert extra["late_penalty"] == 1 and data["score"] == 9 == TOTAL - 1, data["output"]
    assert f"Late penalty: −1 of {TOTAL} points" in data["output"]
    assert "late penalty -1)" in printed

    data, _ = grade_in_tree(tree, vectors_submission, "s307",
                            documented_metadata("s307@example.org", VERY_LATE))
    extra = data["extra_data"]
    assert extra["late_penalty"] == 3 and data["score"] == 7
    assert any("after the late due date 2026-03-04 07:59:00 UTC" in n for n in (note["text"] for note in extra["ta_notes"]))

    # An extension: the user's own due date, when the metadata has one, is the one.
    extended = documented_metadata("s308@example.org", LATE, assignment={
        "due_date": "2026-03-05T23:59:00-08:00", "late_due_date": None,
        "release_date": "2026-02-15T00:00:00-08:00"})
    data, _ = grade_in_tree(tree, vectors_submission, "s308", extended)
    assert data["extra_data"]["late"] is False and data["score"] == TOTAL
    assert data["extra_data"]["due"] == "2026-03-06 07:59:00 UTC"


def test_an_assignment_without_an_evidence_file_needs_no_student_id(tmp_path):
    """The id decides only evidence inputs: without a sid, the second bundle's submission
    (uploaded in its folder) is graded as it is, with nothing for a person."""
    folder = tmp_path / "submission" / students.NAME
    folder.mkdir(parents=True)
    nbformat.write(students.solved_notebook(), folder / f"{students.NAME}.ipynb")
    (tmp_path / "submission_metadata.json").write_text(
        json.dumps(documented_metadata("s310@example.org")), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "run-autograder", students.NAME, "--assignments",
         str(students.BUNDLES), "--submission", str(tmp_path / "submission"),
         "--metadata", str(tmp_path), "--results", str(tmp_path / "results") + "/"],
        capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads((tmp_path / "results" / "results.json").read_text(encoding="utf-8"))
    assert data["score"] == data["max_score"] > 0, data["output"]
    assert not data["extra_data"]["needs_review"] and review_entry(data) is None
    assert "no student id" not in done.stdout and data["extra_data"]["ta_notes"] == []
    assert data["extra_data"]["student"] == "s310@example.org"
