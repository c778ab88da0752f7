"""Two cohorts through the whole course workflow with a real nbgrader exchange.

release -> students fetch and submit (exchange) or hand in through an LMS (zip)
-> collect / zip_collect -> grade -> feedback -> export. Every student must
appear exactly once, in the right cohort's export, with the right score.
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
import time
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import nbformat
import pytest

from autograder.authoring.release import nbgrader_env
from autograder.authoring.sample_cohort import VARIANTS, solved_notebook, write_evidence
from autograder.batch.engine import BatchOptions
from autograder.integrations.cohorts import workflow
from autograder.integrations.cohorts.config import get_cohort
from autograder.sandbox.limits import Limits
from autograder.spec import SPEC

ASSIGNMENT = SPEC.name

pytestmark = pytest.mark.slow

NOTEBOOK = f"{ASSIGNMENT}.ipynb"
EVIDENCE = SPEC.evidence_file
FAST = BatchOptions(jobs=2, progress=False, limits=Limits(cell_timeout=5, call_timeout=3))
BUG = next(v for v in VARIANTS if v.name == "softmax_wrong_axis")


def write_config(path: Path, tmp: Path, due_a: str) -> Path:
    path.write_text(f"""
[defaults]
courses_root = "{tmp / 'courses'}"
exchange = "{tmp / 'exchange'}"
lms_filename_regexp = '.*/(?P<student_id>[A-Za-z0-9.@-]+)__(?P<file_id>[^/]+)$'

[cohorts.fall-a]
due = "{due_a}"

