"""Build a sample cohort of submissions in an nbgrader course root.

Used by the Quickstart demo, the end-to-end tests and the benchmark. Every
submission starts from the *release* notebook (what students really get) with
the stubs filled in from the reference, then some get a typical bug, a broken
file or hostile code. Nothing here is shipped to students.

The demo cohort shows every section of the instructor's report (``autograder.report``):
two near-copies (``own_solution`` and ``near_copy``: one student's own code, copied by
another with the variables renamed and the comments changed; the report's similarity
must find this pair and no other), a late submission (``late``: its ``timestamp.txt`` is
after ``DEMO_DUE``, which ``make demo`` grades against) and a sound limitation the
classifier cannot judge (``unjudged_limitation``: a person reads it). Every demo
submission has a ``timestamp.txt``, as ``nbgrader collect`` writes one.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import re
import shutil
import tokenize
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import nbformat
import numpy as np

import solutions
from autograder.authoring.sync import grade_id
from autograder.batch.course import TIMESTAMP_TXT
from autograder.spec import REPO, SPEC
from solutions import evidence as evidence_builder

GOOD_LIMITATION = (
    "Attention weights are not a causal explanation of the output. A key can receive a large "
    "weight while its value vector is close to the others, so removing it barely changes the "
    "context; and in a transformer, residual connections, other heads and later layers also "
    "shape what the model finally does with that context."
)

# A sound limitation that names none of the classifier's topics (autograder.evidence.limitation):
# provisional points, and a person reads it (needs review).
UNJUDGED_LIMITATION = (
    "Attention learns its behaviour only from the data it was trained on. On inputs unlike "
    "anything seen during training, the weights it assigns can be confidently misleading, and "
    "nothing in the mechanism signals that it is out of its depth or that its focus should not "
    "be trusted by whoever reads it."
)

# The due date of the demo (``make demo`` passes it to ``autograde --due``): every demo
# submission is on time but ``late``, which comes LATE_BY after it.
DEMO_DUE = datetime(2026, 12, 14, 23, 59, tzinfo=UTC)
LATE_BY = timedelta(hours=26)
ON_TIME_SPREAD = timedelta(hours=7)  # demo submissions come every 7 hours before the due date

# The near-copy pair's code: one of the repository's six independent correct solutions
# (``tests/correct/``, each written from the notebook's text alone, graded 100/100 by
# ``tests/test_correct_students.py``), so it is a student's own, not the reference's that
# the other sample students share (which the report's similarity rightly calls boilerplate).
OWN_SOLUTION = REPO / "tests" / "correct" / "einsum_everywhere.py"

# (function, text in the reference, replacement): each one is a classic student bug.
BUGS: dict[str, tuple[str, str, str]] = {
    "softmax_wrong_axis": (
        "stable_softmax",
        "exps.sum(axis=-1, keepdims=True)",
        "exps.sum(axis=0, keepdims=True)",
    ),
    "softmax_no_max": (
        "stable_softmax",
        "np.exp((safe - row_max) / temperature)",
        "np.exp(safe / temperature)",
    ),
    "unscaled_scores": ("attention_scores", "scale = 1.0 / math.sqrt(Q.shape[-1])", "scale = 1.0"),
    "causal_diagonal_blocked": (
        "causal_mask",
        "np.ones((int(n_q), int(n_k)), dtype=bool))",
        "np.ones((int(n_q), int(n_k)), dtype=bool), k=-1)",
    ),
    "context_argmax": (
        "attention_context",
        "return weights @ V",
        "return V[np.argmax(weights, axis=-1)]",
    ),
}


@dataclass(frozen=True)
class Variant:
    """How one sample student's submission differs from a correct one."""

    name: str
    describe: str
    apply: Callable[[nbformat.NotebookNode, Path, str], None]
    limitation: str = GOOD_LIMITATION  # what the LIMITATION cell and the evidence file say
    late: bool = False  # submitted LATE_BY after DEMO_DUE (its timestamp.txt says so)
    own_evidence: bool = False  # the evidence file comes from its own (not the reference's) code


