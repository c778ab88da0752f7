"""Python source of a notebook's code cells, IPython syntax removed.

Submissions run outside Jupyter (in sandboxed workers for grading), where
``get_ipython()`` does not exist. This runs *in the worker*, under its time and
memory limits: IPython's transformers re-tokenize a cell once per magic, and
parsing a multi-MiB literal costs hundreds of MB, so the trusted process never
parses, tokenizes or transforms student code. A
``%matplotlib inline`` line must not make the whole cell, and with it the
student's function, disappear; so IPython syntax is first translated with
IPython's own ``TransformerManager`` and every statement that then needs
``get_ipython()`` is replaced by ``pass``. Cell magics (``%%bash``...) drop
their cell, except magics whose body is Python (``%%time``, ``%%capture``).
"""

from __future__ import annotations

import ast

PYTHON_BODY_CELL_MAGICS = frozenset({"time", "timeit", "capture"})


def to_python(cell_source: str) -> str:
    """Plain Python for one cell; IPython-only statements become ``pass``. A cell IPython
    cannot even parse is returned as written (it then fails with the student's own
    SyntaxError)."""
    stripped = cell_source.lstrip()
    if stripped.startswith("%%"):
        first, _, body = stripped.partition("\n")
        magic = first[2:].split(maxsplit=1)[0] if first[2:].strip() else ""
        return body if magic in PYTHON_BODY_CELL_MAGICS else ""
    if _plain_python(cell_source):
        return cell_source
    # IPython (95 ms): only for a cell that is not plain Python (the zygote preloads it)
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        transformed = TransformerManager().transform_cell(cell_source)
        tree = ast.parse(transformed)
    except Exception:  # noqa: BLE001 - IPython's transformers on hostile text
        return cell_source  # let the syntax error surface when the cell runs
    if "get_ipython" not in transformed:
        return transformed
    _DropIPython().visit(tree)
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


# Lines IPython's prompt strippers act on even when the cell parses as Python ("...", and
# "In [1]: x", an annotated assignment).
_PROMPT_STARTS = (">>>", "...", "In [")


def _plain_python(cell_source: str) -> bool:
    """Whether IPython's transformers would leave this cell as it is: it parses as Python (IPython
    syntax never does), does not start with blank or indented lines (which IPython removes or
    dedents), has no line a prompt stripper would edit and no ``get_ipython`` to drop. Most
    cells are like this; IPython's ``TransformerManager`` costs about 1 ms a cell."""
    if not cell_source or cell_source[0] in " \t\r\n\f" or "get_ipython" in cell_source:
        return False
    if any(line.lstrip().startswith(_PROMPT_STARTS) for line in cell_source.splitlines()):
        return False
    try:
        ast.parse(cell_source)
    except Exception:  # noqa: BLE001 - SyntaxError, a NUL byte, too deep: IPython decides
        return False
    return True


def _uses_ipython(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Name) and n.id == "get_ipython" for n in ast.walk(node))


class _DropIPython(ast.NodeTransformer):
    """Replace each innermost statement that calls ``get_ipython`` with ``pass``."""

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for field, value in ast.iter_fields(node):
            if not isinstance(value, list):
                continue
            new_items = []
            for item in value:
                if isinstance(item, ast.stmt) and _uses_ipython(item) and not _has_nested_body(item):
                    new_items.append(ast.copy_location(ast.Pass(), item))
                elif isinstance(item, ast.AST):
                    new_items.append(self.visit(item))
                else:
                    new_items.append(item)
            setattr(node, field, new_items)
        return node


def _has_nested_body(stmt: ast.stmt) -> bool:
    return any(
        isinstance(value, list) and value and isinstance(value[0], ast.stmt)
        for _, value in ast.iter_fields(stmt)
    )
