"""A test bundle copied under a name of its own, changed as a test needs (a misspelt hook, a
broken plugin, a helper module renamed): one helper instead of a copy in each test module."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path

from autograder.spec import REPO

BUNDLES = REPO / "tests" / "bundles"


def copy_bundle(like: str, folder: Path, name: str, *,
                edits: Mapping[str, tuple[str, str]] | None = None,
                files: Mapping[str, str] | None = None, own_check_names: bool = False) -> Path:
    """``tests/bundles/<like>`` copied into the folder of bundles ``folder`` as ``name`` (its
    spec's name too), each file of ``edits`` with its ``(old, new)`` replaced (``old`` must
    be there), ``files`` (path -> text) written; with ``own_check_names`` its check modules
    renamed ``test_<name>_...`` (a process imports a module once per name, so two copies of
    one bundle cannot be collected in one process under the same names). Returns the copy."""
    root = folder / name
    shutil.copytree(BUNDLES / like, root, ignore=shutil.ignore_patterns("__pycache__"))
    for file, (old, new) in {"assignment.toml": (f'name = "{like}"', f'name = "{name}"'),
                             **(edits or {})}.items():
        text = (root / file).read_text(encoding="utf-8")
        assert old in text, (file, old)
        (root / file).write_text(text.replace(old, new), encoding="utf-8")
    for file, text in (files or {}).items():
        (root / file).write_text(text, encoding="utf-8")
    if own_check_names:
        for check in (root / "checks").glob(f"test_{like}_*.py"):
            check.rename(check.with_name(check.name.replace(f"test_{like}_", f"test_{name}_", 1)))
    return root


def unique_name(like: str, tmp_path: Path) -> str:
    """A bundle name of its own for a test's copy of ``like``, from its ``tmp_path``."""
    return f"{like}_{tmp_path.name[-12:].replace('-', '_')}"
