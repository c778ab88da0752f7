"""The student's environment ships with the release: a pinned requirements.txt, made from
pyproject.toml's pins, that installs what the notebook needs and nothing of the course's
side (no nbgrader, no solutions, no grader). The slow test installs it into a fresh
virtual environment and runs a solved release notebook there, as a student would."""

from __future__ import annotations

import ast
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import nbformat
import pytest
from packaging.utils import canonicalize_name
from packaging.version import Version

from autograder.authoring import release, student_env
from autograder.authoring.sync import grade_id
from autograder.bundles.h2_attention.samples import solved_notebook
from autograder.spec import REPO
from tests.support.commands import run_ok as run
from tests.support.h2 import H2 as SPEC
from tests.support.kernels import nbconvert_execute

SHIPPED = SPEC.release_dir / student_env.REQUIREMENTS_NAME


def pins(path: Path = SHIPPED) -> dict[str, str]:
    found, problems = student_env.parse(path.read_text(encoding="utf-8"))
    assert problems == []
    return found


# ------------------------------------------------------------------ the file and pyproject


def test_source_requirements_are_in_sync_with_pyproject():
    assert student_env.drift(SPEC) == []


def test_the_release_ships_the_source_file_unchanged():
    assert SHIPPED.read_bytes() == student_env.requirements_path(SPEC).read_bytes()


def test_every_pin_is_the_version_pyproject_allows():
    wanted = student_env.pyproject_requirements()
    shipped = pins()
    assert shipped["torch"] == "2.13.0"  # pyproject's exact pin, not a local build's label
    for name, version in shipped.items():
        if name in wanted:
            assert wanted[name].specifier.contains(Version(version), prereleases=True), (
                f"{name}=={version} is outside pyproject.toml's {wanted[name]}")
            exact = student_env.exact_pin(wanted[name])
            assert exact in (None, version)
        else:
            assert name in student_env.FRONT_END


def test_it_installs_the_notebooks_imports_a_kernel_and_jupyterlab_and_nothing_else():
    """Every third-party module the notebook imports, the kernel, the front end: no more."""
    notebook = nbformat.read(SPEC.release_notebook, as_version=4)
    modules = set()
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        for node in ast.walk(ast.parse(cell.source)):
            if isinstance(node, ast.Import):
                modules |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                modules.add(node.module.split(".")[0])
    third_party = modules - set(sys.stdlib_module_names) - {"__future__"}
    distributions = importlib.metadata.packages_distributions()
    imported = {canonicalize_name(distributions[module][0]) for module in third_party}
    # Read from the source notebook; the release's imports (read here) are the same.
    assert imported == set(student_env.libraries(SPEC))
    assert list(pins()) == [*student_env.libraries(SPEC, pins()), "ipykernel", "jupyterlab"]
    assert list(pins())[:3] == ["numpy", "torch", "matplotlib"]  # the file's order is kept


def test_a_notebook_import_nothing_installed_provides_is_one_line(tmp_path):
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import numpy as np\nimport not_a_module_anywhere\n%matplotlib inline")])
    path = tmp_path / "x.ipynb"
    nbformat.write(notebook, path)
    assert student_env.imported_modules(path) == ["numpy", "not_a_module_anywhere"]
    with pytest.raises(student_env.StudentEnvError, match="imports not_a_module_anywhere, which no"):
        student_env.imported_distributions(path)


def test_it_names_neither_nbgrader_nor_this_repository():
    text = SHIPPED.read_text(encoding="utf-8")
    assert student_env.leaks(text) == []
    assert "nbgrader" not in text.lower()
    assert str(REPO) not in text and "-e" not in text.split() and "autograder" not in text
    shipped = {*student_env.libraries(SPEC), *student_env.JUPYTER}
    grader_only = set(student_env.pyproject_requirements()) - shipped
    assert {"nbgrader", "tqdm", "pyseccomp"} <= grader_only
    assert not grader_only & set(pins())


