"""Build a sample cohort of submissions in an nbgrader course root.

Used by the Quickstart demo, the end-to-end tests and the benchmark. Every
submission starts from the *release* notebook (what students really get) with
the stubs filled in from the reference, then some get a typical bug, a broken
file or hostile code. Nothing here is shipped to students.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nbformat
import numpy as np

import solutions
from autograder.authoring.sync import grade_id
from autograder.spec import SPEC
from solutions import evidence as evidence_builder

GOOD_LIMITATION = (
    "Attention weights are not a causal explanation of the output. A key can receive a large "
    "weight while its value vector is close to the others, so removing it barely changes the "
    "context; and in a transformer, residual connections, other heads and later layers also "
    "shape what the model finally does with that context."
)

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
    imports), as the evidence cell would find them: an honest sample's file comes from
    its own, possibly buggy, code."""
    namespace = dict(vars(solutions.attention))
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


VARIANTS: list[Variant] = [
    Variant("correct", "the reference solution", _no_change),
    *[_bug(name) for name in BUGS],
    Variant("infinite_loop", "stable_softmax never returns", _infinite_loop),
    Variant("monkeypatch", "patches numpy.allclose, returns zeros", _monkeypatch),
    Variant("reads_reference", "tries to read the reference solution", _read_reference),
    Variant("no_evidence", "forgot the evidence file", _no_change),
    Variant("placeholder_limitation", "left the template's limitation", _no_change),
    Variant("broken_notebook", "notebook JSON cut off", _broken_json),
]


def build_submission(root: Path, student: str, variant: Variant, cohort: str | None = None) -> Path:
    """Write ``submitted/<student>/<assignment>/`` for one sample student."""
    folder = root / "submitted" / student / SPEC.name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    limitation = (
        evidence_builder.LIMITATION_PLACEHOLDER
        if variant.name == "placeholder_limitation"
        else GOOD_LIMITATION
    )
    notebook = solved_notebook(student, limitation)
    variant.apply(notebook, folder, student)
    text = nbformat.writes(notebook)
    if variant.name == "broken_notebook":
        text = text[: len(text) // 2]
    (folder / SPEC.notebook).write_text(text, encoding="utf-8")
    if variant.name != "no_evidence":
        functions = own_functions(notebook) if variant.name in BUGS else None
        write_evidence(folder, student, limitation, cohort, functions)
    return folder


def build_sample_cohort(
    root: Path, size: int | None = None, cohort: str | None = None
) -> dict[str, str]:
    """A course root with ``size`` submissions cycling through ``VARIANTS``
    (default: one of each); returns student id -> variant name."""
    root.mkdir(parents=True, exist_ok=True)
    size = size or len(VARIANTS)
    roster = {}
    for number in range(size):
        variant = VARIANTS[number % len(VARIANTS)]
        student = f"s{number + 1:03d}-{variant.name.replace('_', '-')}"
        build_submission(root, student, variant, cohort)
        roster[student] = variant.name
    source = root / "source" / SPEC.name
    if not source.exists():
        shutil.copytree(SPEC.source_dir, source)
    return roster


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("root", type=Path, help="course root to create or refresh")
    parser.add_argument("--size", type=int, help="number of submissions (default: one per variant)")
    args = parser.parse_args(argv)
    roster = build_sample_cohort(args.root, args.size)
    print(f"{len(roster)} sample submissions in {args.root / 'submitted'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
