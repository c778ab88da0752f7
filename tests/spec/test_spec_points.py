"""Points have one home (issue 27): a part's points are changed in the spec and nowhere else,
and a spec that contradicts itself or the hidden checks stops ``sync-solutions``,
``generate-release`` and ``autograde`` up front, in one line with exit 2.

The command tests run the real CLI on a copy of the grader's tree whose spec (or a check)
was edited, so the packaged spec is never touched."""

from __future__ import annotations

import csv
import dataclasses
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from autograder.bundles.h2_attention.samples import VARIANTS, build_submission
from autograder.grading import run_checks, score_parts
from autograder.grading.check_points import apportion
from autograder.spec import REPO, SPEC_FILE, SpecError, load_spec
from tests.support.cli import one_line_error
from tests.support.corpus import reference_source
from tests.support.h2 import H2, SPEC
from tests.support.in_process import InProcessStudent
from tests.support.pytest_session import run_in_pytest_session

SPEC_PATH = H2.root / SPEC_FILE
TREE = ("autograder", "solutions", "schemas", "source", "release")
TREE_FILES = ("pyproject.toml", "nbgrader_config.py")
# Two points move to stable_softmax from two parts that have points to spare; the total stays.
NEW_POINTS = {"stable_softmax": 16, "scaled_dot_product_attention": 6, "causal_mask": 4}
FAST = ["--no-progress", "--jobs", "1", "--cell-timeout", "10", "--call-timeout", "5"]


def with_points(text: str, points: dict[str, int]) -> str:
    """The spec's text with the named parts' ``points`` replaced."""
    for part, worth in points.items():
        text, count = re.subn(rf'(name = "{part}"\nkind = "\w+"\npoints = )\d+', rf"\g<1>{worth}", text)
        assert count == 1, part
    return text


# ------------------------------------------------------------ one edit changes the points


