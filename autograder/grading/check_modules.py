"""The modules of a bundle's ``checks/`` folder: its checks (``test_*.py``) and the helper
modules they share, imported by name.

pytest imports a checks folder without an ``__init__.py`` by file name, with the folder first
on the import path, so ``checks/vectors_helpers.py`` is ``from vectors_helpers import ...`` to
every check of the bundle (docs/adding-an-assignment.md, "Code the checks share"). A process
imports a module once per name: a check or helper module named like one this process already
imported from another file (another bundle's, or a library's) would silently be that one.
``check_module_names`` refuses it before the checks are collected, in one line naming the
file and the fix: name a bundle's modules after the bundle. (A checks folder that is a
package, with an ``__init__.py``, is imported under its bundle's package name and needs
none of this.)
"""

from __future__ import annotations

import sys
from pathlib import Path

from autograder.spec import SpecError

DOCS = "docs/adding-an-assignment.md"


def module_files(checks_dir: Path) -> dict[str, Path]:
    """Module name -> file of each module a checks folder imports by name (none for a
    folder that is a package)."""
    if (checks_dir / "__init__.py").is_file():
        return {}
    found = {path.stem: path for path in sorted(checks_dir.glob("*.py"))}
    found.update({path.parent.name: path for path in sorted(checks_dir.glob("*/__init__.py"))})
    return found


def check_module_names(checks_dir: Path, assignment: str) -> None:
    """``SpecError`` if a module of ``checks_dir`` would be imported as one of the same name
    this process already holds from another file."""
    for name, path in module_files(checks_dir).items():
        held = sys.modules.get(name)
        if held is None:
            continue
        origin = getattr(held, "__file__", None)
        if origin is not None and Path(origin).resolve() == path.resolve():
            continue
        stem = name.removeprefix("test_")
        suggested = f"test_{assignment}_{stem}" if name.startswith("test_") else f"{assignment}_{stem}"
        raise SpecError(
            f"assignment {assignment!r}: checks/{path.relative_to(checks_dir)} would be imported "
            f"as `{name}`, a module this process already imported from {origin or 'Python'}: "
            f"name it after the bundle (`{suggested}`); see {DOCS}")
