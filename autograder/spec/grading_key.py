"""The grading key: a hash of exactly what decides a grade, and nothing else.

A saved result is reused while its submission and this key are unchanged. What
goes in: the spec (parts, points, cells), the hidden checks and the grading
logic that turns their verdicts and the evidence file into points, the
reference solution, the evidence schema's rules, and the versions of the
libraries the checks compute with. Code is hashed as its syntax tree without
docstrings or comments, and the schema without its descriptions, so editing
prose never regrades a cohort, while changing a point or a line of logic does.
The batch grader, the sandbox, the CLI and the report's template are left out:
they do not decide a score.
"""

from __future__ import annotations

import ast
import hashlib
import json
import platform
import tomllib
from functools import cache
from importlib import metadata
from pathlib import Path

from autograder.spec import PACKAGE_DATA, REPO, SPEC_FILE

GRADING_CODE = ("autograder/checks", "autograder/grading", "autograder/evidence", "solutions")
"""Trees whose Python decides a grade (relative to the repository)."""
PINNED_LIBRARIES = ("numpy", "torch", "jsonschema")
"""Libraries the checks and the reference compute with; a new version may change a result."""
SCHEMA_PROSE = frozenset({"description", "title", "examples", "$comment"})


def code_fingerprint(source: str) -> str:
    """The module's syntax tree without docstrings and the checks' ``requires=`` clauses:
    comments and prose do not count."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:]
        if isinstance(node, ast.Call):  # a check's `requires=` clause is prose too
            node.keywords = [k for k in node.keywords if k.arg != "requires"]
    return ast.dump(tree, annotate_fields=False, include_attributes=False)


def _without_prose(value: object) -> object:
    if isinstance(value, dict):
        return {k: _without_prose(v) for k, v in value.items() if k not in SCHEMA_PROSE}
    if isinstance(value, list):
        return [_without_prose(v) for v in value]
    return value


def _library_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "absent"


@cache
def grading_key(root: Path = REPO) -> str:
    """16 hex digits for the tree at ``root`` (this checkout by default); see the module
    docstring."""
    digest = hashlib.sha256()

    def add(label: str, text: str) -> None:
        digest.update(label.encode() + b"\0" + text.encode() + b"\0")

    spec = tomllib.loads((root / "autograder" / "spec" / SPEC_FILE).read_text(encoding="utf-8"))
    add("spec", json.dumps(spec, sort_keys=True))
    for top in GRADING_CODE:
        for path in sorted((root / top).rglob("*.py")):
            add(path.relative_to(root).as_posix(), code_fingerprint(path.read_text(encoding="utf-8")))
        for path in sorted((root / top).rglob("*.ini")):
            add(path.relative_to(root).as_posix(), path.read_text(encoding="utf-8"))
    # The copy the grader validates with (a symlink to schemas/'s in a checkout), so an
    # installed grader has the same key as the checkout it was installed from.
    schema_path = root / "autograder" / "spec" / PACKAGE_DATA.name / spec["schema"]
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    add("schema", json.dumps(_without_prose(schema), sort_keys=True))
    add("python", ".".join(platform.python_version_tuple()[:2]))
    for name in PINNED_LIBRARIES:
        add(name, _library_version(name))
    return digest.hexdigest()[:16]
