"""One writer of a course root's grade files (issue 51).

A student's results.json, feedback.html and formgrader's notebook, grades.csv and the
gradebook were written by five paths (grading, the version rule, the decisions, `review`,
the Gradescope run), each with its own idea of which to write; one student's results.json
could be written three times in one run. Now ``autograder.views.student_files`` is the one
module that calls their writers, and the record it writes is composed by one pure function,
``autograder.results.compose.compose``. This test reads every engine module's calls, as the
layer test reads its imports, and names any other caller."""

from __future__ import annotations

import ast

from tests.project.test_import_cycles import modules

WRITERS = {
    ("autograder.results.result", "save"): "results.json",
    ("autograder.views.feedback_page", "save"): "feedback.html",
    ("autograder.views.graded_notebook", "write"): "formgrader's notebook",
    ("autograder.views.grades_csv", "write"): "grades.csv",
    ("autograder.views.gradebook", "record"): "the gradebook",
}
THE_WRITER = "autograder.views.student_files"
# Not a course root's: Gradescope's container has none, and its run writes Gradescope's own
# folder (/autograder/results), once.
NO_ROOT = {"autograder.integrations.gradescope.run"}


def _calls(tree: ast.AST) -> list[tuple[int, str, str]]:
    """(line, module, name) of each call of a function imported from a module (``from m
    import f; f()``, ``from p import m; m.f()``, ``from p import m as x; x.f()``)."""
    functions: dict[str, tuple[str, str]] = {}
    modules_as: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                functions[alias.asname or alias.name] = (node.module, alias.name)
                modules_as[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                modules_as[alias.asname or alias.name] = alias.name
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Name) and node.func.id in functions:
            found.append((node.lineno, *functions[node.func.id]))
        elif isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
                and node.func.value.id in modules_as:
            found.append((node.lineno, modules_as[node.func.value.id], node.func.attr))
    return found


def test_only_the_writer_writes_a_roots_grade_files():
    others = []
    for name, path in modules().items():
        if name == THE_WRITER or name in NO_ROOT:
            continue
        for line, module, function in _calls(ast.parse(path.read_text(encoding="utf-8"))):
            if (module, function) in WRITERS:
                others.append(f"{name}:{line} writes {WRITERS[module, function]} "
                              f"({module}.{function})")
    assert not others, f"grade files written outside {THE_WRITER}:\n" + "\n".join(others)


def test_the_writer_writes_each_of_them():
    """The test reads calls as the writer makes them: it finds every writer there (else it
    would find none anywhere, and pass for nothing)."""
    path = modules()[THE_WRITER]
    called = {(module, function) for _, module, function in _calls(ast.parse(path.read_text()))}
    assert set(WRITERS) <= called, set(WRITERS) - called
