"""`make demo`'s sample cohort (H2's, in its bundle's ``samples``) shows every section of the
report (issue 15): the Makefile and the samples agree on the due date and cohort, every
command of the demo parses, and the planted near-copy is a copy (same code, other names and
comments) that still runs the same. (That the report then finds exactly this pair is
tests/end_to_end/test_pages_in_chromium.py's, on a graded course.) The builder needs only the installed package."""

from __future__ import annotations

import ast
import contextlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.authoring import sample_cohort as engine_builder
from autograder.base.course import parse_time
from autograder.bundles.h2_attention import samples as sample_cohort
from autograder.cli import build_parser
from autograder.spec import REPO

MAKEFILE = (REPO / "Makefile").read_text(encoding="utf-8")


def _variables() -> dict[str, str]:
    return dict(re.findall(r"^([A-Z_]+) := (.*)$", MAKEFILE, flags=re.M))


def demo_recipe() -> list[str]:
    """The demo target's command lines, with the Makefile's own variables filled in."""
    recipe = MAKEFILE.split("\ndemo:", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    lines = []
    for line in recipe:
        line = line.strip()
        for name, value in _variables().items():
            line = line.replace(f"$({name})", value)
        lines.append(line)
    return lines


def test_the_makefile_and_the_sample_cohort_agree_on_the_due_date():
    assert parse_time(_variables()["DEMO_DUE"]) == sample_cohort.DEMO_DUE


@pytest.mark.parametrize("line", [line for line in demo_recipe() if "-m autograder " in line])
def test_every_autograder_command_of_the_demo_parses(line):
    words = shlex.split(line)
    words = words[words.index("autograder") + 1:]
    with contextlib.redirect_stderr(io.StringIO()) as errors:
        try:
            build_parser(words).parse_args(words)
        except SystemExit:
            pytest.fail(f"`make demo` runs `{line}`, which the command line refuses: "
                        f"{errors.getvalue().strip()}")


def test_the_demo_grades_and_reports_its_cohort_against_its_due_date():
    lines = demo_recipe()
    cohort = _variables()["DEMO_COHORT"]
    (build,) = [line for line in lines if "sample_cohort" in line]
    (grade,) = [line for line in lines if " autograde " in line]
    (report,) = [line for line in lines if " report " in line]
    assert f"--cohort {cohort}" in build and f"--cohort {cohort}" in grade  # evidence inputs
    assert "--due" in grade and f"--cohort {cohort}" in report
    assert lines.index(report) > lines.index(grade)


def test_every_variant_is_in_the_demo_and_only_late_is_late():
    names = [variant.name for variant in sample_cohort.VARIANTS]
    assert len(set(names)) == len(names)
    for name in ("own_solution", "near_copy", "late", "unjudged_limitation"):
        assert name in names
    size = len(names)
    times = [sample_cohort.on_time(number, size) for number in range(size)]
    assert max(times) < sample_cohort.DEMO_DUE
    assert sample_cohort.DEMO_DUE + sample_cohort.LATE_BY > sample_cohort.DEMO_DUE
    assert [v.name for v in sample_cohort.VARIANTS if v.late] == ["late"]


def test_the_near_copy_renames_variables_and_changes_comments_only():
    for function, source in sample_cohort.own_solution().items():
        copy = sample_cohort.renamed_copy(source, "my note")
        original, copied = ast.parse(source).body[0], ast.parse(copy).body[0]
        # The signature is the same (the checks call by keyword), the body is not the same text.
        assert ast.dump(original.args) == ast.dump(copied.args), function
        assert copy != source and "# my note" in copy
        assert "# " not in source or not set(re.findall(r"#.*", source)) & set(
            re.findall(r"#.*", copy)), f"{function} kept a comment"
        # Same structure once names are ignored: a renamed copy, not a rewrite.
        assert _shape(original) == _shape(copied), function


def _shape(node: ast.AST) -> str:
    class Anonymous(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name) -> ast.Name:
            return ast.Name("V", name.ctx)

    return ast.dump(Anonymous().visit(node))


def test_the_near_copy_computes_what_the_original_computes():
    import numpy as np

    made = {}
    for name in ("own_solution", "near_copy"):
        variant = next(v for v in sample_cohort.VARIANTS if v.name == name)
        notebook = sample_cohort.solved_notebook(name)
        variant.apply(notebook, REPO, name)
        made[name] = sample_cohort.own_functions(notebook)
    assert made["own_solution"]["stable_softmax"] is not made["near_copy"]["stable_softmax"]
    rng = np.random.default_rng(0)
    Q, K, V = (rng.normal(size=(2, 3, 4)) for _ in range(3))
    mask = np.array([True, True, False])
    (mine, _), (theirs, _) = (made[name]["scaled_dot_product_attention"](Q, K, V, mask=mask)
                              for name in made)
    np.testing.assert_array_equal(mine, theirs)
    np.testing.assert_array_equal(*(made[name]["torch_sdpa"](Q, K, V, mask=mask) for name in made))


# ------------------------------------------------------------------ self-contained


def test_the_near_copy_pairs_original_is_written_once():
    """tests/h2_attention/correct/einsum_everywhere.py (graded 100/100 there) is a link to the bundle's
    sample, which ships with the package."""
    linked = REPO / "tests" / "h2_attention" / "correct" / "einsum_everywhere.py"
    assert linked.is_symlink() and linked.resolve() == sample_cohort.OWN_SOLUTION.resolve()
    assert sample_cohort.OWN_SOLUTION.parent == Path(sample_cohort.__file__).parent


def _without_cell_ids(path: Path, installed: Path | None = None) -> dict:
    text = path.read_text(encoding="utf-8")
    if installed:  # reads_reference names the reference where it is installed
        text = text.replace(str(installed), str(REPO))
    data = json.loads(text)
    for cell in data["cells"]:
        cell.pop("id", None)  # a cell a sample appends gets a random id
    return data


@pytest.mark.slow  # two builds of the cohort, one in a fresh interpreter (about 10 s)
def test_the_demo_builds_from_the_package_alone(tmp_path):
    """What `pip install .` installs (the package, its bundle's data as files, the
    reference) builds the same cohort as the checkout: no tests/, source/ or release/."""
    installed = tmp_path / "site"
    for name in ("autograder", "solutions"):
        shutil.copytree(REPO / name, installed / name, symlinks=False,
                        ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(installed)}
    built = tmp_path / "course"
    done = subprocess.run(
        [sys.executable, "-m", "autograder.authoring.sample_cohort", "h2_attention",
         str(built), "--cohort", "demo-2026"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    where = subprocess.run([sys.executable, "-c", "import autograder; print(autograder.__file__)"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    assert where.stdout.startswith(str(installed))
    assert not (built / "source").exists()  # nothing of a checkout to copy: none is needed

    here = sample_cohort.build_sample_cohort(tmp_path / "checkout", cohort="demo-2026")
    students = sorted(path.name for path in (built / "submitted").iterdir())
    assert students == sorted(here)
    for student in students:
        mine = built / "submitted" / student / "h2_attention"
        theirs = tmp_path / "checkout" / "submitted" / student / "h2_attention"
        assert sorted(p.name for p in mine.iterdir()) == sorted(p.name for p in theirs.iterdir())
        for path in mine.iterdir():
            if path.suffix == ".ipynb" and student != "s012-broken-notebook":
                assert _without_cell_ids(path, installed) == _without_cell_ids(theirs / path.name)
            else:
                assert path.read_bytes() == (theirs / path.name).read_bytes(), path


def test_an_assignment_without_samples_is_one_line(tmp_path, capsys):
    bundle = tmp_path / "bundles" / "tiny"
    bundle.mkdir(parents=True)
    (bundle / "assignment.toml").write_text(
        'name = "tiny"\nnotebook = "tiny.ipynb"\ngrade_cell_prefix = "check_"\ntotal = 1\n'
        '[[parts]]\nname = "f"\nkind = "function"\npoints = 1\n')
    argv = ["tiny", str(tmp_path / "course"), "--assignments", str(tmp_path / "bundles")]
    assert engine_builder.main(argv) == 2
    assert capsys.readouterr().err == (f"error: assignment 'tiny' ships no sample cohort (no "
                                       f"samples/ in {bundle})\n")
    assert engine_builder.main(["h3_decoder", str(tmp_path / "course")]) == 2
    line = capsys.readouterr().err
    assert line.count("\n") == 1 and "no assignment called 'h3_decoder'" in line
    assert "h2_attention" in line
