"""Each assignment's grading key changes with what decides its grades, and only with that.

Each test lays out a copy of what the keys read, as the package holds it (the engine's
grading code, H2's bundle and, beside it, the second bundle of tests/bundles) with H2's
reference next to it, edits one thing, and compares keys: prose (docstrings, comments,
``requires=`` clauses, schema descriptions) leaves saved grades valid; points, check logic,
the reference and the schema's rules regrade; and editing one bundle never regrades
another's cohorts.
"""

from __future__ import annotations

import json
import re
import shutil
import types
from pathlib import Path

import pytest

from autograder.assignments import grading_key as key_module
from autograder.assignments.bundle import Assignment, open_bundle
from autograder.assignments.grading_key import ENGINE, ENGINE_GRADING_CODE, code_fingerprint
from autograder.spec import SPEC_FILE
from tests.bundles import students
from tests.support.h2 import H2

SECOND = students.NAME
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc")


class Tree:
    """The copy: ``engine/`` (the package's grading code and ``bundles/``) and, when H2's
    reference lives outside its bundle, ``reference/`` (a copy of it)."""

    def __init__(self, top: Path) -> None:
        self.top = top
        self.engine = top / "autograder"
        for tree in ENGINE_GRADING_CODE:
            if (ENGINE / tree).is_dir():
                shutil.copytree(ENGINE / tree, self.engine / tree, ignore=IGNORE)
        # symlinks=False: the bundle's data/ links (to schemas/ and release/) become files
        shutil.copytree(H2.root, self.bundle(H2.name), ignore=IGNORE)
        shutil.copytree(students.BUNDLES / SECOND, self.bundle(SECOND), ignore=IGNORE)
        self.reference: Path | None = None
        outside = key_module._reference_root(H2)
        if outside is not None:
            self.reference = top / "reference" / outside.name
            copy = shutil.copytree if outside.is_dir() else shutil.copy2
            copy(outside, self.reference, **({"ignore": IGNORE} if outside.is_dir() else {}))

    def bundle(self, name: str) -> Path:
        return self.engine / "bundles" / name

    def file(self, owner: str, relative: str) -> Path:
        """A file of the copy: ``engine``'s, ``reference``'s or a bundle's (by name)."""
        base = {"engine": self.engine, "reference": self.reference}.get(owner) or self.bundle(
            owner)
        return base / relative

    def assignment(self, name: str) -> Assignment:
        """The copied bundle as the engine opens one (H2's reference: the copy)."""
        assignment = open_bundle(self.bundle(name), origin=str(self.top),
                                 package=f"_grading_key_copy_{name}")
        if name == H2.name and self.reference is not None:
            init = self.reference / "__init__.py" if self.reference.is_dir() else self.reference
            copied = types.ModuleType(H2.spec.reference)
            copied.__file__ = str(init)
            assignment.__dict__["reference"] = copied  # the cached reference: the copy's
        return assignment

    def key(self, name: str) -> str:
        key_module._key.cache_clear()
        return key_module.grading_key(self.assignment(name), engine=self.engine)


@pytest.fixture
def tree(tmp_path) -> Tree:
    return Tree(tmp_path)


def edit(path: Path, change) -> None:
    before = path.read_text(encoding="utf-8")
    after = change(before)
    assert after != before, f"the edit must change {path}"
    path.write_text(after, encoding="utf-8")


def move_a_point(spec: str) -> str:
    """One point moved from the second part to the first (the total stays valid)."""
    steps = iter((+1, -1))
    return re.sub(r"^points = (\d+)", lambda m: f"points = {int(m[1]) + next(steps)}", spec,
                  count=2, flags=re.M)


def find(tree: Tree, owner: str, name: str) -> str:
    """The path (relative to ``owner``'s folder) of the one file called ``name`` there."""
    base = tree.file(owner, ".")
    (path,) = [p for p in base.rglob(name) if "__pycache__" not in p.parts]
    return path.relative_to(base).as_posix()


def test_the_copy_has_the_same_keys_as_the_checkout(tree):
    assert tree.key(H2.name) == H2.grading_key
    assert tree.key(SECOND) == students.assignment().grading_key
    assert tree.key(SECOND) != tree.key(H2.name)


REWORDINGS = [
    ("check docstring", H2.name, "checks/test_scores.py",
     lambda t: t.replace('"""Hidden checks for', '"""Hidden checks, reworded, for', 1)),
    ("check comment", H2.name, "checks/test_scores.py",
     lambda t: t.replace("\n\n\n", "\n\n\n# a new comment\n", 1)),
    ("requirement clause", H2.name, "checks/test_scores.py",
     lambda t: t.replace('requires="', 'requires="Reworded: ', 1)),
    ("spec comment", H2.name, SPEC_FILE,
     lambda t: t.replace("# Graded parts", "# The graded parts", 1)),
    ("schema description", H2.name, f"data/{H2.schema}",
     lambda t: t.replace('"description": "', '"description": "Reworded. ', 1)),
    ("engine docstring", "engine", "grading/scoring.py",
     lambda t: re.sub(r'"""', '"""Reworded. ', t, count=1)),
]


@pytest.mark.parametrize(("owner", "relative", "change"),
                         [entry[1:] for entry in REWORDINGS],
                         ids=[entry[0] for entry in REWORDINGS])
def test_prose_edits_keep_saved_grades(tree, owner, relative, change):
    original = tree.key(H2.name)
    edit(tree.file(owner, relative), change)
    assert tree.key(H2.name) == original


