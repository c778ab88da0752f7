"""`python -m autograder cohort ...` through the real CLI: every mistake a TA can make ends
in one line on stderr that says what is wrong and what to do, and a non-zero exit. The
cohorts grade the small ``vectors`` test bundle (``vectors_config``): the cohort commands are
the engine's, not H2's."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from autograder.cli import build_parser
from autograder.integrations.cohorts import workflow
from autograder.integrations.cohorts.config import CohortConfigError, get_cohort, load_cohorts
from autograder.spec import REPO
from tests.support.cli import one_line_error
from tests.support.vectors import BUNDLES, VECTORS
from tests.support.vectors_source import bundles_with_source

ASSIGNMENT = VECTORS.name
DUE = '"2030-01-01 00:00:00 UTC"'
NEVER_RELEASED = "cohort fall-a was never released: run `python -m autograder cohort release fall-a` first"


def write_config(tmp: Path, due: str = DUE, *, assignments: Path | None = None) -> Path:
    """``tmp/cohorts.toml``: cohort fall-a, due ``due`` (TOML), giving the ``vectors`` bundle
    from the folder of bundles ``assignments``; without one it names no assignment, so the
    cohort gives the package's default (H2), as test_arrival's callers expect."""
    bundle = (f'assignments = "{assignments}"\nassignment = "{ASSIGNMENT}"\n'
              if assignments is not None else "")
    path = tmp / "cohorts.toml"
    path.write_text(f"""
[defaults]
courses_root = "{tmp / 'courses'}"
exchange = "{tmp / 'exchange'}"
{bundle}
[cohorts.fall-a]
due = {due}
""")
    return path


def vectors_config(tmp: Path, due: str = DUE) -> Path:
    """This module's cohorts.toml: fall-a gives ``vectors`` from ``tmp/bundles``, the bundle
    with the source notebook a cohort's course root is prepared from."""
    return write_config(tmp, due, assignments=bundles_with_source(tmp / "bundles"))


def cohort_cli(config: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "autograder", "cohort", "--config", str(config), *args],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
    )


def fake_release(config: Path) -> workflow.Cohort:
    """What `cohort release` leaves behind, without running nbgrader: the course root with its
    nbgrader_config.py and release/, and the course's folders in the exchange."""
    cohort = get_cohort("fall-a", config)
    workflow.prepare_root(cohort)
    (cohort.root / "release" / cohort.assignment).mkdir(parents=True)
    for box in ("outbound", "inbound"):
        (cohort.exchange / cohort.course_id / box).mkdir(parents=True)
    return cohort


# ------------------------------------------------------------------ 1. never released


@pytest.mark.parametrize("step", ["grade", "feedback", "export", "collect"])
def test_a_step_refuses_a_cohort_never_released(tmp_path, step):
    config = vectors_config(tmp_path)
    line = one_line_error(cohort_cli(config, step, "fall-a"))
    assert line == f"error: {NEVER_RELEASED} (no course root at {tmp_path / 'courses' / 'fall-a'})"
    assert not (tmp_path / "courses").exists(), "a refused step must leave nothing behind"


@pytest.mark.parametrize("step", ["grade", "feedback", "export", "collect"])
def test_a_step_refuses_a_course_root_that_was_not_released(tmp_path, step):
    config = vectors_config(tmp_path)
    root = tmp_path / "courses" / "fall-a"
    (root / "submitted" / "s1" / ASSIGNMENT).mkdir(parents=True)  # a root, but no release
    line = one_line_error(cohort_cli(config, step, "fall-a"))
    assert line.startswith(f"error: {NEVER_RELEASED}")


def test_collect_refuses_a_missing_exchange(tmp_path):
    config = vectors_config(tmp_path)
    cohort = fake_release(config)
    (cohort.exchange / cohort.course_id / "inbound").rmdir()
    (cohort.exchange / cohort.course_id / "outbound").rmdir()
    (cohort.exchange / cohort.course_id).rmdir()
    cohort.exchange.rmdir()
    line = one_line_error(cohort_cli(config, "collect", "fall-a"))
    assert f"exchange {cohort.exchange} does not exist" in line
    assert "Exchange.root" in line and "cohort release fall-a" in line
    assert not cohort.exchange.exists()


def test_collect_refuses_an_exchange_without_the_course(tmp_path):
    config = vectors_config(tmp_path)
    cohort = fake_release(config)
    for box in ("outbound", "inbound"):
        (cohort.exchange / cohort.course_id / box).rmdir()
    (cohort.exchange / cohort.course_id).rmdir()
    line = one_line_error(cohort_cli(config, "collect", "fall-a"))
    assert f"no course fall-a in the exchange {cohort.exchange}" in line
    assert "Exchange.root" in line