@pytest.mark.parametrize("edit, complaint", [
    (lambda t: t.replace("torch==2.13.0", "torch==2.12.0"), "pins torch==2.12.0, pyproject"),
    (lambda t: t.replace("numpy==", "numpy==1.26.4\n#"), "pins numpy==1.26.4, pyproject"),
    (lambda t: t.replace("jupyterlab==", "#jupyterlab=="), "lacks jupyterlab"),
    (lambda t: t + "tqdm==4.66.0\n", "pins tqdm, which the notebook does not need"),
    (lambda t: t + "nbgrader==0.9.6\n", "installs nbgrader"),
    (lambda t: t.replace("# Jupyter", "# Jupyter (not nbgrader)"), "names nbgrader"),
    (lambda t: t + "-e .\n", "not a `name==version` pin"),
    (lambda t: t.replace("# torch", "# made in the course repository\n# torch"),
     "not in the generated form"),
])
def test_drift_from_pyproject_is_detected_and_repaired(tmp_path, edit, complaint):
    path = tmp_path / student_env.REQUIREMENTS_NAME
    path.write_text(edit(student_env.requirements_path(SPEC).read_text(encoding="utf-8")))
    found = student_env.drift(SPEC, path)
    assert any(complaint in line for line in found), found
    assert student_env.write(SPEC, path) and student_env.drift(SPEC, path) == []
    # Each pin back as committed, or (where the edit removed it) the version installed here.
    for name, version in pins(path).items():
        assert version in (pins()[name], student_env.installed_version(name)), name


def test_a_pin_moves_only_when_pyproject_says_so(tmp_path):
    """Regenerating keeps a range's pin while pyproject allows it (CI may install newer)."""
    path = tmp_path / student_env.REQUIREMENTS_NAME
    older = student_env.requirements_path(SPEC).read_text().replace(
        f"numpy=={pins()['numpy']}", "numpy==2.1.0")
    path.write_text(older)
    assert student_env.drift(SPEC, path) == [] and student_env.expected_text(SPEC, path) == older
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(student_env.PYPROJECT.read_text().replace('"numpy>=2.1,<3"',
                                                                   '"numpy>=2.2,<3"'))
    assert any("numpy==2.1.0" in line for line in student_env.drift(SPEC, path, pyproject))
    student_env.write(SPEC, path, pyproject)
    assert pins(path)["numpy"] == student_env.installed_version("numpy")


@pytest.mark.parametrize("planted, complaint", [
    ("-e .", "not a `name==version` pin"),
    (f"-e {REPO}", "not a `name==version` pin"),
    (f"h2-attention @ file://{REPO}", "not a `name==version` pin"),
    ("git+https://example.org/course/h2-attention.git", "not a `name==version` pin"),
    ("--index-url https://example.org/simple", "not a `name==version` pin"),
    ("h2-attention==0.1.0", "this repository's own package"),
    ("nbgrader==0.9.6", "installs nbgrader"),
    ("# then install nbgrader for the Formgrader", "names nbgrader"),
    (f"# or copy {REPO}/solutions", "repository's path"),
])
def test_the_release_leak_checker_refuses_a_requirements_file_that_reaches_the_course(
        tmp_path, planted, complaint):
    copy = tmp_path / "release"
    shutil.copytree(SPEC.release_dir, copy)
    assert release.leaks(copy, SPEC) == []
    with (copy / student_env.REQUIREMENTS_NAME).open("a") as handle:
        handle.write(planted + "\n")
    found = release.leaks(copy, SPEC)
    assert any(line.startswith("requirements.txt: ") and complaint in line for line in found), found


# ------------------------------------------------------------------ a student's fresh venv

STUDENT = "s-fresh-venv"
PROBE = """\
import importlib.util, json, sys
print("STUDENT-ENV " + json.dumps({
    "prefix": sys.prefix,
    "found": [m for m in ("solutions", "autograder", "nbgrader") if importlib.util.find_spec(m)],
}))"""