def test_shares_are_whole_exact_and_the_weights_when_the_part_equals_them():
    assert apportion(13, [1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1]) == [1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    assert apportion(16, [1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1]) == [2, 2, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    assert apportion(6, [1, 2, 2, 1, 1, 1]) == [1, 1, 1, 1, 1, 1]
    assert apportion(7, [3, 3, 1]) == [3, 3, 1] and apportion(9, [3, 3, 1]) == [4, 4, 1]


def test_every_check_keeps_the_points_it_had_before_weights():
    """Today every part's points equal its checks' weights' sum, so each check's share is
    its weight: no grade moves with the change of home."""
    checks = run_checks(InProcessStudent(reference_source()), H2)
    by_part: dict[str, int] = {}
    for check in checks:
        by_part[check.part] = by_part.get(check.part, 0) + check.max_points
    assert by_part == SPEC.function_points


def test_a_change_of_points_in_a_copy_of_the_spec_is_all_it_takes(tmp_path):
    """The issue's case: a part's points changed in the spec alone. Grading the reference
    with that spec gives the new maximum, every check passed, no grader error."""
    path = tmp_path / SPEC_FILE
    path.write_text(with_points(SPEC_PATH.read_text(encoding="utf-8"), NEW_POINTS), encoding="utf-8")
    spec = load_spec(path)
    assert {part: spec.part_points[part] for part in NEW_POINTS} == NEW_POINTS
    changed = dataclasses.replace(H2, spec=spec)  # H2 with the changed spec

    results = run_checks(InProcessStudent(reference_source()), changed)
    scores = score_parts(results, changed)  # raised "checks ... are worth 13" before
    assert all(result.status == "passed" for result in results)
    assert {part: (score.points, score.max_points) for part, score in scores.items()} == {
        part: (worth, worth) for part, worth in spec.function_points.items()}
    softmax = [result.max_points for result in results if result.part == "stable_softmax"]
    assert sum(softmax) == 16 and min(softmax) >= 1
    assert run_in_pytest_session(InProcessStudent(reference_source()), changed) == results


def test_a_copy_with_a_self_contradicting_spec_does_not_load(tmp_path):
    path = tmp_path / SPEC_FILE
    path.write_text(with_points(SPEC_PATH.read_text(encoding="utf-8"), {"stable_softmax": 14}),
                    encoding="utf-8")
    with pytest.raises(SpecError, match=rf"{re.escape(str(path))}: the parts add up to 101 points"):
        load_spec(path)


# ------------------------------------------------------------ the commands refuse


def copy_tree(root: Path) -> Path:
    """What the commands read (the grader, the reference, schemas, source, release)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for top in TREE:
        shutil.copytree(REPO / top, root / top, symlinks=True, ignore=ignore)
    for name in TREE_FILES:
        shutil.copy(REPO / name, root / name)
    return root


def edit(root: Path, relative: str, change: Callable[[str], str]) -> None:
    path = root / relative
    text = path.read_text(encoding="utf-8")
    assert change(text) != text, relative
    path.write_text(change(text), encoding="utf-8")


SPEC_RELATIVE = f"{SPEC_PATH.relative_to(REPO).as_posix()}"
BREAKS = {
    "sections": (SPEC_RELATIVE, lambda t: t.replace("identity = 2", "identity = 3", 1),
                 "part 'evidence': its sections add up to 15, not 14"),
    "total": (SPEC_RELATIVE, lambda t: with_points(t, {"stable_softmax": 14}),
              "the parts add up to 101 points, not the total of 100"),
    "unknown part": ("autograder/bundles/h2_attention/checks/test_cost.py",
                     lambda t: t.replace("@pytest.mark.part(NAME,", '@pytest.mark.part("entry_count",', 1),
                     "grades part 'entry_count', which the spec does not have"),
    "part too small": (SPEC_RELATIVE, lambda t: with_points(t, {"attention_scores": 3, "score_entry_count": 7}),
                       "part 'attention_scores': 3 points shared by weight among its 6 checks"),
}


def run(root: Path, *args: str) -> subprocess.CompletedProcess:
    """``python -m autograder ...`` from the copy (so the copy's package is the one imported)."""
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=root,
                          capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture(scope="module")
def reference_course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    course = tmp_path_factory.mktemp("course")
    build_submission(course, "s1", next(v for v in VARIANTS if v.name == "correct"))
    return course


@pytest.mark.parametrize("broken", list(BREAKS))
def test_each_command_refuses_an_inconsistent_spec_in_one_line(tmp_path, reference_course, broken):
    relative, change, complaint = BREAKS[broken]
    root = copy_tree(tmp_path / "tree")
    edit(root, relative, change)
    source, release = (root / "source").rglob("*.ipynb"), (root / "release").rglob("*")
    before = {path: path.read_bytes() for path in [*source, *release] if path.is_file()}
    course = tmp_path / "course"
    shutil.copytree(reference_course, course)
    commands = {
        "sync-solutions": ["sync-solutions"],
        "generate-release": ["generate-release"],
        "autograde": ["autograde", SPEC.name, "--root", str(course), *FAST],
    }
    for name, args in commands.items():
        line = one_line_error(run(root, *args))
        assert line.startswith("error: ") and complaint in line, (name, line)
    assert {path: path.read_bytes() for path in before} == before  # nothing synced or released
    assert not (course / "grades.csv").exists() and not (course / "autograded").exists()


def test_autograde_grades_with_the_changed_points_and_no_grader_error(tmp_path, reference_course):
    """End to end, the issue's failure: change points in the spec only, grade a correct
    submission, and it gets the new maximum in every part instead of a grader error."""
    root = copy_tree(tmp_path / "tree")
    edit(root, SPEC_RELATIVE, lambda t: with_points(t, NEW_POINTS))
    course = tmp_path / "course"
    shutil.copytree(reference_course, course)
    done = run(root, "autograde", SPEC.name, "--root", str(course), *FAST)
    assert done.returncode == 0, done.stdout + done.stderr
    with (course / "grades.csv").open(encoding="utf-8") as handle:
        (row,) = list(csv.DictReader(handle))
    assert row["status"] != "grader_error", row
    assert {part: float(row[part]) for part in NEW_POINTS} == NEW_POINTS
    assert float(row["total"]) == 100