[cohorts.fall-b]
course_id = "fall-b-2026"
due = "2030-01-01 00:00:00 UTC"
""")
    return path


def nbgrader_as_student(cwd: Path, *args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd, env=nbgrader_env(),
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]


def fill_in(folder: Path, student: str, cohort: str, *, bug: bool = False, broken: bool = False,
            evidence_of: str | None = None) -> None:
    """What a student does in the fetched folder: solve, save evidence."""
    notebook = solved_notebook(student)
    if bug:
        BUG.apply(notebook, folder, student)
    text = nbformat.writes(notebook)
    (folder / NOTEBOOK).write_text(text[: len(text) // 3] if broken else text)
    write_evidence(folder, evidence_of or student, cohort=cohort)


def exchange_round(cohort_name: str, config: Path, home: Path, students: dict[str, dict]) -> None:
    """Each student fetches the release and submits through the exchange."""
    cohort = get_cohort(cohort_name, config)
    first = home / "fetched"
    first.mkdir(parents=True)
    nbgrader_as_student(first, "fetch_assignment", ASSIGNMENT, f"--course={cohort.course_id}",
                        f"--Exchange.root={cohort.exchange}")
    assert json.loads((first / ASSIGNMENT / SPEC.cohort_file).read_text()) == {"cohort": cohort_name}
    for student, how in students.items():
        student_home = home / student
        shutil.copytree(first, student_home)  # every student fetches the same release
        fill_in(student_home / ASSIGNMENT, student, cohort_name, **how)
        nbgrader_as_student(student_home, "submit", ASSIGNMENT, f"--course={cohort.course_id}",
                            f"--Exchange.root={cohort.exchange}", f"--student={student}")


def lms_zip(path: Path, cohort: str, students: dict[str, dict]) -> Path:
    """An LMS download: every file renamed <student>__<file>."""
    with zipfile.ZipFile(path, "w") as archive:
        for student, how in students.items():
            folder = path.parent / f"lms-{student}"
            folder.mkdir()
            fill_in(folder, student, cohort, **how)
            for name in (NOTEBOOK, EVIDENCE):
                archive.write(folder / name, f"{student}__{name}")
    return path


def read_csv(path: Path) -> dict[str, dict[str, str]]:
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    students = [row["student_id" if "student_id" in row else "student"] for row in rows]
    assert len(students) == len(set(students)), f"a student appears twice in {path.name}"
    return {student: row for student, row in zip(students, rows, strict=True)}


def test_two_cohorts_end_to_end(tmp_path):
    config = write_config(tmp_path / "cohorts.toml", tmp_path, "2030-01-01 00:00:00 UTC")
    for name in ("fall-a", "fall-b"):
        workflow.release(get_cohort(name, config))
    a, b = get_cohort("fall-a", config), get_cohort("fall-b", config)
    assert SPEC.cohort_file in workflow.ship_check(a) and NOTEBOOK in workflow.ship_check(b)
    assert (b.exchange / "fall-b-2026" / "outbound" / ASSIGNMENT).is_dir()

    home = tmp_path / "home"
    exchange_round("fall-a", config, home / "a", {
        "a1": {}, "a2": {"bug": True}, "a3": {"broken": True},
        "same-id": {}, "a5": {"evidence_of": "a1"},  # a5 copied a1's evidence file
    })
    due = datetime.now(UTC)
    time.sleep(1.2)
    exchange_round("fall-a", config, home / "late", {"a4": {}})
    # The deadline as the instructor set it: between the first submissions and a4's.
    write_config(config, tmp_path, f"{due:%Y-%m-%d %H:%M:%S.%f} UTC")
    (tmp_path / "lms").mkdir()
    archive = lms_zip(tmp_path / "lms" / "download.zip", "fall-b",
                      {"b1": {}, "b2": {"bug": True}, "same-id": {}})

    a, b = get_cohort("fall-a", config), get_cohort("fall-b", config)
    workflow.collect(a)
    workflow.collect(b, [archive])
    summaries = {name: workflow.grade(cohort, FAST) for name, cohort in (("a", a), ("b", b))}
    assert all(not s.count("grader_error") for s in summaries.values())
    assert len(workflow.feedback(a)) == 6 and len(workflow.feedback(b)) == 3
    files = {"a": workflow.export(a), "b": workflow.export(b)}

    ours_a, ours_b = read_csv(files["a"].grades), read_csv(files["b"].grades)
    theirs_a, theirs_b = read_csv(files["a"].nbgrader), read_csv(files["b"].nbgrader)
    assert set(ours_a) == {"a1", "a2", "a3", "a4", "a5", "same-id"}
    assert set(ours_b) == {"b1", "b2", "same-id"}
    # nbgrader's export (from each cohort's own gradebook) agrees with ours, row for row.
    assert set(theirs_a) == set(ours_a)
    assert set(theirs_b) == set(ours_b)
    for ours, theirs in ((ours_a, theirs_a), (ours_b, theirs_b)):
        for student, row in theirs.items():
            assert float(row["score"]) == float(ours[student]["total"]), student

    assert float(ours_a["a1"]["total"]) == 100 and float(ours_b["b1"]["total"]) == 100
    assert float(ours_a["same-id"]["total"]) == 100 and float(ours_b["same-id"]["total"]) == 100
    assert ours_a["a2"]["stable_softmax"] == ours_b["b2"]["stable_softmax"] != "16"
    assert ours_a["a3"]["status"] == "ungradable" and "JSON" in ours_a["a3"]["reason"]
    assert float(ours_a["a5"]["evidence"]) < 14 and ours_a["a5"]["needs_review"] == "yes"
    assert [s for s, row in ours_a.items() if row["late"] == "yes"] == ["a4"]
    # An LMS download carries no submission time (zip_collect matching files by name writes
    # no timestamp.txt): against a due date, `late` is unknown and a TA checks.
    assert all(row["late"] == "unknown" for row in ours_b.values())
    assert (a.root / "feedback" / "a2" / ASSIGNMENT / f"{ASSIGNMENT}.html").exists()
    assert "softmax_wrong_axis" in files["a"].summary.read_text()
    # Nothing of one cohort is in the other's course root.
    assert not (b.root / "submitted" / "a1").exists() and not (a.root / "submitted" / "b1").exists()
    shutil.rmtree(tmp_path / "home", ignore_errors=True)
