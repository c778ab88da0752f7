"""The engine's packages are layered: each imports only from layers below its own.

A package is read, changed and tested on top of the ones beneath it, never beside or above
them: a change in the record (``results``) cannot reach into grading, and grading cannot
depend on how a grade is shown. Every import counts, at module level or inside a function
(``tests/project/test_import_cycles.py`` reads them the same way), except under ``TYPE_CHECKING``.

Commands (``cli``, each package's ``command`` module and the other entry points) sit on top
and may use anything; the untrusted side is at the bottom, with the spec, and imports
nothing of the trusted side (``tests/untrusted/test_boundary.py``).
"""

from __future__ import annotations

from tests.project.test_import_cycles import dependencies, modules

LAYERS: list[tuple[str, ...]] = [
    ("untrusted", "spec", "integrations"),  # integrations: its __init__, a docstring only
    ("base",),  # the course root's layout, safe text, shared wording, process start-up
    ("results",),  # the record: results, decisions, the course's settings
    ("sandbox", "assignments"),
    ("grading",),
    ("views",),  # the record rendered: feedback pages, grades.csv, the gradebook...
    ("batch",),
    ("report", "authoring", "integrations.lms", "integrations.gradescope"),
    ("review", "publish"),
    ("integrations.cohorts",),
    ("commands",),
]
"""Lowest first. A package's place: its name under ``autograder`` (``integrations`` is
split into its three)."""

BASE_MODULES = {"autograder", "autograder.startup", "autograder.legacy_names"}
COMMAND_MODULES = {"autograder.cli", "autograder.__main__",
                   "autograder.authoring.sample_cohort",
                   "autograder.assignments.evidence_command"}
"""Top-level modules of the base layer, and entry points outside a ``command`` module."""

LAYER_OF = {package: number for number, packages in enumerate(LAYERS) for package in packages}


def package_of(module: str) -> str:
    """The layered package ``module`` belongs to."""
    parts = module.split(".")
    if module in BASE_MODULES:
        return "base"
    if module in COMMAND_MODULES or parts[-1] in ("command", "__main__"):
        return "commands"
    if parts[1] == "integrations" and len(parts) > 2:
        return f"integrations.{parts[2]}"
    return parts[1]


def engine_modules() -> dict:
    return {name: path for name, path in modules().items()
            if not name.startswith("autograder.bundles")}


def test_every_package_has_a_layer():
    unplaced = {package_of(name) for name in engine_modules()} - set(LAYER_OF)
    assert not unplaced, f"packages with no layer in LAYERS: {sorted(unplaced)}"


def test_each_package_imports_only_lower_layers():
    known = modules()
    upward = []
    for module, imported in dependencies(known).items():
        if module.startswith("autograder.bundles"):
            continue
        home = package_of(module)
        for target, line in imported.items():
            if target.startswith("autograder.bundles"):
                continue  # the engine never imports a bundle by name (test_engine_names_...)
            there = package_of(target)
            if there != home and LAYER_OF[there] >= LAYER_OF[home]:
                upward.append(f"{known[module].relative_to(known['autograder'].parents[1])}"
                              f":{line}: {home} imports {target} ({there}, not below it)")
    assert not upward, "imports that break the layers:\n" + "\n".join(sorted(upward))
