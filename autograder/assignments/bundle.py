"""An assignment bundle: a folder the engine is given, holding everything assignment-specific.

    <bundle>/
      assignment.toml   the spec: parts, points, cells, files (``autograder.spec``)
      checks/           the hidden checks: pytest files and a pytest.ini
      data/             what the grader reads besides code: the release notebook (cell
                        roles) and, with an evidence part, the evidence file's schema
      reference.py      the reference solution (or ``reference = "<module>"`` in the spec)
      hooks.py          optional: the evidence plugin, misconceptions (``plugins.Hooks``)
      source/           optional: the nbgrader source notebook (the spec's ``source``)
      release/          what ``generate-release`` writes (the spec's ``release``)

The engine knows an assignment only through an ``Assignment``; nothing in it names one.
Bundle code (checks, reference, hooks) runs only in the trusted grading process, like
the engine's own.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from autograder.assignments import hook_modules
from autograder.assignments.contract import DOCS
from autograder.assignments.plugins import EvidencePlugin
from autograder.spec import SPEC_FILE, AssignmentSpec, SpecError, load_spec

DATA = "data"
CHECKS = "checks"
HOOKS = hook_modules.HOOKS.name


@dataclass(frozen=True, eq=False)
class Assignment:
    """One assignment as the engine sees it: its spec, where its bundle lives, and its code.

    Reading a spec fact (``assignment.part_points``) reads the spec's; the bundle adds the
    files and the code the spec names."""

    spec: AssignmentSpec
    root: Path  # the bundle's folder
    origin: str  # where it was found: "package", or the folder an instructor named
    package: str  # the import name of the bundle's Python (checks, reference, hooks)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.spec, name)

    @property
    def name(self) -> str:
        return self.spec.name

    # ------------------------------------------------------------ files

    @property
    def checks_dir(self) -> Path:
        """The hidden checks (never shipped to students; never visible to a worker)."""
        return self.root / CHECKS

    @property
    def grader_release_notebook(self) -> Path:
        """The release notebook the grader takes cell roles from: the bundle's copy."""
        return self.root / DATA / self.spec.notebook

    @property
    def grader_schema(self) -> Path | None:
        """The evidence schema the grader validates with (None without an evidence part)."""
        return self.root / DATA / self.spec.schema if self.spec.schema else None

    @property
    def private_folders(self) -> tuple[str, ...]:
        """What student code must never see, wherever it lives (a bundle under ``/opt``
        included): the bundle's folder (checks, reference, hooks) and the instructor's source
        folder (solutions in the notebook). Real paths; the sandbox hides them as it hides
        the installed grader, and no message may show them."""
        return tuple(dict.fromkeys(str(path.resolve()) for path in (self.root, self.source_dir)))

    @property
    def source_dir(self) -> Path:
        """Where the instructor authors the notebook: the spec's ``source``, relative to the
        bundle (default: its ``source/``; a packaged bundle may name its checkout's)."""
        return (self.root / self.spec.source).resolve()

    @property
    def source_notebook(self) -> Path:
        return self.source_dir / self.spec.notebook

    @property
    def release_dir(self) -> Path:
        """Where ``generate-release`` writes the release: the spec's ``release``, relative to
        the bundle (default: its ``release/``), so a bundle kept anywhere writes beside itself."""
        return (self.root / self.spec.release).resolve()

    @property
    def release_notebook(self) -> Path:
        return self.release_dir / self.spec.notebook

    @property
    def schema_path(self) -> Path:
        """The canonical evidence schema: the bundle's ``data/`` copy, the one the grader
        validates with (in a checkout, possibly a link to a ``schemas/`` folder)."""
        return self.root / DATA / self.spec.schema

    @property
    def shipped_schema(self) -> Path:
        """The copy of the schema next to the source notebook (students validate with it)."""
        return self.source_dir / self.spec.schema

    # ------------------------------------------------------------ code

    def module(self, name: str) -> types.ModuleType:
        """The bundle's module ``name`` (``checks.probes``, ``hooks``...), imported once."""
        return importlib.import_module(f"{self.package}.{name}")

    @cached_property
    def hooks(self) -> hook_modules.HookModule:
        """The bundle's optional ``hooks`` module (``plugins.Hooks``: evidence plugin,
        misconceptions), checked when first imported; its members are read through it."""
        return hook_modules.load(self, hook_modules.HOOKS)

    @cached_property
    def reference(self) -> types.ModuleType:
        """The reference solution: the spec's ``reference``, a module of the bundle first,
        else an importable module (a package of the repository, beside the bundle)."""
        name = self.spec.reference
        inside = self.root / f"{name}.py"
        if inside.is_file() or (self.root / name / "__init__.py").is_file():
            return self.module(name)
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError as error:
            raise SpecError(f"assignment {self.name!r}: its reference {name!r} is neither in "
                            f"{self.root} nor importable ({error})") from None

    @cached_property
    def evidence(self) -> EvidencePlugin[Any, Any] | None:
        """The evidence plugin, checked against ``EvidencePlugin`` (``contract``) with the
        hooks; None for an assignment without an evidence part."""
        plugin = self.hooks.get("evidence")
        if self.spec.evidence_part is None:
            return None
        if plugin is None:
            raise SpecError(f"assignment {self.name!r} has an evidence part but its hooks.py "
                            f"defines no `evidence` plugin; see {DOCS}")
        return plugin

    @property
    def evidence_file(self) -> str:
        """The evidence file's name ("" for an assignment without one)."""
        return self.evidence.file_name if self.evidence is not None else ""

    @property
    def limitation_placeholder(self) -> str:
        """The limitation cell's starting text ("" without a limitation part)."""
        return self.evidence.limitation_placeholder if self.evidence is not None else ""

    @cached_property
    def misconceptions(self) -> dict[str, str]:
        """Diagnosis code -> the sentence that explains it (the bundle's, none by default)."""
        return dict(self.hooks.get("misconceptions") or {})

    @property
    def grading_key(self) -> str:
        """Hash of exactly what decides this assignment's grades (``grading_key``)."""
        # importlib.metadata and hashlib (15-40 ms): not at a command's start
        from autograder.assignments.grading_key import grading_key

        return grading_key(self)


