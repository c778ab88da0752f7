"""Extracting runnable Python from notebook code cells."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from autograder.untrusted.notebook_code import to_python
from tests.support.h2 import SPEC
from tests.support.in_process import InProcessStudent
from tests.support.notebook_cells import code_cells
from tests.support.skips import needs

ROOT = Path(__file__).resolve().parents[2]
SOURCE_NOTEBOOK = SPEC.source_notebook


def test_line_magics_and_shell_become_pass():
    code = to_python("%matplotlib inline\nx = 1\nfiles = !ls\ndef f():\n    %time y = 2\n    return x\n")
    assert "get_ipython" not in code
    namespace: dict = {}
    exec(code, namespace)
    assert namespace["f"]() == 1


def test_cell_magics():
    assert to_python("%%bash\necho hi\n") == ""
    assert to_python("%%time\nz = 3\n").strip() == "z = 3"


def test_syntax_errors_are_left_for_the_cell_to_report():
    assert to_python("def broken(:\n") == "def broken(:\n"


def test_cells_in_order_and_grade_cells_skippable():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# title"),
        nbformat.v4.new_code_cell("a = 1"),
        nbformat.v4.new_code_cell("assert a == 1", metadata={"nbgrader": {"grade": True, "solution": False}}),
        nbformat.v4.new_code_cell("b = a + 1"),
    ]
    assert [c.strip() for c in code_cells(nb)] == ["a = 1", "assert a == 1", "b = a + 1"]
    assert [c.strip() for c in code_cells(nb, skip_grade_cells=True)] == ["a = 1", "b = a + 1"]


@pytest.mark.skipif(not SOURCE_NOTEBOOK.exists(),
                    reason=needs("source notebook not present", "git checkout source/"))
def test_source_notebook_defines_every_function():
    student = InProcessStudent(code_cells(SOURCE_NOTEBOOK, skip_grade_cells=True))
    import solutions

    assert [name for name in solutions.__all__ if not student.has(name)] == []


def _through_ipython(cell: str) -> str:
    """What ``to_python`` gave before its plain-Python shortcut: IPython's transformers."""
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(cell)


def _every_code_cell() -> list[str]:
    notebooks = [SOURCE_NOTEBOOK, *sorted((ROOT / "release").rglob("*.ipynb"))]
    cells = [cell for path in notebooks for cell in code_cells(nbformat.read(path, as_version=4))]
    modules = [ROOT / "solutions" / "attention.py", *sorted((ROOT / "tests" / "h2_attention" / "correct").glob("*.py"))]
    return [source for source in cells if source] + [path.read_text() for path in modules]


TRICKY_CELLS = [
    "x = 1\n...\n",                      # a prompt stripper removes the "..." line
    "In [1]: x\n",                       # parses: an annotated assignment; IPython strips it
    "  # indented comment\ndef f():\n  return 1\n",  # IPython dedents: a different program
    "\n\nx = 1\n",                       # IPython drops the blank lines: other line numbers
    "y = get_ipython()\n",
    "x = 1  # a comment with ! and % and ?\n",
    "s = '''\n%notmagic\n!notshell\n'''\n",
]


@pytest.mark.parametrize("cell", _every_code_cell() + TRICKY_CELLS)
def test_the_plain_python_shortcut_gives_ipythons_program(cell):
    """Every cell of the assignment, the reference and the correct students' code (and cells
    built to trip the shortcut) becomes the same program as IPython's transformers make."""
    import ast

    ours, theirs = to_python(cell), _through_ipython(cell)
    try:
        expected = ast.dump(ast.parse(theirs))
    except SyntaxError:
        assert ours == cell or "get_ipython" not in ours
        return
    if "get_ipython" in theirs:
        return  # dropped statement by statement: test_line_magics_and_shell_become_pass
    assert ast.dump(ast.parse(ours)) == expected
