"""`python -m autograder autograde` through the real CLI: every mistake of a TA ends in one
line on stderr saying what is wrong and what to do, and a non-zero exit; the summary line
adds up."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.spec import REPO
from tests.support.cli import one_line_error
from tests.support.h2 import SPEC
from tests.support.vectors import BUNDLES, VECTORS, submit

ASSIGNMENT = VECTORS.name  # the small test bundle: a TA's mistakes are the engine's, not H2's
KNOWN = SPEC.name  # the package's assignment: what the registry knows without --assignments
FOUND = ["--assignments", str(BUNDLES)]  # where the command finds ASSIGNMENT
FAST = ["--no-progress", "--jobs", "2", "--cell-timeout", "10", "--call-timeout", "5"]


def autograde(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "autograder", "autograde", *args],
        cwd=REPO, capture_output=True, text=True, timeout=300, check=False,
    )


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """A course root with one (empty, so ungradable) submission: enough for a grader to run."""
    root = tmp_path / "course"
    (root / "submitted" / "s1" / ASSIGNMENT).mkdir(parents=True)
    return root


def test_a_root_that_does_not_exist(tmp_path):
    missing = tmp_path / "nope"
    line = one_line_error(autograde(ASSIGNMENT, "--root", str(missing), *FOUND))
    assert line == (f"error: course root {missing} does not exist: pass --root <the folder that "
                    "holds submitted/> (default: the current directory)")


def test_a_root_that_is_a_file(tmp_path):
    (tmp_path / "grades.csv").write_text("")
    line = one_line_error(autograde(ASSIGNMENT, "--root", str(tmp_path / "grades.csv"), *FOUND))
    assert "is not a folder" in line


def test_a_root_without_submissions(tmp_path):
    line = one_line_error(autograde(ASSIGNMENT, "--root", str(tmp_path), *FOUND))
    assert f"no submissions in {tmp_path / 'submitted'}/<student>/{ASSIGNMENT}/" in line
    assert "nbgrader collect" in line
    assert list(tmp_path.iterdir()) == []  # refused: no lock file left in a folder never graded


def test_an_unknown_student(course):
    line = one_line_error(autograde(ASSIGNMENT, "--root", str(course), "--student", "nobody",
                                    "--student", "s1", *FOUND, *FAST))
    assert line == (f"error: no submission for nobody in {course / 'submitted'}/<student>/"
                    f"{ASSIGNMENT}/ (students with one: s1); check the id or collect it first")
    assert not (course / "autograded").exists(), "nothing is graded when a student is unknown"


@pytest.mark.parametrize(("flags", "says"), [
    (["--jobs", "0"], "argument --jobs/-j: must be at least 1 (got 0)"),
    (["-j", "-3"], "argument --jobs/-j: must be at least 1 (got -3)"),
    (["--cell-timeout", "0"], "argument --cell-timeout: must be more than 0 seconds (got 0)"),
    (["--call-timeout", "nan"], "argument --call-timeout: must be more than 0 seconds (got nan)"),
    (["--memory-mb", "512"], "argument --memory-mb: must be at least 1024"),
    (["--jobs", "abc"], "argument --jobs/-j: invalid int value: 'abc'"),
    (["--student"], "argument --student: expected one argument"),
    (["--frobnicate"], "unrecognized arguments: --frobnicate"),
    (["extra-assignment"], "unrecognized arguments: extra-assignment"),
])
def test_bad_options(course, flags, says):
    line = one_line_error(autograde(ASSIGNMENT, "--root", str(course), *FOUND, *flags,
                                    *FAST[:1]))
    assert says in line
    assert "autograde --help" in line
    assert not (course / "autograded").exists()


@pytest.mark.slow
def test_the_summary_adds_up(tmp_path):
    root = tmp_path / "course"  # of the small vectors bundle: the summary is the engine's
    submit(root, "good")
    (root / "submitted" / "empty" / VECTORS.name).mkdir(parents=True)  # no notebook: ungradable
    args = (ASSIGNMENT, "--root", str(root), *FOUND, *FAST)
    done = autograde(*args)
    assert done.returncode == 0, done.stdout + done.stderr
    first = next(line for line in done.stdout.splitlines() if " submissions: " in line)
    assert first.startswith("2 submissions: 1 graded, 1 ungradable, 0 grader errors "
                            "(2 assessed in this run, 0 unchanged since the last run); mean 10.0"), first
    again = next(line for line in autograde(*args).stdout.splitlines() if " submissions: " in line)
    assert again.startswith("2 submissions: 1 graded, 1 ungradable, 0 grader errors "
                            "(0 assessed in this run, 2 unchanged since the last run)"), again
    counts = re.match(r"(\d+) submissions: (\d+) graded, (\d+) ungradable, (\d+) grader", first)
    total, *kinds = map(int, counts.groups())
    assert total == sum(kinds)


@pytest.mark.parametrize("argv", [["autogrde"], [], ["cohort"], ["verify-evidence"]])
def test_top_level_mistakes_are_one_line(argv):
    done = subprocess.run([sys.executable, "-m", "autograder", *argv], cwd=REPO,
                          capture_output=True, text=True, timeout=60, check=False)
    assert "--help" in one_line_error(done)


@pytest.mark.parametrize("command", ["autograde", "report"])
def test_an_unknown_assignment_is_refused_with_the_known_one(command, course):
    """`autograde h3_decoder` graded a submission folder of that name with this assignment's
    parts (or said "collect them first"); now it names the assignment this grader knows."""
    done = subprocess.run([sys.executable, "-m", "autograder", command, "h3_decoder",
                           "--root", str(course)], cwd=REPO, capture_output=True, text=True,
                          timeout=60, check=False)
    assert_names_the_assignments(one_line_error(done))
    assert not (course / "autograded").exists()


# ------------------------------------------------------------------ assignments and authoring


def assert_names_the_assignments(line: str) -> None:
    """The registry's one line for an unknown name: it names the assignments there are."""
    assert line.startswith("error: no assignment called 'h3_decoder': the assignments here are ")
    assert re.search(rf"the assignments here are [^(]*\b{KNOWN}\b", line), line