def _reference_cells() -> dict[str, str]:
    notebook = nbformat.read(SPEC.source_notebook, as_version=4)
    return {grade_id(cell): cell.source for cell in notebook.cells if grade_id(cell)}


def solved_notebook(student: str, limitation: str = GOOD_LIMITATION) -> nbformat.NotebookNode:
    """The release notebook with every stub filled in from the reference."""
    notebook = nbformat.read(SPEC.release_notebook, as_version=4)
    reference = _reference_cells()
    for cell in notebook.cells:
        gid = grade_id(cell)
        if gid == SPEC.part("limitation").cell:
            cell.source = f'LIMITATION = """\n{limitation}\n"""'
        elif cell.metadata.get("nbgrader", {}).get("solution") and gid in reference:
            cell.source = re.sub(
                r"^[ \t]*### (BEGIN|END) SOLUTION[ \t]*\n?", "", reference[gid], flags=re.M
            )
        elif cell.cell_type == "code" and cell.source.startswith("STUDENT_ID"):
            cell.source = f'STUDENT_ID = "{student}"'
    return notebook


def write_evidence(
    folder: Path,
    student: str,
    limitation: str = GOOD_LIMITATION,
    cohort: str | None = None,
    functions: dict | None = None,
) -> None:
    """The evidence file the notebook's evidence cell saves for ``student``: made by
    ``functions`` (the student's own; the reference's by default). A section those cannot
    compute is recorded as an error, as the notebook's helper does."""
    api = functions if functions is not None else vars(solutions)
    with np.errstate(all="ignore"):
        data = evidence_builder.build_evidence(api, student, limitation, cohort=cohort)
    text = json.dumps(data, indent=2, allow_nan=False)
    (folder / evidence_builder.EVIDENCE_FILENAME).write_text(text)


def own_functions(notebook: nbformat.NotebookNode) -> dict:
    """The functions a notebook's solution cells define (over the reference module's
    imports and the setup cell's ``torch``), as the evidence cell would find them: an honest
    sample's file comes from its own, possibly buggy, code."""
    import torch

    namespace = {**vars(solutions.attention), "torch": torch}  # as the setup cell imports it
    for cell in notebook.cells:
        if cell.metadata.get("nbgrader", {}).get("solution") and grade_id(cell) in solutions.__all__:
            exec(compile(cell.source, f"<sample {grade_id(cell)}>", "exec"), namespace)  # noqa: S102
    return namespace


def set_cell(notebook: nbformat.NotebookNode, gid: str, transform: Callable[[str], str]) -> None:
    for cell in notebook.cells:
        if grade_id(cell) == gid:
            cell.source = transform(cell.source)
            return
    raise KeyError(gid)


def _bug(name: str) -> Variant:
    function, old, new = BUGS[name]

    def apply(notebook: nbformat.NotebookNode, folder: Path, student: str) -> None:
        def mutate(source: str) -> str:
            assert old in source, f"sample bug {name} no longer applies to the reference"
            return source.replace(old, new)

        set_cell(notebook, function, mutate)

    return Variant(name, f"bug in {function}", apply)


def _no_change(notebook: nbformat.NotebookNode, folder: Path, student: str) -> None:
    pass


def _infinite_loop(notebook: nbformat.NotebookNode, folder: Path, student: str) -> None:
    set_cell(
        notebook,
        "stable_softmax",
        lambda s: s.replace('    """\n', '    """\n    while True:\n        pass\n', 1),
    )


def _monkeypatch(notebook: nbformat.NotebookNode, folder: Path, student: str) -> None:
    set_cell(
        notebook,
        "stable_softmax",
        lambda s: (
            "np.allclose = lambda *a, **k: True\nnp.testing.assert_allclose = lambda *a, **k: None\n"
            "def stable_softmax(scores, mask=None, temperature=1.0):\n    return np.zeros(np.shape(scores))\n"
        ),
    )


