"""A course root remembers where its bundle lives: a command given ``--assignments DIR`` in a
root writes the bundle's folder into its course.json, and later commands there (``status``,
``review``, ``autograde``, the cohort steps) find it without being told. A remembered folder
that is gone is one line saying which and what to do, exit 2, never a traceback nor a quiet
fall back to a packaged bundle of the same name; the package's own bundles are never written
down; a bundle without its source notebook is refused by ``cohort release`` in one line."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.assignments.remembered import BundleGone, load_in_root, remember
from autograder.integrations.cohorts.config import get_cohort
from autograder.results.root_settings import COURSE_JSON
from autograder.spec import SpecError
from tests.bundles.students import BUNDLES
from tests.support.cli import one_line_error
from tests.support.h2 import H2

NAME = "vectors"


def command(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture
def place(tmp_path: Path) -> tuple[Path, Path]:
    """(a folder holding a copy of the vectors bundle, a course root with one submission)."""
    bundles = tmp_path / "bundles"
    shutil.copytree(BUNDLES / NAME, bundles / NAME, ignore=shutil.ignore_patterns("__pycache__"))
    root = tmp_path / "course"
    (root / "submitted" / "s1" / NAME).mkdir(parents=True)
    (root / "autograded").mkdir()
    return bundles, root


def remembered(root: Path) -> dict:
    return json.loads((root / COURSE_JSON).read_text(encoding="utf-8"))


def test_a_folder_given_once_is_remembered_and_found_again(place, tmp_path):
    bundles, root = place
    done = command(tmp_path, "status", "--root", str(root), "--assignments", str(bundles))
    assert done.returncode == 0, done.stderr
    assert remembered(root) == {NAME: {"bundle": str((bundles / NAME).resolve())}}
    done = command(tmp_path, "status", "--root", str(root))  # no --assignments
    assert done.returncode == 0, done.stderr
    assert f"course root {root}: {NAME}" in done.stdout
    assert f"bundle: {(bundles / NAME).resolve()}" in done.stdout  # where it was found
    done = command(tmp_path, "review", "--root", str(root), "list")
    assert done.returncode == 0, done.stderr


def test_a_folder_that_is_gone_is_one_line_saying_what_to_do(place, tmp_path):
    bundles, root = place
    assert command(tmp_path, "status", "--root", str(root), "--assignments",
                   str(bundles)).returncode == 0
    moved = shutil.move(bundles, tmp_path / "moved")
    expected = (f"error: course root {root} remembers the bundle of {NAME} at "
                f"{(bundles / NAME).resolve()} (in {root / COURSE_JSON}), which is no longer "
                f"there: pass --assignments DIR, the folder that now holds {NAME}/, and the "
                "root remembers that instead")
    for argv in (["status", "--root", str(root)], ["review", "--root", str(root), "list"],
                 ["autograde", "--root", str(root), "--no-progress"],
                 ["report", "--root", str(root), "--out", str(tmp_path / "report")]):
        assert one_line_error(command(tmp_path, *argv)) == expected, argv
    # Told the new place, the root remembers it instead.
    done = command(tmp_path, "status", "--root", str(root), "--assignments", str(moved))
    assert done.returncode == 0, done.stderr
    assert remembered(root)[NAME]["bundle"] == str((Path(moved) / NAME).resolve())


def test_the_folder_given_wins_over_the_one_remembered(place, tmp_path):
    bundles, root = place
    other = tmp_path / "other"
    shutil.copytree(bundles, other)
    assert load_in_root(root, NAME, [bundles]).root == (bundles / NAME).resolve()
    remember(root, load_in_root(root, NAME, [bundles]))
    assert load_in_root(root, NAME).root == (bundles / NAME).resolve()
    assert load_in_root(root, NAME, [other]).root == (other / NAME).resolve()


def test_a_packaged_bundle_is_never_written_down(tmp_path):
    assert remember(tmp_path, H2) == ""
    assert not (tmp_path / COURSE_JSON).exists()


def test_a_gone_folder_is_not_replaced_by_a_packaged_bundle_of_the_same_name(tmp_path):
    (tmp_path / COURSE_JSON).write_text(json.dumps(
        {H2.name: {"bundle": str(tmp_path / "gone" / H2.name)}}))
    with pytest.raises(BundleGone, match="which is no longer there"):
        load_in_root(tmp_path, H2.name)


def test_a_remembered_bundle_that_is_not_a_path_is_one_line(tmp_path):
    (tmp_path / COURSE_JSON).write_text(json.dumps({NAME: {"bundle": 7}}))
    with pytest.raises(SpecError, match=f"{NAME!r}'s bundle 7 is not a folder's path"):
        load_in_root(tmp_path, NAME)


def test_a_cohort_finds_its_bundle_where_its_root_remembers_it(place, tmp_path):
    bundles, _ = place
    config = tmp_path / "cohorts.toml"
    config.write_text(f'[cohorts.fall]\nassignment = "{NAME}"\ncourses_root = "courses"\n')
    cohort = get_cohort("fall", config)
    cohort.root.mkdir(parents=True)
    remember(cohort.root, get_cohort("fall", config, folders=[bundles]).bundle())
    assert cohort.assignment_folders == ()
    assert cohort.bundle().root == (bundles / NAME).resolve()


def test_cohort_release_of_a_bundle_without_its_source_notebook_is_one_line(place, tmp_path):
    bundles, _ = place  # vectors keeps no source/
    config = tmp_path / "cohorts.toml"
    config.write_text(f'[cohorts.fall]\nassignment = "{NAME}"\ncourses_root = "courses"\n'
                      'exchange = "exchange"\n')
    line = one_line_error(command(tmp_path, "cohort", "--config", str(config), "release",
                                  "fall", "--assignments", str(bundles)))
    bundle = (bundles / NAME).resolve()
    assert line == (f"error: assignment {NAME} has no source notebook "
                    f"{bundle / 'source' / 'vectors.ipynb'}: a cohort's release is generated "
                    "from it; put it in the bundle's source folder, or name that folder with "
                    f'`source = "..."` in {bundle / "assignment.toml"}')


def test_autograde_remembers_the_folder_and_says_so(place, tmp_path):
    bundles, root = place  # s1 handed in nothing: ungradable, quickly
    done = command(tmp_path, "autograde", "--root", str(root), "--assignments", str(bundles),
                   "--no-progress", "--jobs", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    bundle = (bundles / NAME).resolve()
    assert (f"bundle of {NAME}: {bundle}, remembered in {root / COURSE_JSON} (later commands "
            "in this root need no --assignments)") in done.stdout
    assert remembered(root)[NAME]["bundle"] == str(bundle)
    again = command(tmp_path, "autograde", "--root", str(root), "--no-progress", "--jobs", "1")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "remembered in" not in again.stdout  # nothing changed, nothing said
