"""Submissions for the report tests: correct solutions in their own styles, a planted
near-copy of one (locals renamed, comments rewritten), a misconception in two functions."""

from __future__ import annotations

import ast
import importlib
import io
import re
import tokenize
from pathlib import Path

import nbformat

from autograder.bundles.h2_attention.samples import (
    GOOD_LIMITATION,
    own_functions,
    set_cell,
    solved_notebook,
    write_evidence,
)
from tests.h2_attention.test_correct_students import split_solution
from tests.support.h2 import SPEC

# A comment a copier might write: the report must show it as text, never as markup.
HOSTILE_COMMENT = "# tweaked <script>alert('x')</script> & </pre><b>bold</b>"

# One misconception (float64 NumPy scalars sneak in) written in two functions.
DTYPE_TWICE = {
    "attention_scores": ("scale = 1.0 / math.sqrt(Q.shape[-1])", "scale = 1.0 / np.sqrt(Q.shape[-1])"),
    "attention_context": ("    return weights @ V\n", "    return (weights @ V).astype(np.float64)\n"),
}


def style_cells(name: str) -> tuple[dict[str, str], str]:
    """A correct solution of ``tests/h2_attention/correct/`` as solution cells, and its limitation."""
    return split_solution(name)


def write_submission(root: Path, student: str, cells: dict[str, str], limitation: str,
                     cohort: str | None, *, evidence: bool = True, style: str | None = None
                     ) -> Path:
    """``submitted/<student>/<assignment>/``: the release notebook with ``cells`` as its
    solution cells and (with ``evidence``) the evidence file its own functions write
    (run over the imports of ``tests/h2_attention/correct/<style>.py``, else the reference's)."""
    notebook = solved_notebook(student, limitation)
    for function, text in cells.items():
        set_cell(notebook, function, lambda _old, text=text: text)
    folder = root / "submitted" / student / SPEC.name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / SPEC.notebook).write_text(nbformat.writes(notebook), encoding="utf-8")
    if evidence:
        write_evidence(folder, student, limitation, cohort, functions_of(notebook, style))
    return folder


def functions_of(notebook: nbformat.NotebookNode, style: str | None) -> dict:
    """The functions the notebook's solution cells define, as its evidence cell sees them."""
    if style is None:
        return own_functions(notebook)
    namespace = dict(vars(importlib.import_module(f"tests.h2_attention.correct.{style}")))
    for cell in notebook.cells:
        if cell.metadata.get("nbgrader", {}).get("solution") and cell.source.startswith("def "):
            exec(compile(cell.source, "<style cell>", "exec"), namespace)  # noqa: S102
    return namespace


def _locals(function: ast.FunctionDef) -> set[str]:
    arguments = {a.arg for a in [*function.args.args, *function.args.kwonlyargs,
                                 *function.args.posonlyargs]}
    stored = {node.id for node in ast.walk(function)
              if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    return stored - arguments


def _rename(text: str, renames: dict[str, str]) -> str:
    """Locals renamed inside an f-string's replacement field (not after a dot)."""
    return re.sub(r"(?<![.\w])([A-Za-z_]\w*)",
                  lambda name: renames.get(name.group(1), name.group(1)), text)


def near_copy(source: str) -> str:
    """``source`` (one function) with every local variable renamed and every comment
    rewritten: what a copier does to hide a copy. Behaviour is unchanged."""
    tree = ast.parse(source)
    function = next(node for node in tree.body if isinstance(node, ast.FunctionDef))
    renames = {name: f"my_{name.lower()}_value" for name in _locals(function)}
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    edits = []  # (row, start col, end col, new text), applied right to left
    depth = 0
    for index, token in enumerate(tokens):
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        previous = tokens[index - 1].string if index else ""
        following = tokens[index + 1].string if index + 1 < len(tokens) else ""
        if (token.type == tokenize.NAME and token.string in renames and previous != "."
                and not (following == "=" and depth > 0)):
            edits.append((token.start[0], token.start[1], token.end[1], renames[token.string]))
        elif token.type == tokenize.STRING and re.match(r"[rRbB]?[fF]", token.string):
            text = re.sub(r"\{[^{}]*\}", lambda field: _rename(field.group(0), renames),
                          token.string)
            if token.start[0] == token.end[0] and text != token.string:
                edits.append((token.start[0], token.start[1], token.end[1], text))
        elif token.type == tokenize.COMMENT:
            edits.append((token.start[0], token.start[1], token.end[1], "# my own note"))
    lines = source.splitlines()
    for row, begin, finish, text in sorted(edits, reverse=True):
        line = lines[row - 1]
        lines[row - 1] = line[:begin] + text + line[finish:]
    last = len(lines) - 1  # the final statement: inside the body, in a copied passage
    indent = lines[last][: len(lines[last]) - len(lines[last].lstrip())]
    lines.insert(last, indent + HOSTILE_COMMENT)
    copied = "\n".join(lines) + "\n"
    compile(copied, "<near copy>", "exec")
    return copied


def near_copy_cells(name: str) -> dict[str, str]:
    """Every solution cell of ``tests/h2_attention/correct/<name>.py``, near-copied."""
    cells, _ = split_solution(name)
    return {function: near_copy(text) for function, text in cells.items()}


def dtype_twice_cells() -> dict[str, str]:
    """The reference's cells for the two functions that get the float64 habit."""
    notebook = solved_notebook("unused")
    cells = {}
    for cell in notebook.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid in DTYPE_TWICE:
            old, new = DTYPE_TWICE[gid]
            assert old in cell.source, f"{gid}: the reference changed; update DTYPE_TWICE"
            cells[gid] = cell.source.replace(old, new)
    return cells


__all__ = ["GOOD_LIMITATION", "HOSTILE_COMMENT", "dtype_twice_cells", "near_copy",
           "near_copy_cells", "style_cells", "write_submission"]
