"""What a student meets in the release (issue 42): its promises, rules and visible checks.

One test (or a few) per item of the issue, each failing on the release before it:

1. the limitation's stub no longer stops Run All (the kernel runs are in
   ``tests/h2_attention/release/test_release_run_all.py``), and a file of stubs earns nothing;
2. no release file, schema or doc shows a hand-example answer, and the schema's example
   limitation does not paraphrase Step 13's caution;
3. the visible batched ``value_intervention`` check catches ``V[index]``;
4. each rule the hidden checks apply is stated as they apply it, and the checks are shown
   to apply it so (the inputs they pass are recorded; the readings left open score full);
5. one limitation-length rule in the notebook's text and check cell, the schema, the docs
   and the grader, and the sentence on a limitation the notebook discusses;
6. each visible-check message names the fix;
7. the intro's line on carrying forward (the rest in Step 12), and the Run All time.

The notebook's code runs in this (trusted) test process: it is our own code.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import random
import re
import subprocess
import sys
import textwrap

import nbformat
import numpy as np
import pytest
from jsonschema import Draft202012Validator

from autograder.authoring.sync import grade_id
from autograder.bundles.h2_attention.evidence import notebook_echo, verify_evidence
from autograder.bundles.h2_attention.evidence.limitation import judge_limitation
from autograder.bundles.h2_attention.evidence_parts import evidence_part_scores
from autograder.bundles.h2_attention.provenance import check_provenance
from autograder.grading import run_checks, score_parts
from solutions import evidence as evidence_builder
from solutions.evidence import (
    LIMITATION_MAX_WORDS,
    LIMITATION_MIN_WORDS,
    LIMITATION_PLACEHOLDER,
    limitation_words,
)
from tests.support.corpus import override_source, reference_source, stub_source
from tests.support.h2 import H2, SPEC, hand_example_truth, predicted
from tests.support.in_process import InProcessStudent

RELEASE_DIR, SOURCE_DIR, NOTEBOOK = SPEC.release_dir, SPEC.source_dir, SPEC.notebook
DOCS = SPEC.release_dir.parents[1] / "docs" / "students.md"
RULE = f"{LIMITATION_MIN_WORDS} to {LIMITATION_MAX_WORDS} words"


def cells(folder=RELEASE_DIR) -> list[nbformat.NotebookNode]:
    return nbformat.read(folder / NOTEBOOK, as_version=4).cells


def code(gid: str, folder=RELEASE_DIR) -> str:
    return next(cell.source for cell in cells(folder) if grade_id(cell) == gid)


def markdown(heading: str) -> str:
    """The release's markdown cell that holds ``heading`` (the intro: its title)."""
    return next(cell.source for cell in cells() if cell.cell_type == "markdown" and heading in cell.source)


def flat(text: str) -> str:
    return " ".join(text.split())


