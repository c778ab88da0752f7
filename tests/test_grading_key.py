"""The grading key changes with what decides a grade, and only with that.

Each test copies the trees the key reads into a temporary folder, edits one
thing, and compares keys: prose (docstrings, comments, schema descriptions)
leaves saved grades valid; points, check logic and the reference do not.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from autograder.spec import PACKAGE_DATA, REPO, SPEC, SPEC_FILE
from autograder.spec.grading_key import GRADING_CODE, code_fingerprint, grading_key

SCHEMA = f"autograder/spec/{PACKAGE_DATA.name}/{SPEC.schema}"  # the grader's copy of schemas/'s


@pytest.fixture
def tree(tmp_path) -> Path:
    """A copy of exactly what the key reads."""
    for top in (*GRADING_CODE, "autograder/spec"):  # spec/data: the schema the grader reads
        shutil.copytree(REPO / top, tmp_path / top, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def key_after(tree: Path, relative: str, edit) -> str:
    path = tree / relative
    before = path.read_text(encoding="utf-8")
    after = edit(before)
    assert after != before, "the edit must change the file"
    path.write_text(after, encoding="utf-8")
    grading_key.cache_clear()
    return grading_key(tree)


def test_the_copy_has_the_same_key_as_the_checkout(tree):
    assert grading_key(tree) == SPEC.grading_key


@pytest.mark.parametrize(
    ("relative", "edit"),
    [
        ("autograder/bundles/h2_attention/checks/test_scores.py",
         lambda t: t.replace('"""Hidden checks for', '"""Hidden checks, reworded, for', 1)),
        ("autograder/bundles/h2_attention/checks/test_scores.py", lambda t: t.replace("\n\n\n", "\n\n\n# a new comment\n", 1)),
        ("solutions/attention.py", lambda t: re.sub(r'(def attention_scores[^"]*""")', r"\1Reworded. ", t, count=1)),
        ("autograder/grading/scoring.py", lambda t: t.replace('"""Points and feedback for one graded part."""',
                                                               '"""Points and feedback for a part."""')),
        (SCHEMA, lambda t: t.replace('"description": "', '"description": "Reworded. ', 1)),
        (f"autograder/spec/{SPEC_FILE}", lambda t: t.replace("# Graded parts", "# The graded parts", 1)),
        ("autograder/bundles/h2_attention/checks/test_scores.py", lambda t: t.replace('requires="', 'requires="Reworded: ', 1)),
    ],
    ids=["check docstring", "check comment", "reference docstring", "scoring docstring",
         "schema description", "spec comment", "requirement clause"],
)
def test_prose_edits_keep_saved_grades(tree, relative, edit):
    original = grading_key(tree)
    assert key_after(tree, relative, edit) == original


@pytest.mark.parametrize(
    ("relative", "edit"),
    [
        (f"autograder/spec/{SPEC_FILE}", lambda t: re.sub(r"points = (\d+)", lambda m: f"points = {int(m[1]) + 1}", t, count=1)),
        ("autograder/bundles/h2_attention/checks/test_scores.py", lambda t: t.replace("weight=2,", "weight=3,", 1)),
        ("solutions/attention.py", lambda t: t.replace("math.sqrt", "np.sqrt", 1)),
        ("autograder/evidence/limitation.py", lambda t: t.replace("MIN_WORDS = ", "MIN_WORDS = 1 + ", 1)),
        (SCHEMA, lambda t: json.dumps({**json.loads(t), "minProperties": 1})),
    ],
    ids=["part points", "check weight", "reference code", "limitation rule", "schema rule"],
)
def test_changes_that_decide_a_grade_regrade(tree, relative, edit):
    original = grading_key(tree)
    assert key_after(tree, relative, edit) != original


def test_code_fingerprint_ignores_docstrings_and_comments_only():
    base = 'def f(x):\n    """Doc."""\n    return x + 1\n'
    assert code_fingerprint(base) == code_fingerprint('def f(x):\n    # note\n    return x + 1\n')
    assert code_fingerprint(base) != code_fingerprint('def f(x):\n    """Doc."""\n    return x + 2\n')
