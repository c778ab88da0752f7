"""Notes name a cell as the student finds it in Jupyter, which shows no cell numbers (issue 26):
a graded function's solution cell by its function, any other cell by its first line."""

from __future__ import annotations

from autograder.grading.cells import cell_name
from tests.support.h2 import H2


def test_a_solution_cell_is_named_by_its_function():
    assert cell_name("def stable_softmax(x):\n    return x\n", "stable_softmax",
                     H2.function_parts) == "the solution cell of `stable_softmax`"


def test_another_cell_is_named_by_its_first_line():
    source = "\n\n   import sys  \nsys.exit('bye')\n"
    assert cell_name(source, "cell-123abc", H2.function_parts) == (
        "the code cell that starts `import sys`")
    assert cell_name(source, "stable_softmax") == "the code cell that starts `import sys`"


def test_a_long_first_line_is_cut_and_backticks_cannot_break_the_markdown():
    name = cell_name("x = '`' + " + "'a' + " * 30 + "'b'\n")
    assert name.startswith("the code cell that starts `x = ''' + ")
    assert name.endswith("...`") and name.count("`") == 2
    assert len(name) < 90


def test_an_empty_cell_says_so():
    assert cell_name("   \n\n") == "an empty code cell"