INTRO = flat(markdown("# H2 · Attention"))
STEP12 = flat(markdown("## Step 12 ·"))
STEP13 = markdown("## Step 13 ·")
SCHEMA = json.loads((RELEASE_DIR / SPEC.schema_path.name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def solved() -> dict:
    """Globals after the source notebook's cells up to its evidence section (predictions
    made), as a student's kernel holds them when the checks run."""
    pytest.importorskip("matplotlib").use("Agg")
    namespace: dict = {"__name__": "__main__"}
    for cell in cells(SOURCE_DIR):
        if cell.cell_type != "code":
            continue
        if cell.source.startswith("STUDENT_ID"):
            break
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(predicted(cell.source), "<source notebook>", "exec"), namespace)
    import matplotlib.pyplot as plt

    plt.close("all")  # the demos' heatmaps: drawn, not needed
    return namespace


def visible_check_error(solved: dict, check: str, student_code: str) -> str:
    """The release's visible check ``check`` run after ``student_code`` (one function of the
    student's replacing the reference's): the AssertionError it stops with."""
    namespace = dict(solved)
    exec(textwrap.dedent(student_code), namespace)
    with contextlib.redirect_stdout(io.StringIO()), pytest.raises(AssertionError) as failed:
        exec(code(check), namespace)
    return str(failed.value)


def full_marks(*cells_of_code: str) -> dict[str, tuple[float, float]]:
    """The function parts that lose points when the hidden checks grade these cells."""
    scores = score_parts(run_checks(InProcessStudent(list(cells_of_code)), H2), H2)
    return {part: (s.points, s.max_points) for part, s in scores.items() if s.points != s.max_points}


# ----------------------------------------------------------------- 1. a file of stubs


def test_an_untouched_notebooks_file_earns_nothing():
    """What Run All of an untouched release saves (every section a stub's error, the
    limitation the placeholder) earns no point: not the limitation, not the identity."""
    def stub(*args, **kwargs):
        raise NotImplementedError()

    data = evidence_builder.build_evidence(dict.fromkeys(SPEC.function_parts, stub), "s-fresh",
                                           LIMITATION_PLACEHOLDER)
    report = verify_evidence(json.dumps(data).encode(), student_id="s-fresh")
    assert report.points["limitation"] == 0
    # Whether the student did any work is asked of their functions (issue 50, item 18).
    source = stub_source()
    provenance = check_provenance(report, InProcessStudent(source), student_id="s-fresh",
                                  failed_functions=set(SPEC.function_parts))
    parts = evidence_part_scores(report, provenance)
    assert {name: part.points for name, part in parts.items()} == {"evidence": 0, "limitation": 0}
    assert "nothing_computed" in [m.code for m in parts["evidence"].messages]
    assert not any(part.needs_review for part in parts.values())


def test_the_limitation_stub_holds_the_placeholder_and_does_not_stop_run_all():
    cell = next(c for c in cells() if grade_id(c) == SPEC.part("limitation").cell)
    assert "raises-exception" in cell.metadata.get("tags", [])
    assert f'LIMITATION = "{LIMITATION_PLACEHOLDER}"' in cell.source
    assert cell.source.rstrip().endswith("raise NotImplementedError()")
    assert 'globals().get("LIMITATION")' in code("save_evidence")  # saved even if deleted


# ----------------------------------------------------------------- 2. no hand-example answer

# The hand example's answers as a text may state them (test_predict_first's list) and the
# scale 1/sqrt(2) it uses.
STATED = ("0.707", "0.401", "0.198", "0.197", "8.022", "5.988", "5.989", "7.966", "1.977", "1.978")


@pytest.mark.parametrize("path", sorted([*RELEASE_DIR.iterdir(), SPEC.schema_path, DOCS]),
                         ids=lambda p: p.name)
def test_no_file_a_student_gets_states_a_hand_example_answer(path):
    text = path.read_text(encoding="utf-8")
    assert [number for number in STATED if number in text] == []


def test_the_schemas_example_is_made_up_not_step_1():
    scores, weights = hand_example_truth()
    hand = evidence_builder.evidence_inputs("any student")["hand_example"]
    for example in SCHEMA["examples"]:
        mine = example["hand_example"]
        assert all(mine[name] != hand[name] for name in ("queries", "keys", "values"))
        assert mine["raw_scores"] != [scores] and not np.allclose(np.ravel(mine["weights"])[:3], weights)
        assert list(Draft202012Validator(SCHEMA).iter_errors(example)) == []


def test_the_schemas_example_limitation_does_not_paraphrase_step_13():
    caution = notebook_echo.build_index(notebook_echo.notebook_sentences(
        {"cells": [{"cell_type": "markdown", "source": STEP13}]}))
    for example in SCHEMA["examples"]:
        text = example["limitation"]
        assert notebook_echo.echo(text, caution).copied_share < 0.1
        words = set(re.findall(r"[a-z]+", text.lower()))
        assert not words & {"causal", "explanation", "explanations", "residual", "layers",
                            "heatmap", "intervention", "values"}, words
        # a student who copies it is sent to a person, never given the points unread
        judged = judge_limitation(text)
        assert judged.needs_review and "limitation_copied" in [f.code for f in judged.findings]


# ----------------------------------------------------------------- 3. the batched intervention

V_INDEX_BUG = '''
def value_intervention(Q, K, V, index, new_value, mask=None):
    V = np.asarray(V)
    context_before, weights_before = scaled_dot_product_attention(Q, K, V, mask=mask)
    V_after = V.copy()
    V_after[index] = new_value  # the first axis is the batch when V has one
    context_after, weights_after = scaled_dot_product_attention(Q, K, V_after, mask=mask)
    return {"weights_before": weights_before, "weights_after": weights_after,
            "context_before": context_before, "context_after": context_after}
'''


def test_the_visible_batched_intervention_check_catches_v_index(solved):
    message = visible_check_error(solved, "check_value_intervention", V_INDEX_BUG)
    assert "V[..., index, :], not V[index]" in message
    # ...as the hidden checks do (the bug is tests/h2_attention/buggy/intervention_batch_index.py)
    lost = full_marks(override_source("import numpy as np\n" + V_INDEX_BUG))
    assert set(lost) == {"value_intervention"}


# ----------------------------------------------------------------- 4. rules stated as applied


@pytest.mark.parametrize("stated", [
    # helpers: the grader runs the solution cells, then calls each function
    "helpers (functions or constants) you define in a solution cell, its own or another's",
    # float32: what the checks that test it pass
    "The checks that test float32 give all the arrays of a call the same dtype and leave "
    "`scale` and `temperature` at their defaults",
    "what your function returns for float32 mixed with float64 in one call, or for float32 "
    "inputs with an explicit `scale` or `temperature`, is not checked",
    # stable_softmax, causal_mask, padding_mask: the inputs the checks never pass
    "The checks pass scores that are finite or ``-inf``, and Boolean masks with no more "
    "dimensions than ``scores``: what your function does with a NaN or +inf score, a 0/1 mask "
    "or a mask with more dimensions is not checked.",
    "The checks pass whole numbers, at least 0: refusing another size (-1, 2.5) with "
    "``ValueError`` is good practice, not checked.",
    "The checks pass whole numbers: refusing another length (2.5) with ``ValueError`` is good "
    "practice, not checked.",
])
def test_each_rule_is_stated_in_the_release(stated):
    text = flat("\n".join(cell.source for cell in cells()))
    assert flat(stated) in text


def _is_float(x: object) -> bool:
    return isinstance(x, np.ndarray) and x.dtype.kind == "f"


@functools.cache
def calls_the_checks_make() -> tuple[tuple[str, tuple, dict], ...]:
    """Every call the hidden checks make into a correct submission's functions, the calls
    between its own functions included (each function of the namespace is wrapped)."""
    student = InProcessStudent(reference_source())
    made: list[tuple[str, tuple, dict]] = []
    namespace = student._namespace  # noqa: SLF001 - a test's look inside its own runner

    def recording(name: str, function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            made.append((name, args, kwargs))
            return function(*args, **kwargs)
        return wrapper

    for name in SPEC.function_parts:
        namespace[name] = recording(name, namespace[name])
    results = run_checks(student, H2)
    assert all(result.points == result.max_points for result in results)
    return tuple(made)


def test_the_checks_pass_softmax_only_finite_or_minus_inf_scores_and_boolean_masks():
    softmax = [(args, kwargs) for name, args, kwargs in calls_the_checks_make() if name == "stable_softmax"]
    assert len(softmax) > 20
    for args, kwargs in softmax:
        scores = np.asarray(args[0])
        assert not np.isnan(scores).any() and not np.isposinf(scores).any()
        mask = kwargs.get("mask", args[1] if len(args) > 1 else None)
        if mask is not None:
            assert np.asarray(mask).dtype == np.bool_ and np.ndim(mask) <= scores.ndim


def test_the_checks_pass_masks_whole_sizes_and_lengths():
    for name, args, kwargs in calls_the_checks_make():
        if name == "causal_mask":
            sizes = [*args, *kwargs.values()]
            assert all(size is None or (isinstance(size, int) and size >= 0) for size in sizes)
        elif name == "padding_mask":
            assert np.asarray(args[0]).dtype.kind in "iu" and isinstance(args[1], int)


def test_the_checks_test_float32_with_one_dtype_and_the_default_scale():
    float32 = [(name, args, kwargs) for name, args, kwargs in calls_the_checks_make()
               if any(_is_float(x) and x.dtype == np.float32 for x in [*args, *kwargs.values()])]
    assert {name for name, _, _ in float32} >= {"attention_scores", "stable_softmax",
                                                 "attention_context", "torch_sdpa"}
    for name, args, kwargs in float32:
        floats = [x for x in [*args, *kwargs.values()] if _is_float(x)]
        assert {x.dtype for x in floats} == {np.dtype(np.float32)}, name
        assert kwargs.get("scale") is None and kwargs.get("temperature", 1.0) == 1.0, name


# The readings the release leaves open, each graded full by the hidden checks.
OPEN_READINGS = {
    "mixed dtypes follow the first input, an explicit scale or temperature promotes": '''
_scores, _softmax = attention_scores, stable_softmax

def attention_scores(Q, K, scale=None):
    Q, K = np.asarray(Q), np.asarray(K)
    if Q.dtype.kind == "f" and K.dtype.kind == "f":
        K = K.astype(Q.dtype)
    return _scores(Q, K, scale=None if scale is None else np.float64(scale))

def stable_softmax(scores, mask=None, temperature=1.0):
    return _softmax(scores, mask=mask, temperature=temperature if temperature == 1.0 else np.float64(temperature))
''',
    "NaN and +inf give NaN, a 0/1 mask is read as True/False, a wider mask is refused": '''
_softmax = stable_softmax

def stable_softmax(scores, mask=None, temperature=1.0):
    scores = np.asarray(scores)
    if mask is not None:
        if np.ndim(mask) > scores.ndim:
            raise ValueError("the mask has more dimensions than the scores")
        mask = np.asarray(mask).astype(bool)
    if scores.dtype.kind == "f" and (np.isnan(scores).any() or np.isposinf(scores).any()):
        return np.full(scores.shape, np.nan, dtype=scores.dtype)
    return _softmax(scores, mask=mask, temperature=temperature)
''',
    "sizes and lengths are not validated beyond the docstrings' ValueErrors": '''
def causal_mask(n_q, n_k=None):
    return np.tril(np.ones((n_q, n_q if n_k is None else n_k), dtype=bool))

def padding_mask(lengths, n_k):
    lengths = np.asarray(lengths)
    if np.any(lengths < 0) or np.any(lengths > n_k):
        raise ValueError(f"every length must lie in [0, {n_k}]")
    return np.arange(n_k)[None, :] < lengths[:, None]
''',
}


@pytest.mark.parametrize("reading", list(OPEN_READINGS))
def test_a_reading_the_release_leaves_open_loses_nothing(reading):
    assert full_marks(reference_source(), OPEN_READINGS[reading]) == {}


# Helpers as a student writes them: one defined in a function's own cell, one used from
# another function's cell, a constant; each cell redefines what the reference defined.
HELPER_CELLS = (
    '''
FLOAT_KINDS = "f"


def as_floats(x):
    """x as an array, in float64 only when it is not floating point already."""
    x = np.asarray(x)
    return x if x.dtype.kind in FLOAT_KINDS else x.astype(np.float64)


def attention_scores(Q, K, scale=None):
    Q, K = as_floats(Q), as_floats(K)
    if Q.ndim < 2 or K.ndim < 2 or Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q has d_k={Q.shape[-1]} but K has d_k={K.shape[-1]}")
    if scale is None:
        scale = 1.0 / math.sqrt(Q.shape[-1])
    return (Q @ np.swapaxes(K, -1, -2)) * scale
''',
    '''
def attention_context(weights, V):
    weights, V = as_floats(weights), as_floats(V)  # the helper of attention_scores' cell
    if V.ndim < 2 or weights.shape[-1] != V.shape[-2]:
        raise ValueError(f"weights have n_k={weights.shape[-1]} columns but V has shape {V.shape}")
    return weights @ V
''',
)


def test_helpers_defined_in_solution_cells_are_used_as_stated():
    source = [code("setup"), code("hand_example"), reference_source(), *HELPER_CELLS]
    assert full_marks(*source) == {}


# ----------------------------------------------------------------- 5. one length rule


def _length_texts() -> list[str]:
    rng = random.Random(42)
    pieces = ["attention", "don't", "self-attention", "GPT4", "8k", "—", " ", ", ", ".\n",
              "q·k", "2.5", "Внимание", "注意力", "_x_", LIMITATION_PLACEHOLDER]
    texts = ["", "  ", LIMITATION_PLACEHOLDER, LIMITATION_PLACEHOLDER + " and more"]
    for words in (*range(15, 25), *range(195, 205)):
        texts.append(" ".join(["word"] * words))
        texts.append(LIMITATION_PLACEHOLDER + " " + " ".join(["self-attention"] * words))
    for _ in range(300):
        texts.append("".join(rng.choice(pieces) + rng.choice([" ", "", "-", "'"])
                             for _ in range(rng.randint(1, 240))))
    return texts


def _schema_refuses_length(text: str) -> bool:
    rule = SCHEMA["properties"]["limitation"]["allOf"][-1]
    return not Draft202012Validator(rule).is_valid(text)


def _check_cell_refuses_length(text: str) -> bool:
    namespace: dict = {}
    exec(code("evidence_helper"), namespace)
    namespace["LIMITATION"] = text
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(code("check_limitation"), namespace)
    except AssertionError as error:
        return RULE in str(error)
    return False


def test_the_check_cell_the_schema_and_the_grader_count_alike():
    """The one rule: the check cell refuses, the schema refuses and the grader scores 0 for
    length exactly the texts outside it, counted by ``limitation_words``."""
    for text in _length_texts():
        outside = not LIMITATION_MIN_WORDS <= limitation_words(text) <= LIMITATION_MAX_WORDS
        placeholder = text.strip() in ("", LIMITATION_PLACEHOLDER)  # their own rule says it
        assert _schema_refuses_length(text) == (outside and not placeholder), text[:80]
        # the check cell: the placeholder's own assert comes first; empty text is 0 words
        assert _check_cell_refuses_length(text) == (outside and text.strip() != LIMITATION_PLACEHOLDER), text[:80]
        judged = judge_limitation(text)
        if outside:
            assert judged.points == 0, text[:80]
        if not placeholder and "Replace this sentence" not in text:
            assert ("limitation_length" in [f.code for f in judged.findings]) == outside, text[:80]


def _word_rules(text: str) -> list[str]:
    """Every statement of a limitation's length in ``text``: "20 to 200 words", "at least 5
    words", "fewer than 5 words", "about 20"..."""
    text = flat(text)
    return re.findall(r"(?:about |at least |fewer than |more than |only )?\d+ (?:to \d+ )?words?\b"
                      r"|about \d+ to \d+", text)


@pytest.mark.parametrize("where", ["notebook", "schema", "docs"])
def test_the_length_rule_is_stated_one_way_everywhere(where):
    text = {"notebook": "\n".join(cell.source for cell in cells()),
            "schema": json.dumps(SCHEMA["properties"]["limitation"], ensure_ascii=False),
            "docs": DOCS.read_text(encoding="utf-8")}[where]
    stated = _word_rules(text)
    assert stated and set(stated) <= {RULE, f"fewer than {LIMITATION_MIN_WORDS}",
                                      f"more than {LIMITATION_MAX_WORDS} words"}, stated


def test_a_limitation_the_notebook_discusses_is_welcome_in_own_words():
    for text in (STEP12, flat(DOCS.read_text(encoding="utf-8"))):
        assert "is welcome when you explain it with your own reasoning or an example of your own" in text
        assert "even lightly edited, is what sends it to a person" in text


# ----------------------------------------------------------------- 6. messages name the fix

WRONG_AXIS_PADDING = '''
def combine_masks(causal, key_padding):
    return np.asarray(causal, bool)[None, :, :] & np.asarray(key_padding, bool)[:, :, None]
'''
MAX_OVER_ALL_KEYS = '''
def stable_softmax(scores, mask=None, temperature=1.0):
    scores = np.asarray(scores, dtype=float)
    allowed = np.ones(scores.shape, bool) if mask is None else np.broadcast_to(mask, scores.shape)
    exps = np.where(allowed, np.exp((scores - scores.max(axis=-1, keepdims=True)) / temperature), 0.0)
    sums = exps.sum(axis=-1, keepdims=True)
    if np.any(sums == 0):
        raise ValueError(f"row {int(np.argmax(sums.ravel() == 0))} has no permitted key")
    return exps / sums
'''
CONVERTS_INPUTS = '''
def attention_scores(Q, K, scale=None):
    Q, K = np.asarray(Q, dtype=float), np.asarray(K, dtype=float)
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError("d_k differs")
    return (Q @ np.swapaxes(K, -1, -2)) * (1 / math.sqrt(Q.shape[-1]) if scale is None else scale)
'''
NP_SQRT_SCALE = '''
def attention_scores(Q, K, scale=None):
    Q, K = np.asarray(Q), np.asarray(K)
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError("d_k differs")
    return (Q @ np.swapaxes(K, -1, -2)) * (1 / np.sqrt(Q.shape[-1]) if scale is None else scale)
'''


@pytest.mark.parametrize("check, student_code, fix, not_said", [
    ("check_combine_masks", WRONG_AXIS_PADDING, "key_padding[:, None, :]", None),
    ("check_stable_softmax", MAX_OVER_ALL_KEYS, "row maximum over the permitted entries only", None),
    ("check_attention_scores", CONVERTS_INPUTS, "np.asarray(x, dtype=float)", "np.sqrt"),
    ("check_attention_scores", NP_SQRT_SCALE, "scale with math.sqrt, not np.sqrt", "np.asarray"),
], ids=["combine wrong axis", "softmax own ValueError", "float32 converted", "float32 np.sqrt"])
def test_the_visible_checks_message_names_the_fix(solved, check, student_code, fix, not_said):
    message = visible_check_error(solved, check, student_code)
    assert fix in message, message
    assert not_said is None or not_said not in message, message


TORCH_FROM_READONLY = r'''
import contextlib, io, json, math, sys
import numpy as np
import solutions
namespace = {**vars(solutions.attention), "np": np, "math": math}
exec("""
def torch_sdpa(Q, K, V, mask=None, scale=None):
    import torch
    q, k, v = (torch.from_numpy(np.asarray(x)) for x in (Q, K, V))
    attn_mask = None if mask is None else torch.from_numpy(np.asarray(mask, dtype=bool))
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, scale=scale).numpy()
""", namespace)
printed = io.StringIO()
with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
    exec(sys.stdin.read(), namespace)
print(json.dumps(printed.getvalue()))
'''


def test_step_9_says_a_word_about_pytorchs_not_writable_warning():
    assert "PyTorch prints a warning that the array is not writable" in flat(markdown("## Step 9 ·"))
    done = subprocess.run([sys.executable, "-c", TORCH_FROM_READONLY], input=code("check_torch_sdpa"),
                          capture_output=True, text=True, timeout=120,
                          cwd=SPEC.release_dir.parents[1])
    assert done.returncode == 0, done.stderr[-2000:]
    printed = json.loads(done.stdout.strip().splitlines()[-1])
    assert "visible checks passed" in printed
    assert "note: torch.from_numpy warned that a read-only array is not writable" in printed
    assert "np.array(x)" in printed and "UserWarning" not in printed


# ----------------------------------------------------------------- 7. the intro and the time


def test_the_intro_says_one_line_on_carrying_forward_and_step_12_the_rest():
    line = ("**Errors carry forward.** A function built on your earlier ones is graded on how it "
            "uses them, so a mistake costs points once, in the function where it lives (Step 12 says how).")
    assert flat(line) in INTRO
    for detail in ("Carrying forward moves a charge, it never creates points",
                   "never finishes (an endless loop) or crashes Python"):
        assert detail not in INTRO and detail in STEP12


def stated_seconds(text: str) -> tuple[int, int]:
    """The Run All time a text states, "N to M seconds" (or "N to M s")."""
    found = re.findall(r"Restart & Run All\*? (?:takes )?\(?(\d+) to (\d+) (?:seconds|s)\b", flat(text))
    assert len(found) == 1, found
    return int(found[0][0]), int(found[0][1])


def test_the_run_all_time_is_stated_as_a_measured_range_the_same_everywhere():
    """The range itself is measured against a real Run All in tests/h2_attention/release/test_release_run_all.py."""
    assert stated_seconds(INTRO) == stated_seconds(DOCS.read_text(encoding="utf-8"))
    assert "about 4 s" not in INTRO and "about 4 s" not in DOCS.read_text(encoding="utf-8")
