"""A TA who only grades needs no checkout: `pip install .` (not -e) into a fresh virtual
environment, then `h2-grader autograde` from any folder grades a sample cohort, and the
reference and checks installed beside it stay out of the sandbox's reach (issue 25): a
notebook of stubs whose last cell imports or reads them scores what the stubs score, on the
local pool and on a Dask worker of that environment.

The package is built from a copy of what a clone holds of it (pyproject.toml, README.md,
autograder/, solutions/, and schemas/ and release/, which the package's data links to), so
nothing of this checkout's build state takes part. The environment is a plain
``python -m venv`` (no system site-packages); pip takes the dependencies from wherever this
machine's pip is configured to (here: its local wheel mirrors, CPU torch included), and
``--no-compile`` skips byte-compiling them, to keep the test short.
"""

from __future__ import annotations

import csv
import os
import shutil
import sys
from pathlib import Path

import pytest

from autograder.bundles.h2_attention.samples import VARIANTS, build_submission
from autograder.spec import REPO
from tests.support.commands import run_ok as run
from tests.support.h2 import SPEC
from tests.support.reference_attack import write_stubs

SOURCES = ("pyproject.toml", "README.md", "autograder", "solutions", "schemas", "release")
STUDENTS = {"s1": "correct", "s2": "softmax_wrong_axis", "s3": "broken_notebook"}
STUBS, TAKES_REFERENCE = "s4", "s5"  # untouched stubs; the same, plus a cell taking the reference


def test_the_grader_reads_its_data_from_the_package():
    """The schema and the release notebook the grader reads are the package's, and in a
    checkout they are exactly schemas/'s and release/'s (symlinks, not stale copies)."""
    for packaged, canonical in ((SPEC.grader_schema, REPO / "schemas" / SPEC.schema),
                                (SPEC.grader_release_notebook, SPEC.release_notebook)):
        assert packaged.parent == SPEC.root / "data"  # the bundle's data, shipped
        assert packaged.is_symlink() and packaged.resolve() == canonical.resolve()


def copy_sources(target: Path) -> Path:
    target.mkdir()
    for name in SOURCES:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, target / name, symlinks=True,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".*"))
        else:
            shutil.copy2(source, target / name)
    return target



@pytest.mark.slow
def test_a_non_editable_install_grades_a_cohort_from_any_folder(tmp_path):
    source = copy_sources(tmp_path / "clone")
    venv = tmp_path / "venv"
    pip_env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    pip_env.pop("PYTHONPATH", None)
    run([sys.executable, "-m", "venv", str(venv)], tmp_path, pip_env, 120)
    assert "include-system-site-packages = false" in (venv / "pyvenv.cfg").read_text()
    run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-compile",
         str(source)], tmp_path, pip_env, 900)
    shutil.rmtree(source)  # the TA's machine keeps no clone either

    by_name = {variant.name: variant for variant in VARIANTS}
    course = tmp_path / "course"
    for student, variant in STUDENTS.items():
        build_submission(course, student, by_name[variant])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # A fresh shell with only the new environment on PATH; nothing of this checkout.
    env = {"PATH": f"{venv / 'bin'}{os.pathsep}/usr/bin:/bin", "HOME": str(tmp_path),
           "LANG": "C.UTF-8"}
    where = run([str(venv / "bin" / "python"), "-c",
                 "import autograder, pytest; from autograder.assignments import load_assignment; "
                 f"print(autograder.__file__); print(load_assignment({SPEC.name!r}).grader_schema)"],
                elsewhere, env, 120)
    site_packages = str(venv / "lib")
    assert all(line.startswith(site_packages) for line in where.split()), where
    installed = Path(where.split()[0]).parents[1]  # the venv's site-packages
    reference = [str(installed / "solutions" / "attention.py"),
                 str(installed / "autograder" / "bundles" / "h2_attention" / "checks" / "test_softmax.py")]
    assert all(Path(path).is_file() for path in reference)
    # The demo's sample cohort builds from the installed package alone (no clone, no tests/).
    built = run([str(venv / "bin" / "python"), "-m", "autograder.authoring.sample_cohort",
                 SPEC.name, str(tmp_path / "demo"), "--cohort", "demo-2026"], elsewhere, env, 300)
    assert "16 sample submissions" in built
    assert len(list((tmp_path / "demo" / "submitted").iterdir())) == 16
    dask_course = tmp_path / "dask-course"
    for root in (course, dask_course):
        write_stubs(root / "submitted" / STUBS / SPEC.name, STUBS)
        write_stubs(root / "submitted" / TAKES_REFERENCE / SPEC.name, TAKES_REFERENCE, reference)
    run(["h2-grader", "autograde", SPEC.name, "--root", str(course), "--jobs", "2",
         "--no-progress"], elsewhere, env, 600)
    run(["h2-grader", "autograde", SPEC.name, "--root", str(dask_course), "--cluster",
         "dask-local:1", "--no-progress"], elsewhere, env, 600)

    with (course / "grades.csv").open(newline="", encoding="utf-8") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    with (dask_course / "grades.csv").open(newline="", encoding="utf-8") as handle:
        on_dask = {row["student"]: row for row in csv.DictReader(handle)}
    # The reference sits in this environment's site-packages; the sandbox never shows it.
    for graded in (rows, on_dask):
        stubs, taker = graded.pop(STUBS), graded.pop(TAKES_REFERENCE)
        assert float(stubs["total"]) < 100, stubs
        assert {part: taker[part] for part in SPEC.part_points} == {
            part: stubs[part] for part in SPEC.part_points}, (stubs, taker)
        assert taker["total"] == stubs["total"] and taker["isolation"] == "full", taker
    assert set(rows) == set(STUDENTS)
    assert rows["s1"]["status"] == "graded" and float(rows["s1"]["total"]) == 100
    assert rows["s2"]["status"] == "graded" and 0 < float(rows["s2"]["total"]) < 100
    assert float(rows["s2"]["stable_softmax"]) < SPEC.part_points["stable_softmax"]
    assert rows["s3"]["status"] == "ungradable" and "not a valid notebook" in rows["s3"]["reason"]
    assert (course / "autograded" / "s1" / SPEC.name / "feedback.html").is_file()