def command(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, check=False)


def write_bundle(folder: Path, name: str, parts: int = 2) -> Path:
    """A minimal bundle (a spec only): enough to be listed, loaded and refused."""
    bundle = folder / name
    bundle.mkdir(parents=True)
    lines = [f'name = "{name}"', f'notebook = "{name}.ipynb"', 'grade_cell_prefix = "check_"',
             f"total = {3 * parts}"]
    for number in range(parts):
        lines += ["[[parts]]", f'name = "f{number}"', 'kind = "function"', "points = 3"]
    (bundle / "assignment.toml").write_text("\n".join(lines) + "\n")
    return bundle


def test_assignments_lists_each_bundle_with_its_points_and_origin(tmp_path):
    folder = tmp_path / "bundles"
    write_bundle(folder, "tiny", parts=2)
    write_bundle(folder, KNOWN, parts=1)  # a folder's copy is the one graded
    (folder / "notes").mkdir()  # not a bundle: no assignment.toml
    plain = command("assignments")
    assert plain.returncode == 0, plain.stderr
    assert re.search(rf"^{KNOWN} +15 parts, 100 points +package$", plain.stdout, re.M)
    listed = command("assignments", "--assignments", str(folder))
    assert listed.returncode == 0, listed.stderr
    assert re.search(rf"^{KNOWN} +1 part, 3 points +{folder} \(in place of the "
                     r"package's\)$", listed.stdout, re.M)
    assert re.search(rf"^tiny +2 parts, 6 points +{folder}$", listed.stdout, re.M)
    assert "notes" not in listed.stdout


def test_assignments_names_a_spec_it_cannot_read_and_exits_1(tmp_path):
    bundle = write_bundle(tmp_path, "broken")
    (bundle / "assignment.toml").write_text('name = "broken"\n')
    done = command("assignments", "--assignments", str(tmp_path))
    assert done.returncode == 1
    assert re.search(rf"^broken +{tmp_path}: cannot be read: .*missing notebook", done.stdout, re.M)


def test_assignments_in_a_folder_that_does_not_exist(tmp_path):
    line = one_line_error(command("assignments", "--assignments", str(tmp_path / "nope")))
    assert line == f"error: the assignments folder {tmp_path / 'nope'} does not exist"


@pytest.mark.parametrize("argv", [["generate-release", "h3_decoder", "--check"],
                                  ["sync-solutions", "h3_decoder", "--check"],
                                  ["gradescope", "build", "h3_decoder"],
                                  ["run-autograder", "h3_decoder"]])
def test_every_command_refuses_an_unknown_assignment_in_the_registrys_line(argv):
    assert_names_the_assignments(one_line_error(command(*argv)))


@pytest.mark.parametrize("name", ["generate-release", "sync-solutions"])
def test_authoring_needs_the_assignments_source_folder(tmp_path, name):
    """A bundle without its source notebook: where it goes, and the spec key that moves it."""
    bundle = write_bundle(tmp_path, "tiny")
    line = one_line_error(command(name, "tiny", "--assignments", str(tmp_path), "--check"))
    assert line == (f"error: assignment 'tiny' has no source folder {bundle / 'source'}: put "
                    "its source notebook there, or name its folder with `source = \"...\"` in "
                    f"{bundle / 'assignment.toml'}")
    (bundle / "source").mkdir()
    line = one_line_error(command(name, "tiny", "--assignments", str(tmp_path), "--check"))
    assert line.startswith("error: assignment 'tiny' has no source notebook tiny.ipynb in its "
                           f"source folder {bundle / 'source'}: put its source notebook there")


