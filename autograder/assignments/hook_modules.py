"""The one checked loader of a bundle's hook modules: ``hooks.py``, ``authoring.py``,
``samples`` (their members are declared in ``autograder.assignments.plugins``).

A member misspelt, missing or of the wrong kind would otherwise fail late, or silently: a
``misconception`` table nobody reads, a ``locked_cells`` that takes an argument, discovered
in the middle of a command that seldom runs. So a hook module is checked when it is first
imported, against its declaration, and the engine reads its members only through here
(``HookModule.get``), never with ``getattr`` of its own. Not earlier: importing a bundle's
hooks may import NumPy, which ``autograde`` must not do before it launches its sandbox
(tests/batch/test_early_sandbox.py); loading a bundle imports none of its code.

What is refused, each in one line naming the bundle, the member and the fix (``SpecError``):
a required member that is missing; a function member whose signature cannot take the
engine's call; a value member of the wrong type (``evidence``: its plugin, member by member,
``autograder.assignments.contract``); and, in a module whose every public name must be a
member (``closed``), any other public value or function defined there, as a misspelt member.
Helpers stay out of the way by their names: ``_private``, ``UPPER_CASE`` constants, classes,
modules, and whatever the module imports are not members.
"""

from __future__ import annotations

import difflib
import inspect
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from autograder.assignments.contract import (
    DOCS,
    call_problem,
    check_evidence_plugin,
    engine_call,
    protocol_methods,
)
from autograder.assignments.plugins import AuthoringHooks, Hooks, SampleCohort
from autograder.spec import SpecError

if TYPE_CHECKING:
    from autograder.assignments.bundle import Assignment

CLOSE = 0.75
"""How alike a name and a member's must be for the name to be taken as that member misspelt
(``difflib``'s ratio: ``misconception`` and ``misconceptions`` are 0.96)."""

ValueCheck = Callable[[object, str], None]
"""Checks a value member (the value, the assignment's name): ``SpecError`` when wrong."""


def _check_misconceptions(value: object, assignment: str) -> None:
    if isinstance(value, Mapping) and all(
            isinstance(code, str) and isinstance(text, str) and text.strip()
            for code, text in value.items()):
        return
    raise SpecError(f"assignment {assignment!r}: hooks.py `misconceptions` must map each "
                    f"diagnosis code (a str) to the sentence a student reads (a str that is "
                    f"not empty), not {_describe(value)}; see {DOCS}")


def _check_evidence(value: object, assignment: str) -> None:
    check_evidence_plugin(value, assignment)


VALUE_CHECKS: dict[str, ValueCheck] = {
    "evidence": _check_evidence,
    "misconceptions": _check_misconceptions,
}
"""How each value member of a declaration is checked (a test keeps it complete)."""


@dataclass(frozen=True)
class Declaration:
    """One module of a bundle the engine reads, and the members it may define."""

    name: str  # the module's name in the bundle: ``<name>.py`` or a package ``<name>/``
    protocol: type  # its members and their types (``autograder.assignments.plugins``)
    required: frozenset[str] = frozenset()  # members it must define when it exists
    closed: bool = True  # every other public value or function is refused as misspelt

    @cached_property
    def values(self) -> dict[str, object]:
        """The value members and their types."""
        return typing.get_type_hints(self.protocol)

    @cached_property
    def functions(self) -> dict[str, inspect.Signature]:
        """The function members and the signature the engine calls each with."""
        return protocol_methods(self.protocol)

    @cached_property
    def members(self) -> tuple[str, ...]:
        """Every member's name, values first."""
        return (*self.values, *self.functions)


HOOKS = Declaration("hooks", Hooks)
AUTHORING = Declaration("authoring", AuthoringHooks)
SAMPLES = Declaration("samples", SampleCohort, required=frozenset({"build_sample_cohort"}),
                      closed=False)
DECLARATIONS = (HOOKS, AUTHORING, SAMPLES)


def bundle_has(root: Path, name: str) -> bool:
    """Whether the bundle in ``root`` has the module ``name`` (a file or a package)."""
    return (root / f"{name}.py").is_file() or (root / name / "__init__.py").is_file()


