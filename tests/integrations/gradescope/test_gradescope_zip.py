"""`gradescope build` writes the autograder.zip Gradescope expects, and it grades.

The zip is unpacked into a temporary tree laid out like Gradescope's /autograder
(source/, submission/, submission_metadata.json, results/, run_autograder copied to the
top) and run_autograder runs there against sample submissions, on this machine's installed
dependencies: setup.sh is not run (it installs the grader's dependencies from the network,
minutes of downloads); its content is checked instead. results.json is checked against
Gradescope's documented fields.

What the zip holds and how it grades is the engine's: it is the small ``vectors`` test bundle
(``tests/bundles``, 10 points, no evidence file) that is built and graded here, which takes
seconds. H2's zip is built for what only H2 has: the package's own bundle with its reference
beside it (``solutions/``), and torch, which setup.sh installs only for an assignment whose
sandbox preloads it.
"""

from __future__ import annotations

import json
import re
import shutil
import stat
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Iterable
from pathlib import Path

import nbformat
import pytest

from autograder.authoring.sync import grade_id
from autograder.base.safe_text import INPUTS_HIDDEN, MAX_FRACTIONS
from autograder.bundles.h2_attention.samples import solved_notebook, write_evidence
from autograder.integrations.gradescope import build, results, scripts
from autograder.spec import REPO
from tests.bundles import students
from tests.support.gradescope_tree import run_upload, unpack_like_gradescope
from tests.support.h2 import SPEC

SECOND = students.assignment()  # vectors: dot, norm, normalize; 3 + 3 + 4 points
VECTORS = (SECOND.name, "--assignments", str(students.BUNDLES))  # `gradescope build` of it
TOP_LEVEL = {"setup.sh", "run_autograder", scripts.REQUIREMENTS_TXT, scripts.CONFIG_JSON}
TEST_FIELDS = {"name", "score", "max_score", "status", "output", "output_format", "tags",
               "visibility"}
VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}
URL = re.compile(r"\b(?:https?|ftp|git|ssh)://\S+|\bgit@\S+")
FRACTION = re.compile(r"\d\.\d")
# Nothing of a course, a checkout or an environment, at any depth of a zip.
BANNED = {"course", "courses", "submitted", "autograded", "feedback", "gradebook.db", ".venv",
          ".git", "__pycache__", "tests", "cohorts.toml", "grades.csv", "source", "release",
          "nbgrader_config.py"}


@pytest.fixture(scope="module")
def zip_path(tmp_path_factory) -> Path:
    """The vectors bundle's zip (a bundle from a folder, ``--assignments``)."""
    return build.build(tmp_path_factory.mktemp("zip"), SECOND)


@pytest.fixture(scope="module")
def h2_zip(tmp_path_factory) -> Path:
    """H2's zip: the package's own bundle, whose sandbox preloads torch."""
    return build.build(tmp_path_factory.mktemp("h2-zip"), SPEC)


def pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_the_zip_holds_the_scripts_and_the_grader_and_nothing_of_a_course(zip_path):
    with zipfile.ZipFile(zip_path) as archive:
        names = archive.namelist()
        modes = {info.filename: info.external_attr >> 16 for info in archive.infolist()}
    assert TOP_LEVEL <= set(names)  # at the root of the archive, not in a folder
    others = set(names) - TOP_LEVEL
    assert all(name.startswith(("autograder/", "assignments/")) for name in others), others
    bundle = f"{build.FOLDER_BUNDLES}/{SECOND.name}"
    for name in (f"{bundle}/checks/test_vectors_normalize.py", f"{bundle}/checks/pytest.ini",
                 f"{bundle}/checks/vectors_helpers.py", f"{bundle}/assignment.toml",
                 f"{bundle}/data/{SECOND.notebook}", f"{bundle}/reference.py",
                 "autograder/views/templates/feedback.html.j2"):
        assert name in names
    # The engine and this one bundle: no other assignment's (the package's own H2 left out).
    assert {name.split("/")[2] for name in names if name.startswith("autograder/bundles/")
            and name.count("/") > 2} == set()
    assert {name.split("/")[1] for name in others if name.startswith("assignments/")} == {
        SECOND.name}
    with zipfile.ZipFile(zip_path) as archive:
        config = json.loads(archive.read(scripts.CONFIG_JSON))
        run = archive.read("run_autograder").decode()
    assert config == {"assignment": SECOND.name, "assignments": [build.FOLDER_BUNDLES],
                      "student_id": "sid", "late_policy": None,
                      "hidden_visibility": "after_due_date"}
    assert f'--config "$root/source/{scripts.CONFIG_JSON}"' in run
    assert not [n for n in names if BANNED & set(n.split("/"))]
    assert not [n for n in names if n.endswith((".pyc", ".db", ".csv", ".zip"))]
    for script in ("setup.sh", "run_autograder"):
        assert modes[script] & stat.S_IXUSR, f"{script} is not executable"


