"""`gradescope build` writes the autograder.zip Gradescope expects, and it grades.

The zip is unpacked into a temporary tree laid out like Gradescope's /autograder
(source/, submission/, submission_metadata.json, results/, run_autograder copied to the
top) and run_autograder runs there against sample submissions, on this machine's installed
dependencies: setup.sh is not run (it installs torch and the rest from the network, minutes
of downloads); its content is checked instead. results.json is checked against Gradescope's
documented fields.
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
from tests.support.gradescope_tree import run_upload, unpack_like_gradescope
from tests.support.h2 import SPEC

TOP_LEVEL = {"setup.sh", "run_autograder", scripts.REQUIREMENTS_TXT, scripts.CONFIG_JSON}
TEST_FIELDS = {"name", "score", "max_score", "status", "output", "output_format", "tags",
               "visibility"}
VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}
URL = re.compile(r"\b(?:https?|ftp|git|ssh)://\S+|\bgit@\S+")
FRACTION = re.compile(r"\d\.\d")


@pytest.fixture(scope="module")
def zip_path(tmp_path_factory) -> Path:
    return build.build(tmp_path_factory.mktemp("zip"), SPEC)


def pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_the_zip_holds_the_scripts_and_the_grader_and_nothing_of_a_course(zip_path):
    with zipfile.ZipFile(zip_path) as archive:
        names = archive.namelist()
        modes = {info.filename: info.external_attr >> 16 for info in archive.infolist()}
    assert TOP_LEVEL <= set(names)  # at the root of the archive, not in a folder
    others = set(names) - TOP_LEVEL
    assert all(name.startswith(("autograder/", "solutions/")) for name in others), others
    bundle = f"autograder/bundles/{SPEC.name}"
    for name in (f"{bundle}/checks/test_softmax.py", f"{bundle}/checks/pytest.ini",
                 f"{bundle}/assignment.toml", f"{bundle}/data/{SPEC.schema}",
                 f"{bundle}/data/{SPEC.notebook}",
                 "autograder/views/templates/feedback.html.j2", "solutions/attention.py"):
        assert name in names
    # The engine and this one bundle: no other assignment's.
    assert {name.split("/")[2] for name in names if name.startswith("autograder/bundles/")
            and name.count("/") > 2} == {SPEC.name}
    with zipfile.ZipFile(zip_path) as archive:
        config = json.loads(archive.read(scripts.CONFIG_JSON))
        run = archive.read("run_autograder").decode()
    assert config == {"assignment": SPEC.name, "assignments": [], "student_id": "sid",
                      "late_policy": None, "hidden_visibility": "after_due_date"}
    assert f'--config "$root/source/{scripts.CONFIG_JSON}"' in run
    # Nothing of a course, a checkout or an environment, at any depth.
    banned = {"course", "courses", "submitted", "autograded", "feedback", "gradebook.db",
              ".venv", ".git", "__pycache__", "tests", "cohorts.toml", "grades.csv",
              SPEC.evidence_file, "source", "release", "nbgrader_config.py"}
    assert not [n for n in names if banned & set(n.split("/"))]
    assert not [n for n in names if n.endswith((".pyc", ".db", ".csv", ".zip"))]
    for script in ("setup.sh", "run_autograder"):
        assert modes[script] & stat.S_IXUSR, f"{script} is not executable"


def test_the_zip_is_reproducible(zip_path, tmp_path):
    assert build.build(tmp_path, SPEC).read_bytes() == zip_path.read_bytes()


def test_setup_installs_pyproject_pins_and_cpu_torch_and_nothing_else(zip_path):
    with zipfile.ZipFile(zip_path) as archive:
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


def test_the_scripts_are_valid_bash(zip_path, tmp_path):
    with zipfile.ZipFile(zip_path) as archive:
        for script in ("setup.sh", "run_autograder"):
            (tmp_path / script).write_bytes(archive.read(script))
            done = subprocess.run(["bash", "-n", str(tmp_path / script)], capture_output=True,
                                  text=True, check=False)
            assert done.returncode == 0, done.stderr


def test_build_help_and_a_bad_out_are_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    done = subprocess.run([sys.executable, "-m", "autograder", "gradescope", "build", "--out",
                           str(blocker / "sub")], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("error: cannot create")


def test_build_says_it_replaced_an_earlier_zip_and_counts_the_roster_in_english(tmp_path):
    """Issue 37: "(1 students)", and an earlier autograder.zip overwritten without a word."""
    roster = tmp_path / "roster.csv"
    roster.write_text("Email,SID\nada@uni.example,u1\n")

    def build(*extra: str) -> str:
        done = subprocess.run([sys.executable, "-m", "autograder", "gradescope", "build",
                               "--out", str(tmp_path / "dist"), *extra], cwd=tmp_path,
                              capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stderr
        return done.stdout

    first = build("--roster", str(roster))
    assert first.startswith("wrote ") and "(1 student)" in first, first
    assert build().startswith("replaced ")


# ------------------------------------------------------------------ in Gradescope's tree


def leaky_submission(folder: Path, student: str) -> None:
    """A correct notebook whose stable_softmax then quotes its inputs in an error."""
    notebook = solved_notebook(student)
    at = next(i for i, cell in enumerate(notebook.cells)
              if grade_id(cell) == SPEC.part("stable_softmax").cell)
    notebook.cells.insert(at + 1, nbformat.v4.new_code_cell(
        "def stable_softmax(scores, mask=None, temperature=1.0):\n"
        "    raise ValueError('inputs: ' + np.array2string(np.asarray(scores, dtype=float),"
        " precision=6, threshold=10**6))\n"))
    folder.mkdir(parents=True)
    (folder / SPEC.notebook).write_text(nbformat.writes(notebook), encoding="utf-8")
    write_evidence(folder, student)


def correct_submission(folder: Path, student: str) -> None:
    folder.mkdir(parents=True)
    (folder / SPEC.notebook).write_text(nbformat.writes(solved_notebook(student)),
                                        encoding="utf-8")
    write_evidence(folder, student)


def run_in_tree(root: Path, student: str, make_submission) -> dict:
    for stale in ("submission", "results"):
        shutil.rmtree(root / stale, ignore_errors=True)
    make_submission(root / "submission", student)
    return run_upload(root, student, SPEC.name)


def check_gradescope_fields(data: dict, parts: Iterable[str] = SPEC.part_points) -> None:
    """Gradescope's documented results.json fields, with their types; each check tagged with
    one of the assignment's ``parts``; the score is the checks' points less the late penalty,
    and a "needs a person" entry (staff only, worth nothing) is there exactly when the result
    needs one."""
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

    correct = run_in_tree(root, "s101", correct_submission)
    check_gradescope_fields(correct)
    assert correct["score"] == correct["max_score"] == SPEC.total_points
    assert all(test["status"] == "passed" for test in correct["tests"])
    assert correct["extra_data"]["student"] == "s101"  # from submission_metadata.json
    assert (root / "results" / "feedback.html").is_file()

    leaky = run_in_tree(root, "s102", leaky_submission)
    check_gradescope_fields(leaky)
    softmax = [t for t in leaky["tests"] if t["tags"] == ["stable_softmax"]]
    assert softmax and all(t["status"] == "failed" and t["score"] == 0 for t in softmax)
    assert any(INPUTS_HIDDEN.replace("(", r"\(").replace(")", r"\)") in t["output"]
               for t in softmax), [t["output"] for t in softmax]
    # Whatever an instructor sets visible, nothing shows the hidden inputs: no text of the
    # whole results.json quotes an array of them.
    texts = [leaky["output"], *(t["output"] for t in leaky["tests"]), *(t["name"] for t in leaky["tests"])]
    for text in texts:
        assert len(FRACTION.findall(text)) <= MAX_FRACTIONS, text
    # The one array a message may quote is the lecture's hand example (public numbers): the
    # SDPA's hand-example check fails on the softmax's error, which nothing carries forward
    # from a softmax that raises in every check.
    public = re.compile(r"inputs: \[\[0\.707107 0\.\s+0\.707107\]\]")
    assert "inputs: [" not in public.sub("", json.dumps(leaky))
    # Markdown: a failed check's reasons are a list, the function names code.
    assert any(t["output"].startswith("- ") and "`stable_softmax`" in t["output"]
               for t in softmax)