def test_collect_says_when_there_is_nothing_at_all(tmp_path):
    config = vectors_config(tmp_path)
    cohort = fake_release(config)
    line = one_line_error(cohort_cli(config, "collect", "fall-a"), code=1)
    assert line.startswith("error: nothing to collect for cohort fall-a:")
    assert str(cohort.exchange / "fall-a" / "inbound") in line and "--zip" in line


def test_collect_refuses_a_missing_zip(tmp_path):
    config = vectors_config(tmp_path)
    fake_release(config)
    missing = tmp_path / "moodle.zip"
    line = one_line_error(cohort_cli(config, "collect", "fall-a", "--zip", str(missing)))
    assert f"--zip {missing}: no such file" in line


def test_collect_refuses_a_zip_that_is_not_one(tmp_path):
    config = vectors_config(tmp_path)
    fake_release(config)
    (tmp_path / "grades.zip").write_text("not a zip")
    line = one_line_error(cohort_cli(config, "collect", "fall-a", "--zip",
                                     str(tmp_path / "grades.zip")))
    assert "is not a zip file" in line


def test_grade_refuses_a_released_cohort_without_submissions(tmp_path):
    config = vectors_config(tmp_path)
    fake_release(config)
    line = one_line_error(cohort_cli(config, "grade", "fall-a"))
    assert "no submissions" in line and "cohort collect fall-a" in line


def test_feedback_and_export_refuse_a_cohort_never_graded(tmp_path):
    config = vectors_config(tmp_path)
    fake_release(config)
    for step in ("feedback", "export"):
        line = one_line_error(cohort_cli(config, step, "fall-a"))
        assert "nothing graded yet" in line and "cohort grade fall-a" in line, line


def test_release_refuses_an_exchange_it_cannot_create(tmp_path):
    (tmp_path / "a-file").write_text("")
    config = vectors_config(tmp_path)
    config.write_text(config.read_text().replace(str(tmp_path / "exchange"),
                                                 str(tmp_path / "a-file" / "exchange")))
    line = one_line_error(cohort_cli(config, "release", "fall-a"))
    assert line.startswith(f"error: cannot create the exchange {tmp_path / 'a-file' / 'exchange'}")
    assert "`exchange` in cohorts.toml" in line


def test_usage_mistakes_are_one_line(tmp_path):
    config = vectors_config(tmp_path)
    assert "no cohort 'fall-b'" in one_line_error(cohort_cli(config, "grade", "fall-b"))
    assert "cohort grade --help" in one_line_error(cohort_cli(config, "grade"))
    line = one_line_error(cohort_cli(config, "grade", "fall-a", "--jobs", "0"))
    assert "argument --jobs/-j: must be at least 1 (got 0)" in line
    assert "cohort grade --help" in line
    line = one_line_error(cohort_cli(tmp_path / "missing.toml", "list"))
    assert "cannot read" in line and "missing.toml" in line


# ------------------------------------------------------------------ 2. the exchange root


def nbgrader_default_exchange() -> str:
    from nbgrader.exchange.default.exchange import Exchange

    return Exchange.class_traits()["root"].default_value


def test_the_exchange_comment_in_cohorts_toml_is_true():
    text = (REPO / "cohorts.toml").read_text()
    exchange_line = next(line for line in text.splitlines() if line.startswith("exchange"))
    configured = re.match(r'exchange\s*=\s*"([^"]+)"', exchange_line).group(1)
    default = nbgrader_default_exchange()
    assert default == "/usr/local/share/nbgrader/exchange"  # nbgrader 0.9.6
    if configured != default:
        assert "nbgrader's default" not in exchange_line.split("#", 1)[-1].replace(
            f"nbgrader's default is {default}", "")
        assert default in text, "say what nbgrader's default is, so the difference is visible"
        assert "Exchange.root" in text and "nbgrader_config.py" in text, (
            "say that students' nbgrader_config.py must point at the same Exchange.root")
    assert {c.exchange for c in load_cohorts(REPO / "cohorts.toml").values()} == {Path(configured)}