def test_the_package_s_own_bundle_goes_in_the_package_its_reference_beside(h2_zip):
    """H2, the one bundle the package holds (the default assignment), and the one whose
    reference lives outside its bundle (the ``solutions`` package)."""
    with zipfile.ZipFile(h2_zip) as archive:
        names = archive.namelist()
        config = json.loads(archive.read(scripts.CONFIG_JSON))
    others = set(names) - TOP_LEVEL
    assert all(name.startswith(("autograder/", "solutions/")) for name in others), others
    bundle = f"autograder/bundles/{SPEC.name}"
    for name in (f"{bundle}/checks/test_softmax.py", f"{bundle}/checks/pytest.ini",
                 f"{bundle}/assignment.toml", f"{bundle}/data/{SPEC.schema}",
                 f"{bundle}/data/{SPEC.notebook}", "solutions/attention.py"):
        assert name in names
    assert config["assignment"] == SPEC.name and config["assignments"] == []
    assert not [n for n in names if (BANNED | {SPEC.evidence_file}) & set(n.split("/"))]
    assert not [n for n in names if n.endswith((".pyc", ".db", ".csv", ".zip"))]


def test_the_zip_is_reproducible(zip_path, tmp_path):
    assert build.build(tmp_path, SECOND).read_bytes() == zip_path.read_bytes()


def test_setup_installs_pyproject_pins_and_cpu_torch_and_nothing_else(h2_zip):
    """On H2's zip: torch is installed only for an assignment that preloads it."""
    with zipfile.ZipFile(h2_zip) as archive:
        setup = archive.read("setup.sh").decode()
        requirements = archive.read(scripts.REQUIREMENTS_TXT).decode().split()
        run = archive.read("run_autograder").decode()
    project = pyproject()
    assert requirements == [line.replace(" ", "") for line in project["dependencies"]]
    torch = next(line for line in project["dependencies"] if line.startswith("torch"))
    assert re.fullmatch(r"torch==[\d.]+", torch)
    # CPU torch at pyproject's version from PyTorch's CPU index, then the pins from PyPI.
    assert (f"pip install --index-url {scripts.TORCH_CPU_INDEX} {torch}\n") in setup
    assert f"pip install -r {scripts.REQUIREMENTS_TXT}\n" in setup
    assert setup.index(scripts.TORCH_CPU_INDEX) < setup.index("-r requirements.txt")
    # No other source: one URL, no downloads, no other index, no PPA, no git; apt-get only
    # for Ubuntu's own Python and its venv package (pip), and only where they are missing.
    assert URL.findall(setup) == [scripts.TORCH_CPU_INDEX] and URL.findall(run) == []
    for word in ("curl", "wget", "git ", "--extra-index-url", "--find-links", " -i ",
                 "add-apt-repository", "ppa:"):
        assert word not in setup, word
    installs = re.findall(r"^\s*apt_install (.*)$", setup, flags=re.M)
    assert installs == ["python3.11 python3.11-venv || true", '"python$version-venv" || true']
    # Everything pip installs goes into the grader's own environment, which run_autograder uses.
    assert all(line.lstrip().startswith('"$venv/bin/python" -m pip')
               for line in setup.splitlines() if "pip install" in line and "#" not in line)
    assert f'python="$root/{scripts.VENV}/bin/python"' in run
    minimum = re.fullmatch(r">=(\d+)\.(\d+)", project["requires-python"]).groups()
    assert f"sys.version_info < ({minimum[0]}, {minimum[1]})" in setup