def _read_reference(notebook: nbformat.NotebookNode, folder: Path, student: str) -> None:
    target = Path(solutions.__file__).with_name("attention.py")
    notebook.cells.append(
        nbformat.v4.new_code_cell(
            f"exec(open({str(target)!r}).read())  # the reference, if it can be read"
        )
    )


def _broken_json(notebook: nbformat.NotebookNode, folder: Path, student: str) -> None:
    pass  # written specially in build_sample_cohort


def own_solution() -> dict[str, str]:
    """The near-copy pair's original: each graded function's source (``OWN_SOLUTION``)."""
    if not OWN_SOLUTION.is_file():
        raise FileNotFoundError(f"{OWN_SOLUTION} is missing: the near-copy sample students need "
                                "the repository's tests/correct/ solutions")
    text = OWN_SOLUTION.read_text(encoding="utf-8")
    functions = {node.name: ast.get_source_segment(text, node) or ""
                 for node in ast.parse(text).body if isinstance(node, ast.FunctionDef)}
    return {name: functions[name] for name in SPEC.function_parts}


def renamed_copy(source: str, note: str) -> str:
    """A copier's version of one function: its local variables renamed (parameters and
    keyword arguments kept: the checks pass them by keyword; names an f-string quotes kept
    too), every comment replaced by ``note`` at the top of the body, the layout otherwise as
    it was."""
    (function,) = ast.parse(source).body
    assert isinstance(function, ast.FunctionDef)
    arguments = {node.arg for node in ast.walk(function) if isinstance(node, ast.arg)}
    taken = arguments | {node.id for node in ast.walk(function) if isinstance(node, ast.Name)}
    # Names inside f-strings stay: before Python 3.12 an f-string is one token.
    quoted = {node.id for text in ast.walk(function) if isinstance(text, ast.JoinedStr)
              for node in ast.walk(text) if isinstance(node, ast.Name)}
    local = sorted({node.id for node in ast.walk(function)
                    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
                   - arguments - quoted)
    names = {}
    for name in local:
        new = f"my_{name.lstrip('_')}"
        while new in taken:
            new += "_"
        names[name] = new
        taken.add(new)
    lines = source.splitlines()
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    edits = []  # (line, start column, end column, new text), applied from the end
    brackets: list[str] = []
    for index, token in enumerate(tokens):
        before = tokens[index - 1].string if index else ""
        after = tokens[index + 1].string if index + 1 < len(tokens) else ""
        if token.type == tokenize.OP and token.string in "([{":
            brackets.append(token.string)
        elif token.type == tokenize.OP and token.string in ")]}" and brackets:
            brackets.pop()
        keyword_argument = (brackets[-1:] == ["("] and after == "=" and before in ("(", ","))
        if token.type == tokenize.COMMENT:
            edits.append((token.start[0], token.start[1], token.end[1], ""))
        elif (token.type == tokenize.NAME and token.string in names and before != "."
              and not keyword_argument):
            edits.append((token.start[0], token.start[1], token.end[1], names[token.string]))
    for row, first, last, text in sorted(edits, reverse=True):
        lines[row - 1] = lines[row - 1][:first] + text + lines[row - 1][last:]
    body = function.body[0].lineno - 1  # the note goes before the first statement
    return "\n".join([*lines[:body], f"    # {note}", *(line.rstrip() for line in lines[body:])])


def _own_solution(notebook: nbformat.NotebookNode, folder: Path, student: str) -> None:
    for function, text in own_solution().items():
        set_cell(notebook, function, lambda _old, text=text: text)


def _near_copy(notebook: nbformat.NotebookNode, folder: Path, student: str) -> None:
    for function, text in own_solution().items():
        copy = renamed_copy(text, f"{function}: my own version, checked against the examples")
        set_cell(notebook, function, lambda _old, copy=copy: copy)


VARIANTS: list[Variant] = [
    Variant("correct", "the reference solution", _no_change),
    *[_bug(name) for name in BUGS],
    Variant("infinite_loop", "stable_softmax never returns", _infinite_loop),
    Variant("monkeypatch", "patches numpy.allclose, returns zeros", _monkeypatch),
    Variant("reads_reference", "tries to read the reference solution", _read_reference),
    Variant("no_evidence", "forgot the evidence file", _no_change),
    Variant("placeholder_limitation", "left the template's limitation", _no_change,
            limitation=evidence_builder.LIMITATION_PLACEHOLDER),
    Variant("broken_notebook", "notebook JSON cut off", _broken_json),
    # The demo's report sections (module docstring); appended, so earlier students keep their ids.
    Variant("own_solution", "a correct solution in its own style (einsum everywhere)",
            _own_solution, own_evidence=True),
    Variant("near_copy", "own_solution's code with variables renamed and comments changed",
            _near_copy, own_evidence=True),
    Variant("late", "correct, submitted after the due date", _no_change, late=True),
    Variant("unjudged_limitation", "a sound limitation the classifier cannot judge", _no_change,
            limitation=UNJUDGED_LIMITATION),
]


def timestamp_text(moment: datetime) -> str:
    """A time as nbgrader writes it in ``timestamp.txt``."""
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M:%S.%f} UTC"


