"""`autograde` grades the assignment it is given, never H2 by default: a course root of the
`vectors` test bundle (`--assignments tests/bundles`), graded without naming it (the root's
one assignment), records `vectors` with vectors' parts in results.json, grades.csv and the
gradebook; `report` of the same name then reads every result back. Naming the wrong
assignment, or none in a root that holds several, is one line."""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys

import pytest

from autograder.assignments.arguments import assignment_in_root
from autograder.base.course import RESULTS_JSON, Course
from autograder.results.result import load
from autograder.spec import REPO, SpecError
from tests.support.cli import one_line_error
from tests.support.h2 import SPEC as H2
from tests.support.vectors import BUNDLES, REFERENCE, VECTORS, WRONG_NORMALIZE, submit


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=600, check=False)


@pytest.mark.slow
def test_autograde_then_report_on_the_same_assignment(tmp_path):
    root = tmp_path / "course"
    submit(root, "s1", REFERENCE)
    submit(root, "s2", REFERENCE | {"normalize": WRONG_NORMALIZE})
    done = cli("autograde", "--root", str(root), "--assignments", str(BUNDLES),
               "--no-progress", "--jobs", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "\n2 submissions: 2 graded" in done.stdout, done.stdout  # after "bundle ... remembered"

    course = Course(root, VECTORS.name)
    results = {s: load(course.autograded(s) / RESULTS_JSON) for s in ("s1", "s2")}
    parts = list(VECTORS.part_points)
    for result in results.values():
        assert result.assignment == "vectors"
        assert [part.part for part in result.parts] == parts
        assert result.grading_key == VECTORS.grading_key
    assert results["s1"].score == VECTORS.total == 10
    assert results["s2"].score == 6  # normalize's 4 points lost, nothing else

    with course.grades_csv().open(newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle))
    assert set(parts) <= set(header) and not set(H2.part_points) & set(header)

    from nbgrader.api import Gradebook

    with Gradebook(course.db_url) as gradebook:
        assignment = gradebook.find_assignment("vectors")
        cells = {cell.name for notebook in assignment.notebooks for cell in notebook.grade_cells}
        assert cells == {VECTORS.part(part).grade_cell for part in parts}
        assert gradebook.find_submission("vectors", "s2").score == 6

    report = cli("report", "vectors", "--root", str(root), "--assignments", str(BUNDLES),
                 "--out", str(tmp_path / "report"))
    assert report.returncode == 0, report.stdout + report.stderr
    assert (tmp_path / "report" / "report.html").is_file()

    again = cli("autograde", "vectors", "--root", str(root), "--assignments", str(BUNDLES),
                "--no-progress")
    assert again.returncode == 0 and "(0 assessed in this run, 2 unchanged" in again.stdout


def root_assignment(root):
    """The assignment a command takes from ``root`` when none is named."""
    args = argparse.Namespace(assignment=None, assignments=[BUNDLES])
    return assignment_in_root(args, root).name


def test_the_root_s_one_assignment_is_taken_when_none_is_named(tmp_path):
    submit(tmp_path, "s1", REFERENCE)
    assert root_assignment(tmp_path) == "vectors"
    before = tmp_path / "before"
    (before / "release" / "vectors").mkdir(parents=True)  # released, nothing collected yet
    assert root_assignment(before) == "vectors"


@pytest.mark.parametrize("held", [(), ("vectors", H2.name)])
def test_none_or_several_assignments_are_one_line_naming_them(tmp_path, held):
    for name in held:
        (tmp_path / "submitted" / "s1" / name).mkdir(parents=True)
    with pytest.raises(SpecError, match="name the assignment") as raised:
        root_assignment(tmp_path)
    assert all(name in str(raised.value) for name in held)
    line = one_line_error(cli("autograde", "--root", str(tmp_path), "--assignments",
                              str(BUNDLES)))
    assert line == f"error: {raised.value}"
    assert not (tmp_path / "autograded").exists()


def test_an_assignment_that_is_no_bundle_is_the_registry_s_one_line(tmp_path):
    (tmp_path / "submitted" / "s1" / "h1_intro").mkdir(parents=True)
    line = one_line_error(cli("autograde", "--root", str(tmp_path)))
    assert "'h1_intro'" in line and H2.name in line
    assert not (tmp_path / "autograded").exists()