def test_list_shows_the_exchange_and_the_due_date_with_its_zone(tmp_path):
    config = vectors_config(tmp_path, '"2030-01-01 00:59:00+01:00"')
    done = cohort_cli(config, "list")
    assert done.returncode == 0, done.stderr
    assert "2030-01-01 00:59 +01:00 = 2029-12-31 23:59 UTC" in done.stdout
    assert f"exchange {tmp_path / 'exchange'}" in done.stdout
    assert f"root {tmp_path / 'courses' / 'fall-a'}" in done.stdout
    assert "not released" in done.stdout


# ------------------------------------------------------------------ 5. time zones


@pytest.mark.parametrize("due", [
    '"2030-01-01 00:00:00 UTC"',
    '"2030-01-01T00:00:00Z"',
    '"2030-01-01 01:00:00+01:00"',
    '"2029-12-31T19:00:00-05:00"',
    "2030-01-01T00:00:00Z",  # a TOML date-time with an offset
])
def test_due_dates_with_a_zone_are_read(tmp_path, due):
    cohort = get_cohort("fall-a", vectors_config(tmp_path, due))
    assert cohort.due == datetime(2030, 1, 1, tzinfo=UTC)
    assert cohort.due.utcoffset().total_seconds() == 0


@pytest.mark.parametrize("due", [
    '"2030-01-01 00:00:00"',
    '"2030-01-01T23:59"',
    '"2030-01-01"',
    '"2030-01-01 UTC"',
    '"next friday"',
    "2030-01-01T00:00:00",  # a TOML local date-time
    "2030-01-01",  # a TOML date
    "20300101",
])
def test_a_due_date_without_a_zone_is_refused(tmp_path, due):
    config = vectors_config(tmp_path, due)
    with pytest.raises(CohortConfigError):
        get_cohort("fall-a", config)
    line = one_line_error(cohort_cli(config, "list"))
    assert line.startswith("error: cohort 'fall-a': due date ")
    for form in ("UTC", "Z", "+01:00"):
        assert form in line.split(":", 2)[-1]
    assert str(config) in line


# ------------------------------------------------------------------ 3. one set of options

FLAGS = ["--jobs", "3", "--force", "--no-progress", "--cell-timeout", "7", "--call-timeout", "2",
         "--memory-mb", "2048", "--allow-weaker-isolation", "--no-isolation"]


def parsed(argv: list[str]):
    from autograder.batch.command import options_from

    return options_from(build_parser(argv).parse_args(argv))


def test_cohort_grade_lists_the_grading_options(tmp_path):
    done = cohort_cli(vectors_config(tmp_path), "grade", "--help")
    assert done.returncode == 0, done.stderr
    for flag in FLAGS:
        if flag.startswith("--"):
            assert flag in done.stdout, flag


@pytest.mark.parametrize("flags", [FLAGS, []], ids=["every flag", "defaults"])
def test_cohort_grade_and_autograde_take_the_same_grading_options(tmp_path, flags):
    config = vectors_config(tmp_path)
    ours = parsed(["autograde", ASSIGNMENT, "--root", str(tmp_path), "--assignments",
                   str(BUNDLES), *flags])
    cohort = parsed(["cohort", "--config", str(config), "grade", "fall-a", *flags])
    assert ours == cohort
    if flags:
        assert (ours.jobs, ours.force, ours.progress, ours.isolate, ours.allow_weaker) == (
            3, True, False, False, True)
        assert (ours.limits.cell_timeout, ours.limits.call_timeout, ours.limits.memory_mb) == (
            7, 2, 2048)


@pytest.mark.slow
def test_releasing_to_a_root_graded_without_a_release_is_one_line_and_touches_nothing(tmp_path):
    """Issue 37: a cohort naming a root graded with `autograde --root` failed `cohort release`
    in 36 lines of nbgrader's "Cannot add or remove cells", after rewriting the root's config."""
    from autograder.base.course import Course
    from autograder.batch.engine import BatchOptions, grade_course
    from autograder.sandbox.limits import Limits
    from tests.support.vectors import submit

    config = vectors_config(tmp_path)
    cohort = get_cohort("fall-a", config)
    root = cohort.root
    submit(root, "s1")
    grade_course(Course(root, ASSIGNMENT), assignment=cohort.bundle(), options=BatchOptions(
        jobs=1, progress=False, limits=Limits(cell_timeout=10, call_timeout=5)))
    before = {path: path.read_bytes() for path in root.rglob("*") if path.is_file()}
    line = one_line_error(cohort_cli(config, "release", "fall-a"))
    assert "graded with `autograde --root`" in line and "a course root of its own" in line
    assert {path: path.read_bytes() for path in root.rglob("*") if path.is_file()} == before