def test_authoring_defaults_to_the_one_assignment_with_a_source_folder(tmp_path):
    from autograder.authoring.authored import NoSource, default_assignment

    assert default_assignment() == KNOWN  # the checkout's source/h2_attention
    write_bundle(tmp_path / "bundles", "tiny")
    assert default_assignment([tmp_path / "bundles"]) == KNOWN  # tiny has no source/
    (tmp_path / "bundles" / "tiny" / "source").mkdir()
    with pytest.raises(NoSource, match=rf"several assignments have a source folder "
                                       rf"\({KNOWN}, tiny\): name the one to author"):
        default_assignment([tmp_path / "bundles"])
    line = one_line_error(command("generate-release", "--check", "--assignments",
                                  str(tmp_path / "bundles")))
    assert "several assignments have a source folder" in line


def test_the_top_level_help_names_no_assignment():
    done = command("--help")
    assert done.returncode == 0 and "assignments" in done.stdout
    assert KNOWN not in done.stdout and "attention" not in done.stdout.lower()


def test_a_missing_package_is_one_line_but_a_missing_reference_is_a_broken_checkout():
    from autograder.cli import missing_dependency

    assert missing_dependency(ModuleNotFoundError(name="jsonschema")).startswith(sys.executable)
    for ours in ("autograder.grading", "solutions", "solutions.attention"):
        assert missing_dependency(ModuleNotFoundError(name=ours)) is None, ours


def test_the_installed_script_names_itself_in_its_usage():
    """`h2-grader --help` printed `usage: python -m autograder` (issue 37)."""
    script = Path(sys.executable).parent / "h2-grader"
    shown = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0 and shown.stdout.startswith("usage: h2-grader "), shown.stdout
    line = one_line_error(subprocess.run([str(script), "nonsense"], capture_output=True,
                                         text=True, timeout=60))
    assert "see `h2-grader --help`" in line
    module = subprocess.run([sys.executable, "-m", "autograder", "--help"], capture_output=True,
                            text=True, timeout=60)
    assert module.stdout.startswith("usage: python -m autograder ")


def test_autograde_help_lists_every_limit_the_ta_guide_names():
    """Issue 37: the TA guide said `--help` lists 64 MiB of scratch disk and 64 processes."""
    from autograder.sandbox.limits import BASE_MEMORY_MB, PRELOAD_MEMORY_MB, Limits

    shown = " ".join(autograde("--help").stdout.split())
    limits = Limits()
    for words in (f"{limits.file_mb} MiB of scratch disk", f"{limits.nproc} processes",
                  f"default: {limits.cell_timeout:g}", f"default: {limits.call_timeout:g}",
                  f"default: {BASE_MEMORY_MB}, {PRELOAD_MEMORY_MB['torch']} more where the "
                  "assignment preloads torch"):
        assert words in shown, words
    guide = " ".join((REPO / "docs" / "ta-guide.md").read_text(encoding="utf-8").split())
    assert (f"{limits.file_mb} MiB of scratch disk, {limits.nproc} processes" in guide
            and "(`--help` lists them)" in guide)


@pytest.mark.parametrize("policy", ["10%/day, grace 99999999999999m", "1000%/hour"])
def test_a_late_policy_that_cannot_be_applied_is_refused_before_anything_is_remembered(
        course, policy):
    """Issue 38: a grace past what dates hold was remembered and then broke every run of the
    root with an OverflowError traceback."""
    line = one_line_error(autograde(ASSIGNMENT, "--root", str(course), "--late-policy", policy,
                                    "--due", "2026-12-14 23:59 UTC", *FOUND, *FAST))
    assert "late policy" in line and "at most" in line
    assert not (course / "course.json").exists() and not (course / "autograded").exists()


def test_a_remembered_policy_that_cannot_be_applied_names_the_file_and_the_fix(course):
    (course / "course.json").write_text(json.dumps({ASSIGNMENT: {
        "due": "2026-12-14 23:59:00 UTC",
        "late_policy": {"percent": 10, "grace_minutes": 99999999999999}}}))
    line = one_line_error(autograde(ASSIGNMENT, "--root", str(course), *FOUND, *FAST))
    assert f"{course / 'course.json'}" in line and "grace" in line and "fix or delete" in line
