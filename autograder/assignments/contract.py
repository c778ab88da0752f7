"""The load check of a bundle's evidence plugin against ``EvidencePlugin``.

A plugin missing a member, or whose method cannot take the engine's call, would otherwise
fail late: in the middle of grading a cohort, or in a command that seldom runs
(``verify-evidence``, ``review list``). When its bundle's ``hooks.py`` is first imported
(``autograder.assignments.hook_modules``), each member the protocol declares is looked up as the kind the engine uses (an attribute read as a value, a method
called), and each method's signature must accept the call exactly as the engine makes it
(positional parameters by position, keyword-only ones by name). The first problem is one
line naming the bundle, the member and the fix (``SpecError``).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

from autograder.assignments.plugins import OPTIONAL_GROUPS, EvidencePlugin
from autograder.spec import SpecError

DOCS = "docs/adding-an-assignment.md"
ATTRIBUTES: dict[str, type] = {"file_name": str, "limitation_placeholder": str,
                               "max_bytes": int}
"""The protocol's attributes and the type of value each must hold (a test keeps them equal
to ``EvidencePlugin``'s annotations)."""


def protocol_methods(protocol: type) -> dict[str, inspect.Signature]:
    """The methods ``protocol`` declares, each with its signature without ``self``."""
    methods = {}
    for name, value in vars(protocol).items():
        if name.startswith("_") or not inspect.isfunction(value):
            continue
        signature = inspect.signature(value)
        methods[name] = signature.replace(parameters=list(signature.parameters.values())[1:])
    return methods


def engine_call(name: str, signature: inspect.Signature) -> str:
    """How the engine calls a method: ``verify(path, *, student_id, cohort)``."""
    positional = [p.name for p in signature.parameters.values()
                  if p.kind is not inspect.Parameter.KEYWORD_ONLY]
    keywords = [p.name for p in signature.parameters.values()
                if p.kind is inspect.Parameter.KEYWORD_ONLY]
    return f"{name}({', '.join(positional + (['*'] + keywords if keywords else []))})"


def call_problem(method: Any, expected: inspect.Signature) -> str:
    """Why ``method`` cannot take the engine's call ("" when it can)."""
    try:
        signature = inspect.signature(method)
    except (TypeError, ValueError):
        return ""  # a builtin or C callable without a signature: it is trusted as it is
    positional = [None] * sum(1 for p in expected.parameters.values()
                              if p.kind is not inspect.Parameter.KEYWORD_ONLY)
    keywords = {p.name: None for p in expected.parameters.values()
                if p.kind is inspect.Parameter.KEYWORD_ONLY}
    try:
        signature.bind(*positional, **keywords)
    except TypeError as error:
        return f"its signature {signature} refuses it ({error})"
    return ""


def _member_problems(plugin: object, protocol: type, attributes: dict[str, type]
                     ) -> Iterator[tuple[str, str]]:
    """(member, what is wrong with it) for each member of ``protocol`` ``plugin`` gets wrong."""
    for name, kind in attributes.items():
        try:
            static = inspect.getattr_static(plugin, name)
        except AttributeError:
            yield name, f"is missing: add the attribute `{name}` (a {kind.__name__})"
            continue
        if isinstance(static, property):
            continue  # computed when the engine reads it (it may import what it needs then)
        if callable(static) or not isinstance(static, kind) or isinstance(static, bool):
            yield name, (f"must be a {kind.__name__} value the engine reads, not "
                         f"{type(static).__name__}: set `{name} = ...` on the plugin")
    for name, expected in protocol_methods(protocol).items():
        call = engine_call(name, expected)
        method = getattr(plugin, name, None)
        if method is None:
            yield name, f"is missing: add the method `{call}`"
        elif not callable(method):
            yield name, f"must be a method the engine calls as `{call}`"
        elif problem := call_problem(method, expected):
            yield name, f"cannot be called as the engine calls it, `{call}`: {problem}"


def evidence_plugin_problems(plugin: object) -> list[str]:
    """Each way ``plugin`` breaks the contract, as "`member` ..." (none: it keeps it)."""
    found = [f"`{name}` {problem}"
             for name, problem in _member_problems(plugin, EvidencePlugin, ATTRIBUTES)]
    for group in OPTIONAL_GROUPS:
        members = list(protocol_methods(group))
        present = [name for name in members if inspect.getattr_static(plugin, name, None)
                   is not None]
        if present:
            if missing := [name for name in members if name not in present]:
                found.append(f"`{missing[0]}` is missing: {group.__name__} needs "
                             f"{' and '.join(members)} together (add it, or remove "
                             f"{' and '.join(present)})")
                continue
            found += [f"`{name}` {problem}" for name, problem in
                      _member_problems(plugin, group, {})]
    return found


def check_evidence_plugin(plugin: object, assignment: str) -> EvidencePlugin[Any, Any]:
    """``plugin`` if it keeps the contract; else ``SpecError``, one line naming the bundle,
    the first member it gets wrong and the fix."""
    problems = evidence_plugin_problems(plugin)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise SpecError(f"assignment {assignment!r}: its evidence plugin (hooks.py `evidence`): "
                        f"{problems[0]}{more}; see {DOCS}")
    return plugin  # type: ignore[return-value]  (checked above, member by member)