def open_bundle(root: Path, *, origin: str, package: str | None = None) -> Assignment:
    """The bundle in ``root``; ``package`` is its import name when it is part of an installed
    package, else the folder is registered under a private name so its modules import."""
    spec = load_spec(root / SPEC_FILE)
    if spec.name != root.name:
        raise SpecError(f"the assignment spec {root / SPEC_FILE}: its name {spec.name!r} is "
                        f"not its folder's ({root.name!r})")
    check_locations(spec, root)
    if package is None:
        package = f"_assignment_bundle_{spec.name}"
        if package not in sys.modules:
            module_spec = importlib.util.spec_from_loader(package, loader=None, is_package=True)
            module = importlib.util.module_from_spec(module_spec)  # type: ignore[arg-type]
            module.__path__ = [str(root)]
            sys.modules[package] = module
    return Assignment(spec=spec, root=root, origin=origin, package=package)


def check_locations(spec: AssignmentSpec, root: Path) -> None:
    """``SpecError`` (one line) for a ``release`` folder that generating the release would
    wreck by replacing it: the bundle or a folder holding it, its ``data/`` or ``checks/``,
    or one that holds, or lies in, the source folder."""
    bundle = root.resolve()
    release, source = (bundle / spec.release).resolve(), (bundle / spec.source).resolve()
    if bundle.is_relative_to(release):
        clash = "the bundle's own folder or one holding it"
    elif release in (bundle / DATA, bundle / CHECKS):
        clash = f"the bundle's {release.name}/ folder"
    elif source.is_relative_to(release) or release.is_relative_to(source):
        clash = f"in or around the source folder {source}"
    else:
        return
    raise SpecError(f"the assignment spec {root / SPEC_FILE}: release = {spec.release!r} is "
                    f"{clash} ({release}), which generating the release replaces: name a "
                    "folder of its own (default \"release\", inside the bundle)")
