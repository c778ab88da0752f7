"""H2's sample cohort: the demo's students (``make demo``), also used by the tests and the
benchmarks (``python -m autograder.authoring.sample_cohort h2_attention ROOT``).

Every submission starts from the *release* notebook (what students really get) with
the stubs filled in from the reference, then some get a typical bug, a broken
file or hostile code. Everything it reads is in the installed package (the bundle's
release notebook, the reference ``solutions``, this folder), never a checkout.

The demo cohort shows every section of the instructor's report (``autograder.report``):
two near-copies (``own_solution`` and ``near_copy``: one student's own code, copied by
another with the variables renamed and the comments changed; the report's similarity
must find this pair and no other), a late submission (``late``: its ``timestamp.txt`` is
after ``DEMO_DUE``, which ``make demo`` grades against) and a sound limitation the
classifier cannot judge (``unjudged_limitation``: a person reads it). Every demo
submission has a ``timestamp.txt``, as ``nbgrader collect`` writes one.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import nbformat
import numpy as np

import solutions
from autograder.authoring.sample_cohort import (
    copy_source,
    function_sources,
    reference_notebook,
    renamed_copy,
    set_cell,
    submission_folder,
    timestamp_text,
    write_timestamp,
)
from autograder.authoring.sync import grade_id
from solutions import evidence as evidence_builder

from ..bundle import H2

__all__ = [
    "BUGS", "DEMO_DUE", "GOOD_LIMITATION", "LATE_BY", "OWN_SOLUTION", "UNJUDGED_LIMITATION",
    "VARIANTS", "Variant", "build_sample_cohort", "build_submission", "on_time",
    "hand_example_answers", "own_functions", "own_solution", "paper_prediction", "renamed_copy", "set_cell",
    "solved_notebook",
    "timestamp_text", "write_evidence",
]

ASSIGNMENT = H2

GOOD_LIMITATION = (
    "Attention weights are not a causal explanation of the output. A key can receive a large "
    "weight while its value vector is close to the others, so removing it barely changes the "
    "context; and in a transformer, residual connections, other heads and later layers also "
    "shape what the model finally does with that context."
)

# A sound limitation that names none of the classifier's topics (the bundle's
# evidence/limitation.py): provisional points, and a person reads it (needs review).
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

# The near-copy pair's code: one of the six independent correct solutions the tests grade
# 100/100 (``tests/h2_attention/correct/``, each written from the notebook's text alone; this one lives
# here, and tests/h2_attention/correct/einsum_everywhere.py is a link to it), so it is a student's own,
# not the reference's that the other sample students share (which the report's similarity
# rightly calls boilerplate).
OWN_SOLUTION = Path(__file__).with_name("einsum_everywhere.py")

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


def hand_example_answers() -> tuple[list[float], list[float]]:
    """The hand example's raw scores and weights, from the reference (Step 1's answers)."""
    hand = evidence_builder.evidence_inputs("any student")["hand_example"]  # the lecture's
    q, keys = np.array(hand["queries"]), np.array(hand["keys"])
    scores = solutions.attention_scores(q, keys, scale=1.0)[0]
    weights = solutions.stable_softmax(solutions.attention_scores(q, keys))[0]
    return [float(s) for s in scores], [float(w) for w in weights]


def paper_prediction() -> str:
    """Step 1's prediction cell as a student who worked the hand example out on paper fills
    it in: the raw scores, and the weights to two decimals."""
    scores, weights = hand_example_answers()
    return f"MY_RAW_SCORES = {scores}\nMY_WEIGHTS = {[round(w, 2) for w in weights]}"


def solved_notebook(student: str, limitation: str = GOOD_LIMITATION) -> nbformat.NotebookNode:
    """The release notebook with every stub filled in from the reference (and Step 1's
    prediction made, as a careful student makes it)."""
    notebook = reference_notebook(ASSIGNMENT)
    for cell in notebook.cells:
        if grade_id(cell) == ASSIGNMENT.part("limitation").cell:
            cell.source = f'LIMITATION = """\n{limitation}\n"""'
        elif cell.cell_type == "code" and cell.source.startswith("STUDENT_ID"):
            cell.source = f'STUDENT_ID = "{student}"'
        elif cell.cell_type == "code" and "MY_RAW_SCORES = None" in cell.source:
            cell.source = paper_prediction()
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
    pass  # written specially in build_submission


def own_solution() -> dict[str, str]:
    """The near-copy pair's original: each graded function's source (``OWN_SOLUTION``)."""
    return function_sources(OWN_SOLUTION, ASSIGNMENT.function_parts)


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


def build_submission(root: Path, student: str, variant: Variant, cohort: str | None = None,
                     submitted_at: datetime | None = None) -> Path:
    """Write ``submitted/<student>/<assignment>/`` for one sample student, with a
    ``timestamp.txt`` when ``submitted_at`` is given or the variant is ``late``."""
    folder = submission_folder(root, student, ASSIGNMENT)
    notebook = solved_notebook(student, variant.limitation)
    variant.apply(notebook, folder, student)
    text = nbformat.writes(notebook)
    if variant.name == "broken_notebook":
        text = text[: len(text) // 2]
    (folder / ASSIGNMENT.notebook).write_text(text, encoding="utf-8")
    if variant.name != "no_evidence":
        own = variant.name in BUGS or variant.own_evidence
        functions = own_functions(notebook) if own else None
        write_evidence(folder, student, variant.limitation, cohort, functions)
    if variant.late:
        submitted_at = DEMO_DUE + LATE_BY
    if submitted_at is not None:
        write_timestamp(folder, submitted_at)
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
    copy_source(ASSIGNMENT, root)
    return roster