def test_rewording_the_reference_keeps_saved_grades(tree):
    original = tree.key(H2.name)
    relative = find(tree, "reference", "attention.py") if tree.reference else "reference.py"
    owner = "reference" if tree.reference else H2.name
    edit(tree.file(owner, relative),
         lambda t: re.sub(r'(def attention_scores[^"]*""")', r"\1Reworded. ", t, count=1))
    assert tree.key(H2.name) == original


def test_changing_the_reference_regrades(tree):
    original = tree.key(H2.name)
    relative = find(tree, "reference", "attention.py") if tree.reference else "reference.py"
    owner = "reference" if tree.reference else H2.name
    edit(tree.file(owner, relative), lambda t: t.replace("math.sqrt", "np.sqrt", 1))
    assert tree.key(H2.name) != original


CHANGES = [
    ("part points", H2.name, SPEC_FILE, lambda t: move_a_point(t)),
    ("check weight", H2.name, "checks/test_scores.py", lambda t: t.replace("weight=2,", "weight=3,", 1)),
    ("check logic", H2.name, "checks/test_scores.py",
     lambda t: t.replace("probes.qkv(101)", "probes.qkv(1101)", 1)),
    ("schema rule", H2.name, f"data/{H2.schema}",
     lambda t: json.dumps({**json.loads(t), "minProperties": 1})),
    ("engine logic", "engine", "grading/scoring.py", lambda t: t + "\nEXTRA = 1\n"),
]


@pytest.mark.parametrize(("owner", "relative", "change"), [entry[1:] for entry in CHANGES],
                         ids=[entry[0] for entry in CHANGES])
def test_changes_that_decide_an_h2_grade_regrade_h2(tree, owner, relative, change):
    original = tree.key(H2.name)
    edit(tree.file(owner, relative), change)
    assert tree.key(H2.name) != original


def test_a_limitation_rule_of_h2s_evidence_regrades_h2(tree):
    original = tree.key(H2.name)
    edit(tree.file(H2.name, find(tree, H2.name, "limitation.py")),
         lambda t: t.replace("MIN_WORDS = ", "MIN_WORDS = 1 + ", 1))
    assert tree.key(H2.name) != original


SECOND_CHANGES = [
    ("second's points", SPEC_FILE,
     lambda t: t.replace("points = 4", "points = 5", 1).replace("total = 10", "total = 11", 1)),
    ("second's check", "checks/test_vectors_dot.py", lambda t: t.replace("1e-9", "1e-6", 1)),
    ("second's reference", "reference.py", lambda t: t.replace("length == 0", "length <= 0", 1)),
    ("second's release notebook", f"data/{SECOND}.ipynb",
     lambda t: t.replace("Three small NumPy functions", "Three NumPy functions", 1)),
]


@pytest.mark.parametrize(("relative", "change"), [entry[1:] for entry in SECOND_CHANGES],
                         ids=[entry[0] for entry in SECOND_CHANGES])
def test_editing_the_second_bundle_never_regrades_h2(tree, relative, change):
    h2, second = tree.key(H2.name), tree.key(SECOND)
    edit(tree.file(SECOND, relative), change)
    assert tree.key(H2.name) == h2
    if relative.endswith((".py", ".toml")):  # what decides the second's grades: its own key
        assert tree.key(SECOND) != second


def test_editing_h2_never_regrades_the_second_bundle(tree):
    second = tree.key(SECOND)
    edit(tree.file(H2.name, SPEC_FILE), move_a_point)
    edit(tree.file(H2.name, "checks/test_scores.py"), lambda t: t.replace("weight=2,", "weight=3,", 1))
    assert tree.key(SECOND) == second


def test_the_second_bundles_prose_keeps_its_saved_grades(tree):
    second = tree.key(SECOND)
    edit(tree.file(SECOND, "checks/test_vectors_norm.py"),
         lambda t: t.replace('"""Hidden check for', '"""The hidden check for', 1))
    edit(tree.file(SECOND, "reference.py"), lambda t: t.replace("Euclidean length", "length", 1))
    edit(tree.file(SECOND, SPEC_FILE), lambda t: t.replace("# A second", "# Another", 1))
    assert tree.key(SECOND) == second


def test_code_fingerprint_ignores_docstrings_and_comments_only():
    base = 'def f(x):\n    """Doc."""\n    return x + 1\n'
    assert code_fingerprint(base) == code_fingerprint('def f(x):\n    # note\n    return x + 1\n')
    assert code_fingerprint(base) != code_fingerprint('def f(x):\n    """Doc."""\n    return x + 2\n')


def test_a_fingerprint_is_kept_by_its_source_and_computed_without_a_cache(tmp_path, monkeypatch):
    """The cache (``FINGERPRINTS``) holds what parsing gives, is read by content, and a home
    where it cannot be written changes nothing but the time."""
    source = (ENGINE / "grading" / "check_points.py").read_text(encoding="utf-8")
    monkeypatch.setattr(key_module, "FINGERPRINTS", tmp_path / "cache")
    key_module.code_fingerprint.cache_clear()
    computed = code_fingerprint(source)
    (kept,) = (tmp_path / "cache").iterdir()
    assert kept.read_text(encoding="utf-8") == computed == key_module._syntax_without_prose(source)
    kept.write_text("what the cache holds", encoding="utf-8")
    key_module.code_fingerprint.cache_clear()
    assert code_fingerprint(source) == "what the cache holds"  # read, not parsed again
    (tmp_path / "a-file").write_text("")
    monkeypatch.setattr(key_module, "FINGERPRINTS", tmp_path / "a-file" / "cache")
    key_module.code_fingerprint.cache_clear()
    assert code_fingerprint(source) == computed
    key_module.code_fingerprint.cache_clear()