def test_the_scripts_are_valid_bash(zip_path, h2_zip, tmp_path):
    """Both zips' scripts: H2's setup.sh has the torch lines the vectors one has not."""
    for built in (zip_path, h2_zip):
        with zipfile.ZipFile(built) as archive:
            for script in ("setup.sh", "run_autograder"):
                (tmp_path / script).write_bytes(archive.read(script))
                done = subprocess.run(["bash", "-n", str(tmp_path / script)],
                                      capture_output=True, text=True, check=False)
                assert done.returncode == 0, (built, script, done.stderr)


def test_build_help_and_a_bad_out_are_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    done = subprocess.run([sys.executable, "-m", "autograder", "gradescope", "build", *VECTORS,
                           "--out", str(blocker / "sub")], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("error: cannot create")


def test_build_says_it_replaced_an_earlier_zip_and_counts_the_roster_in_english(tmp_path):
    """Issue 37: "(1 students)", and an earlier autograder.zip overwritten without a word."""
    roster = tmp_path / "roster.csv"
    roster.write_text("Email,SID\nada@uni.example,u1\n")

    def build(*extra: str) -> str:
        done = subprocess.run([sys.executable, "-m", "autograder", "gradescope", "build",
                               *VECTORS, "--out", str(tmp_path / "dist"), *extra],
                              cwd=tmp_path, capture_output=True, text=True, timeout=300,
                              check=False)
        assert done.returncode == 0, done.stderr
        return done.stdout

    first = build("--roster", str(roster))
    assert first.startswith("wrote ") and "(1 student)" in first, first
    assert build().startswith("replaced ")


# ------------------------------------------------------------------ in Gradescope's tree


def correct_vectors(folder: Path, student: str) -> None:  # noqa: ARG001 - no evidence file
    """A correct submission of the vectors bundle."""
    students.write_submission(folder)


def leaky_submission(folder: Path, student: str) -> None:  # noqa: ARG001 - no evidence file
    """A correct vectors notebook whose ``dot`` then quotes its inputs (two vectors of five
    numbers, more fractions than a message may show) in an error."""
    notebook = students.solved_notebook()
    at = next(i for i, cell in enumerate(notebook.cells)
              if grade_id(cell) == SECOND.part("dot").cell)
    notebook.cells.insert(at + 1, nbformat.v4.new_code_cell(
        "def dot(a, b):\n"
        "    raise ValueError('inputs: ' + ' '.join(np.array2string(np.asarray(v, dtype=float),"
        " precision=6, threshold=10**6) for v in (a, b)))\n"))
    folder.mkdir(parents=True)
    (folder / SECOND.notebook).write_text(nbformat.writes(notebook), encoding="utf-8")


def correct_submission(folder: Path, student: str) -> None:
    """H2's correct notebook and its evidence file for ``student`` (test_gradescope_metadata's
    student-id cases grade it: the evidence is checked against the id)."""
    folder.mkdir(parents=True)
    (folder / SPEC.notebook).write_text(nbformat.writes(solved_notebook(student)),
                                        encoding="utf-8")
    write_evidence(folder, student)


def run_in_tree(root: Path, student: str, make_submission) -> dict:
    """One upload, made by ``make_submission(folder, student)``, graded in the tree; the
    metadata's title is the assignment the tree's zip grades."""
    for stale in ("submission", "results"):
        shutil.rmtree(root / stale, ignore_errors=True)
    make_submission(root / "submission", student)
    graded = json.loads((root / "source" / scripts.CONFIG_JSON).read_text())["assignment"]
    return run_upload(root, student, graded)


def check_gradescope_fields(data: dict, parts: Iterable[str]) -> None:
    """Gradescope's documented results.json fields, with their types; each check tagged with
    one of the graded assignment's ``parts``; the score is the checks' points less the late
    penalty, and a "needs a person" entry (staff only, worth nothing) is there exactly when
    the result needs one."""
    assert isinstance(data["score"], float) and isinstance(data["execution_time"], int)
    assert isinstance(data["output"], str) and data["output_format"] == "md"
    assert data["visibility"] in VISIBILITIES and data["stdout_visibility"] in VISIBILITIES
    assert data["tests"], "no tests"
    review = [test for test in data["tests"] if test["name"] == results.NEEDS_A_PERSON]
    shown = [test for test in data["tests"] if test["name"] == results.SUBMISSION_ENTRY]
    checks = [test for test in data["tests"] if test not in review and test not in shown]
    for test in data["tests"]:
        assert TEST_FIELDS <= set(test), set(test)
        assert isinstance(test["name"], str) and test["name"]
        assert 0 <= test["score"] <= test["max_score"]
        assert test["status"] in {"passed", "failed"}
        assert test["output_format"] == "md" and test["visibility"] in VISIBILITIES
    for test in checks:
        assert test["tags"] and set(test["tags"]) <= set(parts)
    assert len(review) == (1 if data["extra_data"]["needs_review"] else 0), review
    for test in review:
        assert test["visibility"] == "hidden" and test["max_score"] == 0 and test["output"]
    # Shown at once whatever the hidden checks' visibility: worth nothing.
    assert len(shown) == 1 and shown[0]["visibility"] == "visible" and shown[0]["max_score"] == 0
    penalty = data["extra_data"]["late_penalty"]
    assert abs(sum(t["score"] for t in checks) - penalty - data["score"]) < 1e-6


@pytest.mark.slow
def test_run_autograder_grades_in_a_gradescope_tree(zip_path, tmp_path):
    root = unpack_like_gradescope(zip_path, tmp_path / "autograder")
    # The zip's own code runs, not this checkout's.
    where = subprocess.run(
        [sys.executable, "-c", "import autograder; print(autograder.__file__)"],
        env={"PYTHONPATH": str(root / "source"), "PATH": "/usr/bin:/bin"}, cwd=root,
        capture_output=True, text=True, check=True).stdout.strip()
    assert where == str(root / "source" / "autograder" / "__init__.py")

    correct = run_in_tree(root, "s101", correct_vectors)
    check_gradescope_fields(correct, SECOND.part_points)
    assert correct["score"] == correct["max_score"] == SECOND.total_points == 10
    assert all(test["status"] == "passed" for test in correct["tests"])
    assert correct["extra_data"]["student"] == "s101"  # from submission_metadata.json
    assert (root / "results" / "feedback.html").is_file()

    leaky = run_in_tree(root, "s102", leaky_submission)
    check_gradescope_fields(leaky, SECOND.part_points)
    dot = [t for t in leaky["tests"] if t["tags"] == ["dot"]]
    assert dot and all(t["status"] == "failed" and t["score"] == 0 for t in dot)
    assert any(INPUTS_HIDDEN.replace("(", r"\(").replace(")", r"\)") in t["output"]
               for t in dot), [t["output"] for t in dot]
    # Whatever an instructor sets visible, nothing shows the hidden inputs: no text of the
    # whole results.json quotes an array of them (this bundle's checks have no public ones).
    texts = [leaky["output"], *(t["output"] for t in leaky["tests"]), *(t["name"] for t in leaky["tests"])]
    for text in texts:
        assert len(FRACTION.findall(text)) <= MAX_FRACTIONS, text
    assert "inputs: [" not in json.dumps(leaky)
    # Markdown: a failed check's reasons are a list, the function names code.
    assert any(t["output"].startswith("- ") and "`dot`" in t["output"] for t in dot)
