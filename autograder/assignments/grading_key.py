"""An assignment's grading key: a hash of exactly what decides its grades, and nothing else.

A saved result is reused while its submission and this key are unchanged. What
goes in: the bundle's spec (parts, points, cells; not where its source and release
folders are), its Python (hidden checks, hooks, reference) and the engine's grading logic
that turns verdicts into points, the evidence schema's rules, and the versions of the
libraries the checks compute with: the engine's own (NumPy, jsonschema) and each one the
bundle preloads (a library a bundle does not preload, torch for one, is not in its key: a
new torch regrades only the assignments whose students use it).
Each bundle has its own key: editing one assignment never regrades another's cohorts. Code is hashed as its syntax tree without
docstrings or comments, and the schema without its descriptions, so editing
prose never regrades a cohort, while changing a point or a line of logic does (the spec's
prose, ``hidden_inputs``, is left out too).
The batch grader, the sandbox, the CLI and the report's template are left out:
they do not decide a score.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import platform
import sys
import tempfile
import tomllib
from collections.abc import Iterable
from functools import cache, lru_cache
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.spec import LOCATION_KEYS, SPEC_FILE

if TYPE_CHECKING:
    from autograder.assignments.bundle import Assignment

NOT_GRADING = frozenset({"samples", "authoring.py", "__pycache__"})
"""A bundle's code that decides no grade: its demo cohort and its authoring helpers."""
ENGINE = Path(__file__).resolve().parents[1]
ENGINE_GRADING_CODE = ("grading",)
"""The engine's trees (relative to the package) whose Python turns verdicts into points."""
ENGINE_LIBRARIES = ("numpy", "jsonschema")
"""Libraries the engine computes with for every assignment (the checks' assertions, the
evidence schema); a new version may change a result."""
SCHEMA_PROSE = frozenset({"description", "title", "examples", "$comment"})
SPEC_PROSE = frozenset({"hidden_inputs"})
"""Spec keys that are words for students, not facts of grading."""


FINGERPRINTS = (Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "autograder"
                / "code-fingerprints" / f"py{sys.version_info[0]}.{sys.version_info[1]}")
"""Fingerprints already computed, by the SHA-256 of their source (the syntax tree's dump
depends on the Python version, hence a folder per version): every grading command keys its
assignment, and parsing the checks and the engine's grading code each time took 0.3-0.5 s."""


@lru_cache(maxsize=4096)
def code_fingerprint(source: str) -> str:
    """The module's syntax tree without docstrings and the checks' ``requires=`` clauses:
    comments and prose do not count. Kept by the source's content (``FINGERPRINTS``; without
    a writable cache it is computed each time), and in this process by source text."""
    cached = FINGERPRINTS / hashlib.sha256(source.encode("utf-8")).hexdigest()
    try:
        return cached.read_text(encoding="utf-8")
    except (OSError, UnicodeError):
        pass
    fingerprint = _syntax_without_prose(source)
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        handle, partial = tempfile.mkstemp(dir=cached.parent, prefix=f".{cached.name}.")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(fingerprint)
        os.replace(partial, cached)
    except OSError:
        pass  # no cache (a read-only home): the same fingerprint, computed again next time
    return fingerprint


def _syntax_without_prose(source: str) -> str:
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


def libraries(preload: Iterable[str]) -> tuple[str, ...]:
    """The distributions whose versions go into a key: the engine's own, then those of the
    modules a bundle preloads (``numpy.random`` is numpy's; the standard library's are the
    Python version's, hashed already), each once."""
    installed = metadata.packages_distributions()
    found = list(ENGINE_LIBRARIES)
    for module in preload:
        top = str(module).partition(".")[0]
        if top in sys.stdlib_module_names:
            continue
        for name in installed.get(top, [top]):
            if name not in found:
                found.append(name)
    return tuple(found)


def grading_key(assignment: Assignment, engine: Path = ENGINE) -> str:
    """16 hex digits for ``assignment`` graded by the engine in ``engine`` (this package by
    default); see the module docstring."""
    return _key(assignment.root, _reference_root(assignment), assignment.spec.schema, engine)


def key_inputs(assignment: Assignment, engine: Path = ENGINE) -> list[tuple[str, str]]:
    """What ``grading_key`` hashes, as (label, text) pairs in order: to see why two keys
    differ, or that a library is (or is not) in an assignment's key."""
    return _inputs(assignment.root, _reference_root(assignment), assignment.spec.schema, engine)


def _reference_root(assignment: Assignment) -> Path | None:
    """The reference's folder when it lives outside the bundle (hashed too), else None."""
    if (assignment.root / f"{assignment.spec.reference}.py").is_file() or (
        assignment.root / assignment.spec.reference).is_dir():
        return None
    module = assignment.reference
    path = Path(module.__file__ or "")
    return path.parent if path.name == "__init__.py" else path


@cache
def _key(bundle: Path, reference: Path | None, schema_name: str, engine: Path) -> str:
    digest = hashlib.sha256()
    for label, text in _inputs(bundle, reference, schema_name, engine):
        digest.update(label.encode() + b"\0" + text.encode() + b"\0")
    return digest.hexdigest()[:16]


def _inputs(bundle: Path, reference: Path | None, schema_name: str,
            engine: Path) -> list[tuple[str, str]]:
    inputs: list[tuple[str, str]] = []

    def add(label: str, text: str) -> None:
        inputs.append((label, text))

    def add_tree(label: str, top: Path) -> None:
        files = [top] if top.is_file() else sorted(top.rglob("*.py")) + sorted(top.rglob("*.ini"))
        for path in files:
            if top.is_dir() and path.relative_to(top).parts[0] in NOT_GRADING:
                continue
            name = f"{label}/{path.relative_to(top).as_posix()}" if top.is_dir() else label
            text = path.read_text(encoding="utf-8")
            add(name, code_fingerprint(text) if path.suffix == ".py" else text)

    spec = tomllib.loads((bundle / SPEC_FILE).read_text(encoding="utf-8"))
    ignored = {*LOCATION_KEYS, *SPEC_PROSE}  # where folders are, and wording: not grades
    add("spec", json.dumps({k: v for k, v in spec.items() if k not in ignored},
                           sort_keys=True))
    add_tree("bundle", bundle)
    if reference is not None:
        add_tree("reference", reference)
    for top in ENGINE_GRADING_CODE:
        if (engine / top).is_dir():
            add_tree(f"engine/{top}", engine / top)
    if schema_name:  # the copy the grader validates with (a link to schemas/'s in a checkout)
        schema = json.loads((bundle / "data" / schema_name).read_text(encoding="utf-8"))
        add("schema", json.dumps(_without_prose(schema), sort_keys=True))
    add("python", ".".join(platform.python_version_tuple()[:2]))
    preload = spec.get("preload", [])
    for name in libraries(preload if isinstance(preload, list) else []):
        add(f"library {name}", _library_version(name))
    return inputs