def build_submission(root: Path, student: str, variant: Variant, cohort: str | None = None,
                     submitted_at: datetime | None = None) -> Path:
    """Write ``submitted/<student>/<assignment>/`` for one sample student, with a
    ``timestamp.txt`` when ``submitted_at`` is given or the variant is ``late``."""
    folder = root / "submitted" / student / SPEC.name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    notebook = solved_notebook(student, variant.limitation)
    variant.apply(notebook, folder, student)
    text = nbformat.writes(notebook)
    if variant.name == "broken_notebook":
        text = text[: len(text) // 2]
    (folder / SPEC.notebook).write_text(text, encoding="utf-8")
    if variant.name != "no_evidence":
        own = variant.name in BUGS or variant.own_evidence
        functions = own_functions(notebook) if own else None
        write_evidence(folder, student, variant.limitation, cohort, functions)
    if variant.late:
        submitted_at = DEMO_DUE + LATE_BY
    if submitted_at is not None:
        (folder / TIMESTAMP_TXT).write_text(timestamp_text(submitted_at) + "\n")
    return folder


def on_time(number: int, size: int) -> datetime:
    """When the ``number``-th of ``size`` on-time demo students submitted: the last one
    an hour before ``DEMO_DUE``, each earlier one ``ON_TIME_SPREAD`` before the next."""
    return DEMO_DUE - timedelta(hours=1) - (size - 1 - number) * ON_TIME_SPREAD


def build_sample_cohort(
    root: Path, size: int | None = None, cohort: str | None = None
) -> dict[str, str]:
    """A course root with ``size`` submissions cycling through ``VARIANTS``
    (default: one of each), each with a ``timestamp.txt``; returns student id -> variant
    name."""
    root.mkdir(parents=True, exist_ok=True)
    size = size or len(VARIANTS)
    roster = {}
    for number in range(size):
        variant = VARIANTS[number % len(VARIANTS)]
        student = f"s{number + 1:03d}-{variant.name.replace('_', '-')}"
        build_submission(root, student, variant, cohort, submitted_at=on_time(number, size))
        roster[student] = variant.name
    source = root / "source" / SPEC.name
    if not source.exists():
        shutil.copytree(SPEC.source_dir, source)
    return roster


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("root", type=Path, help="course root to create or refresh")
    parser.add_argument("--size", type=int, help="number of submissions (default: one per variant)")
    parser.add_argument("--cohort", help="cohort the evidence files are made for (pass the same "
                        "to autograde)")
    args = parser.parse_args(argv)
    roster = build_sample_cohort(args.root, args.size, args.cohort)
    print(f"{len(roster)} sample submissions in {args.root / 'submitted'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
