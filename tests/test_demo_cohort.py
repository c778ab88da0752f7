"""`make demo`'s sample cohort shows every section of the report (issue 15): the Makefile and
``sample_cohort`` agree on the due date and cohort, every command of the demo parses, and the
planted near-copy is a copy (same code, other names and comments) that still runs the same.
(That the report then finds exactly this pair is tests/browser's, on a graded course.)"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import shlex

import pytest

from autograder.authoring import sample_cohort
from autograder.batch.course import parse_time
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