class HookModule:
    """A bundle's hook module, checked against its declaration (an absent module has no
    members): the one place the engine reads a bundle's hooks."""

    def __init__(self, declaration: Declaration, module: ModuleType | None,
                 assignment: str) -> None:
        self.declaration = declaration
        self.module = module
        self.assignment = assignment
        self._checked: dict[str, Any] = {}
        if module is not None:
            if declaration.closed:
                self._check_names()
            for name in declaration.members:
                if name in vars(module) or name in declaration.required:
                    self.get(name)

    @property
    def file(self) -> str:
        """How messages name the module: ``hooks.py``."""
        module = self.module
        package = module is not None and hasattr(module, "__path__")
        return f"{self.declaration.name}{'/' if package else '.py'}"

    def get(self, name: str) -> Any:
        """The member ``name``, checked once (None when the bundle leaves it out). A member a
        module ``__getattr__`` provides is checked when first asked for here."""
        declared = self.declaration
        if name not in declared.members:
            raise KeyError(f"{name!r} is not a member of {declared.protocol.__name__}")
        if name in self._checked:
            return self._checked[name]
        value = self._lookup(name)
        if value is None and name in declared.required:
            self._refuse(f"defines no `{name}`: add {self._wanted(name)}")
        if value is not None:
            if name in declared.values:
                VALUE_CHECKS[name](value, self.assignment)
            else:
                self._check_function(name, value)
        self._checked[name] = value
        return value

    def call(self, name: str, *args: object) -> Any:
        """Call the function member ``name`` (which the module defines) as the engine does,
        and check what it returns against its declared return type."""
        function = self.get(name)
        if function is None:
            self._refuse(f"defines no `{name}`: add {self._wanted(name)}")
        result = function(*args)
        want = typing.get_type_hints(getattr(self.declaration.protocol, name))["return"]
        if not _is_a(result, want):
            self._refuse(f"`{name}` returned {_describe(result)}, not the "
                         f"{_type_name(want)} it must return")
        return result

    def _lookup(self, name: str) -> Any:
        if self.module is None:
            return None
        if name in vars(self.module):
            return vars(self.module)[name]
        lazy = vars(self.module).get("__getattr__")
        if lazy is None:
            return None
        try:
            return lazy(name)
        except AttributeError:
            return None

    def _check_function(self, name: str, value: object) -> None:
        signature = self.declaration.functions[name]
        call = engine_call(name, signature)
        if not callable(value):
            self._refuse(f"`{name}` must be a function the engine calls as `{call}`, not "
                         f"{_describe(value)}")
        if problem := call_problem(value, signature):
            self._refuse(f"`{name}` cannot be called as the engine calls it, `{call}`: {problem}")

    def _check_names(self) -> None:
        """Refuse a public name the engine does not read, where every one must be a member."""
        members = self.declaration.members
        for name, value in vars(self.module).items():
            if name in members or not _offered(name, value, self.module, members):
                continue
            close = difflib.get_close_matches(name.lower(), members, n=1, cutoff=CLOSE)
            fix = (f"rename it `{close[0]}`" if close
                   else "a helper of your own: start its name with `_`")
            self._refuse(f"defines `{name}`, which is not a member the engine reads "
                         f"({self.file}'s: {', '.join(members)}): {fix}")

    def _wanted(self, name: str) -> str:
        if name in self.declaration.values:
            return f"the value `{name}`"
        return f"the function `{engine_call(name, self.declaration.functions[name])}`"

    def _refuse(self, problem: str) -> typing.NoReturn:
        raise SpecError(f"assignment {self.assignment!r}: {self.file} {problem}; see {DOCS}")


def _offered(name: str, value: object, module: ModuleType, members: tuple[str, ...]) -> bool:
    """Whether the public ``name`` is something the module offers the engine as a member
    (every member's name is lower case): a value or a function of its own; not a class, a
    module, an imported function, nor a constant or a type (a capital first) unless its name
    is close to a member's (a misspelt one)."""
    if name.startswith("_") or isinstance(value, ModuleType | type):
        return False
    if type(value).__module__ == "__future__":  # ``from __future__ import annotations``
        return False
    if callable(value) and getattr(value, "__module__", None) != module.__name__:
        return False  # imported
    return name[0].islower() or bool(
        difflib.get_close_matches(name.lower(), members, n=1, cutoff=CLOSE))


def _is_a(value: object, want: object) -> bool:
    """Whether ``value`` is of the declared type ``want`` (a class, or a ``Mapping[K, V]``
    whose keys and values are checked)."""
    if typing.get_origin(want) is Mapping:
        key, item = typing.get_args(want)
        return isinstance(value, Mapping) and all(
            _is_a(k, key) and _is_a(v, item) for k, v in value.items())
    return isinstance(value, want) if isinstance(want, type) else True


def _type_name(want: object) -> str:
    return want.__name__ if isinstance(want, type) else str(want).replace("collections.abc.", "")


def _describe(value: object) -> str:
    return "None" if value is None else f"a {type(value).__name__}"


def load(assignment: Assignment, declaration: Declaration) -> HookModule:
    """``assignment``'s module of ``declaration``, imported and checked (``SpecError``: one
    line naming what is wrong and the fix); its members are read through the result."""
    present = bundle_has(assignment.root, declaration.name)
    module = assignment.module(declaration.name) if present else None
    return HookModule(declaration, module, assignment.name)