def student_shell(venv: Path, home: Path) -> dict[str, str]:
    """An activated venv in a shell that knows nothing of this repository or its venv."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "MPLBACKEND")
           and not key.startswith("JUPYTER")}
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and not p.startswith(str(REPO))]
    env["PATH"] = os.pathsep.join([str(venv / "bin"), *path])
    env["VIRTUAL_ENV"] = str(venv)
    # Jupyter's per-user kernels and settings, as a new student has them: none.
    env["JUPYTER_CONFIG_DIR"] = str(home / "jupyter-config")
    env["JUPYTER_DATA_DIR"] = str(home / "jupyter-data")
    env["IPYTHONDIR"] = str(home / "ipython")
    return env



@pytest.mark.slow
def test_a_fresh_venv_from_the_release_alone_runs_the_solved_notebook(tmp_path):
    """What the students' page (docs/students.md) says, in a folder that holds only the release."""
    started = time.monotonic()
    folder = tmp_path / "student" / SPEC.name
    shutil.copytree(SPEC.release_dir, folder)  # what fetch_assignment gives the student
    venv = tmp_path / "student-venv"
    base = Path(getattr(sys, "_base_executable", sys.executable))
    subprocess.run([str(base), "-m", "venv", str(venv)], check=True, timeout=120)
    env = student_shell(venv, tmp_path / "home")
    log = tmp_path / "pip.log"  # timestamps of every step, if the install is ever slow
    # The students' command, with --no-compile: byte-compiling every installed module (torch
    # and JupyterLab hold thousands) takes half the install and changes nothing that runs.
    run(["python", "-m", "pip", "install", "--quiet", "--no-compile", "--log", str(log),
         "-r", student_env.REQUIREMENTS_NAME], folder, env, timeout=1200)
    installed = {canonicalize_name(line.split("==")[0]): line.split("==")[1]
                 for line in run(["python", "-m", "pip", "freeze"], folder, env, 60).splitlines()
                 if "==" in line}
    for name, version in pins(folder / student_env.REQUIREMENTS_NAME).items():
        assert Version(installed[name]).public == version
    assert "nbgrader" not in installed and "h2-attention" not in installed
    installed_at = time.monotonic()

    notebook = solved_notebook(STUDENT)
    notebook.cells.append(nbformat.v4.new_code_cell(PROBE))
    nbformat.write(notebook, folder / SPEC.notebook)
    done = nbconvert_execute(folder, SPEC.notebook, jupyter=str(venv / "bin" / "jupyter"), env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    executed = nbformat.read(folder / "executed.ipynb", as_version=4)
    print(f"\nfresh venv: install {installed_at - started:.0f} s, "
          f"notebook {time.monotonic() - installed_at:.0f} s")

    errors = [(grade_id(c), o["ename"], o["evalue"][:200]) for c in executed.cells
              for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert errors == []
    checks = [c for c in executed.cells if c.metadata.get("nbgrader", {}).get("grade")]
    assert len(checks) == len(SPEC.function_parts) + 2
    for cell in checks:
        streams = [o for o in cell.get("outputs", []) if o["output_type"] == "stream"]
        assert "".join(o["text"] for o in streams if o["name"] == "stdout").strip(), grade_id(cell)
        assert not [o for o in streams if o["name"] == "stderr"], grade_id(cell)

    evidence = json.loads((folder / SPEC.evidence_file).read_text())
    schema = json.loads((folder / SPEC.schema).read_text())
    jsonschema.validate(evidence, schema)
    assert STUDENT in json.dumps(evidence)

    probe = next(o["text"] for o in executed.cells[-1].outputs if o["output_type"] == "stream")
    kernel = json.loads(probe.split("STUDENT-ENV ", 1)[1])
    assert Path(kernel["prefix"]).resolve() == venv.resolve(), "the kernel was not the venv's"
    assert kernel["found"] == []
    for module in ("solutions", "autograder", "nbgrader"):
        done = subprocess.run(["python", "-c", f"import {module}"], cwd=folder, env=env,
                              capture_output=True, text=True, check=False)
        assert done.returncode != 0 and "ModuleNotFoundError" in done.stderr, module
# The students' page says only what a student has: the release folder, never the course's side.


def students_section() -> str:
    """The students' page (docs/students.md; the README links to it), without its title."""
    page = (REPO / "docs" / "students.md").read_text(encoding="utf-8")
    return page.split("\n", 1)[1].lstrip("\n")


def test_the_students_page_tells_students_to_install_from_the_release_alone():
    section = students_section()
    # From the folder that holds the release's (the venv beside it: issue 50, item 7).
    assert f"pip install -r {SPEC.name}/{student_env.REQUIREMENTS_NAME}" in section
    assert "-m venv" in section
    assert student_env.REQUIREMENTS_NAME in section.split("\n\n", 1)[0]  # "You receive ..."
    assert "CPU wheel index" in section
    for course_side in ("-e .", "this repository", "pip install nbgrader", "solutions/",
                        "autograder", "make setup", "pyproject"):
        assert course_side not in section, f"the Students section says {course_side!r}"
