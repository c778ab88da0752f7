"""The trust boundary is visible in the layout, and it holds.

``autograder/untrusted/`` is everything that runs beside student code (zygote,
worker, isolation, wire format, the error type that crosses). It must import
nothing from the trusted side: statically (its imports) and at run time (what
a real forked worker has loaded).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import autograder.untrusted
from autograder.sandbox.client import SandboxStudent
from autograder.sandbox.uids import UidLease
from tests.support.wire import start_zygote

UNTRUSTED = Path(autograder.untrusted.__file__).parent
THIRD_PARTY_ALLOWED = {"numpy", "torch", "matplotlib", "pyseccomp", "IPython"}
# What a worker must never hold: the reference, the checks, the grading logic and the
# evidence verifier, the gradebook and everything else of the trusted side.
TRUSTED_PREFIXES = ("solutions", "autograder.", "jsonschema", "nbgrader", "sqlalchemy", "pytest",
                    "jinja2")


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports (absolute names; relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = "autograder.untrusted"
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + [base])
            names.add(base.strip("."))
            names.update(f"{base}.{alias.name}".strip(".") for alias in node.names)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module":
            names.update(arg.value for arg in node.args if isinstance(arg, ast.Constant))
    return names


def is_allowed(module: str) -> bool:
    top = module.split(".")[0]
    if module == "autograder" or module.startswith("autograder.untrusted"):
        return True
    if top == "autograder":
        return False
    return top in sys.stdlib_module_names or top in THIRD_PARTY_ALLOWED or top == "__future__"


@pytest.mark.parametrize("path", sorted(UNTRUSTED.glob("*.py")), ids=lambda p: p.name)
def test_untrusted_modules_import_nothing_trusted(path):
    forbidden = sorted(name for name in imported_modules(path) if not is_allowed(name))
    assert forbidden == [], f"{path.name} imports trusted or unexpected modules: {forbidden}"


def test_the_static_check_catches_a_trusted_import(tmp_path):
    sneaky = tmp_path / "sneaky.py"
    sneaky.write_text("import json\nfrom autograder.grading import scoring\nimport solutions\n")
    assert sorted(n for n in imported_modules(sneaky) if not is_allowed(n)) == [
        "autograder.grading", "autograder.grading.scoring", "solutions"]


@pytest.mark.slow
def test_a_forked_worker_has_imported_nothing_trusted():
    """A real worker, forked from the real zygote, lists the modules it holds."""
    lease = UidLease.acquire()
    zygote = start_zygote()
    cell = "import sys\ndef loaded_modules():\n    return sorted(sys.modules)\n"
    try:
        with SandboxStudent([cell], zygote, uid=lease.uid) as student:
            loaded = student.call("loaded_modules")
    finally:
        zygote.close()
        lease.release()
    assert "autograder.untrusted.worker" in loaded and "torch" in loaded  # it is a warm worker
    trusted = sorted(
        name for name in loaded
        if name.startswith(TRUSTED_PREFIXES) and not name.startswith("autograder.untrusted")
    )
    assert trusted == [], f"the worker holds trusted modules: {trusted}"