def test_config_is_taken_after_the_step_too(tmp_path):
    """Issue 37's CLI as TAs type it: `cohort list --config FILE` ended in "unrecognized
    arguments"."""
    config = vectors_config(tmp_path)
    after, before = cohort_cli(config, "list"), subprocess.run(
        [sys.executable, "-m", "autograder", "cohort", "list", "--config", str(config)],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False)
    assert after.returncode == before.returncode == 0, before.stderr
    assert before.stdout == after.stdout and "fall-a: " in before.stdout


# ------------------------------------------------------------------ extensions (issue 50, 16)


def with_extensions(config: Path, table: str) -> Path:
    config.write_text(config.read_text() + f"\n[cohorts.fall-a.extensions]\n{table}\n")
    return config


@pytest.mark.parametrize("when", ['"2029-12-31 23:59:00 UTC"', '"2030-01-01 00:00:00 UTC"',
                                  '"2030-01-01 01:00:00+02:00"'])
def test_an_extension_in_cohorts_toml_that_ends_by_the_due_date_is_refused(tmp_path, when):
    config = with_extensions(write_config(tmp_path), f"s042 = {when}")
    line = one_line_error(cohort_cli(config, "list"))
    assert "the extension of s042" in line and "the cohort's due date" in line, line
    assert "[cohorts.fall-a.extensions]" in line and "late sooner" in line
    with pytest.raises(CohortConfigError, match="late sooner"):
        load_cohorts(config)


def test_an_extension_in_cohorts_toml_for_a_mistyped_id_is_refused_at_grade_time(tmp_path):
    config = with_extensions(vectors_config(tmp_path),
                             's015-lat = "2030-01-03 23:59:00 UTC"')
    cohort = fake_release(config)
    for student in ("s014-correct", "s015-late"):
        (cohort.root / "submitted" / student / cohort.assignment).mkdir(parents=True)
    def files() -> list[str]:  # the lock that `grade` holds while it checks is not a change
        return sorted(str(p.relative_to(cohort.root)) for p in cohort.root.rglob("*")
                      if p.name != ".autograder-grading.lock")

    before = files()
    line = one_line_error(cohort_cli(config, "grade", "fall-a"))
    assert "the extension of s015-lat" in line and "did you mean s015-late?" in line, line
    assert "[cohorts.fall-a.extensions]" in line
    assert files() == before  # no course.json, no grades


# ------------------------------------------------------------------ ids a TA reads


def test_cohort_export_shows_an_id_with_terminal_controls_escaped(tmp_path):
    """Issue 50, item 14: a student id from a folder or an LMS file name carrying ESC and BEL
    (one graded and to review, one left out of the LMS files) reaches the terminal escaped."""
    from autograder.base.course import RESULTS_JSON, Course
    from autograder.results.result import (
        STATUS_GRADED,
        STATUS_UNGRADABLE,
        PartResult,
        SubmissionResult,
        save,
    )
    from autograder.views import grades_csv

    cohort = fake_release(vectors_config(tmp_path))
    course = Course(cohort.root, cohort.assignment)
    hostile = "s9\x1b]0;owned\x07\x1b[2J"
    parts = [PartResult(name, points, points) for name, points in VECTORS.part_points.items()]
    results = [
        SubmissionResult(hostile, VECTORS.name, STATUS_GRADED, parts=parts, needs_review=True,
                         reason="a person will check"),
        SubmissionResult(hostile + "\x07x", VECTORS.name, STATUS_UNGRADABLE,
                         parts=[PartResult(name, 0, points) for name, points in VECTORS.part_points.items()],
                         reason="its notebook is not JSON"),
    ]
    for result in results:
        course.submitted(result.student).mkdir(parents=True)
        save(result, course.autograded(result.student) / RESULTS_JSON)
    grades_csv.write(results, course.grades_csv(), VECTORS)
    bin_dir = str(Path(sys.executable).parent)  # nbgrader export runs alembic from there
    exported = subprocess.run(
        [sys.executable, "-m", "autograder", "cohort", "--config", str(tmp_path / "cohorts.toml"),
         "export", "fall-a"], cwd=REPO, capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"})
    assert exported.returncode == 0, exported.stderr
    assert "\x1b" not in exported.stdout and "\x07" not in exported.stdout
    assert "s9\\x1b]0;owned\\x07\\x1b[2J\\x07x: ungradable" in exported.stdout
    assert "may change): s9\\x1b]0;owned\\x07\\x1b[2J\n" in exported.stdout
