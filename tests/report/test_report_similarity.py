"""Similarity finds a planted near-copy and leaves independent correct students alone.

The six solutions of ``tests/h2_attention/correct/`` were written independently from the same notebook
text, in six styles: they share the obvious code (the same validations, the same torch
call) and must not be flagged against each other, neither as a pair alone (no
boilerplate filter can help with two students) nor in a cohort. A near-copy (locals
renamed, comments rewritten) of one of them must be flagged. No grading here: the
notebooks are only read.
"""

from __future__ import annotations

import itertools
import os
import random
import subprocess
import sys

import nbformat
import pytest

from autograder.bundles.h2_attention.samples import GOOD_LIMITATION, solved_notebook
from autograder.report import similarity
from autograder.spec import REPO
from tests.h2_attention.test_correct_students import SOLUTIONS
from tests.report.builders import near_copy_cells, style_cells, write_submission
from tests.support.h2 import SPEC

STARTER = similarity.Starter.from_notebook(SPEC.release_notebook)
ORIGINAL, COPY = "style-where-masking", "copier"
# Measured (K=20, WINDOW=8): the correct solutions' most alike pair covers 48 % of the
# shorter one's own code (einsum_everywhere vs numpy_oneliners); the near-copy 96 %.
MARGIN = 0.1  # the threshold stays this far above every pair of independent solutions


def student(name: str) -> str:
    return "style-" + name.replace("_", "-")


@pytest.fixture(scope="module")
def codes(tmp_path_factory) -> dict[str, similarity.OwnCode]:
    root = tmp_path_factory.mktemp("similarity")
    for name in SOLUTIONS:
        cells, limitation = style_cells(name)
        write_submission(root, student(name), cells, limitation, None, evidence=False)
    write_submission(root, COPY, near_copy_cells("where_masking"), GOOD_LIMITATION, None,
                     evidence=False)
    found = {}
    for folder in sorted((root / "submitted").iterdir()):
        code = similarity.own_code(folder.name, folder / SPEC.name / SPEC.notebook, STARTER)
        assert code is not None and len(code.tokens) > 500, folder.name
        found[folder.name] = code
    return found


def pair_of(codes: dict[str, similarity.OwnCode], a: str, b: str) -> similarity.Pair:
    """Two submissions compared alone: no fingerprint is boilerplate among two."""
    left, right = codes[a], codes[b]
    return similarity.compare(left, right, similarity.fingerprints(left),
                              similarity.fingerprints(right))


def test_independent_correct_solutions_are_never_flagged_as_pairs(codes):
    scores = {}
    for a, b in itertools.combinations([student(name) for name in SOLUTIONS], 2):
        pair = pair_of(codes, a, b)
        scores[(a, b)] = pair.score
        assert not pair.flagged, (a, b, pair)
    highest = max(scores.values())
    print(f"\ncorrect solutions, pairs alone: highest {highest:.3f} "
          f"({max(scores, key=scores.get)}), threshold {similarity.THRESHOLD}")
    assert highest <= similarity.THRESHOLD - MARGIN


def test_a_near_copy_is_flagged(codes):
    pair = pair_of(codes, COPY, ORIGINAL)
    print(f"\nplanted near-copy alone: coverage {pair.left_coverage:.3f} / "
          f"{pair.right_coverage:.3f}, {pair.shared_tokens} tokens")
    assert pair.flagged and pair.score >= 0.9
    # Each passage shown pairs a function with the same function of the other notebook.
    assert pair.blocks
    for block in pair.blocks:
        assert codes[COPY].labels[block.left[0]] == codes[ORIGINAL].labels[block.right[0]]


def test_in_a_cohort_only_the_near_copy_is_flagged(codes):
    pairs, flagged = similarity.similar_pairs(list(codes.values()))
    assert [(p.left, p.right) for p in flagged] == [(COPY, ORIGINAL)]
    others = [p.score for p in pairs if {p.left, p.right} != {COPY, ORIGINAL}]
    print(f"\nin a cohort of {len(codes)}: near-copy {flagged[0].score:.3f}, "
          f"highest other pair {max(others):.3f}")


def test_tokens_ignore_names_literals_comments_and_layout():
    one = "def f(x):\n    total = x.sum(axis=-1)  # rows\n    return total / 2.0\n"
    two = ("def f(x):\n    # a comment of my own\n    s = x.sum(axis=-3)\n\n"
           "    return s / 7\n")
    texts = [t.text for t in similarity.normalise(one)]
    assert texts == [t.text for t in similarity.normalise(two)]
    assert "sum" in texts and "total" not in texts  # a library's name stays, a local goes
    assert [t.text for t in similarity.normalise("y = x.mean()\n")] != \
        [t.text for t in similarity.normalise("y = x.sum()\n")]


def test_a_cell_that_does_not_tokenize_keeps_what_came_before():
    tokens = similarity.normalise("a = b + c\nif (:\n")
    assert [t.text for t in tokens][:5] == ["V", "=", "V", "+", "V"]


def test_the_starter_code_is_subtracted(tmp_path):
    untouched = similarity.own_code("x", SPEC.release_notebook, STARTER)
    assert untouched is not None and untouched.tokens == []
    path = tmp_path / SPEC.notebook
    nbformat.write(solved_notebook("someone"), path)
    solved = similarity.own_code("someone", path, STARTER)
    assert solved is not None and solved.tokens
    for token in solved.tokens:  # no signature, docstring or stub line survives
        line = solved.cells[token.cell][token.line - 1].strip()
        assert line not in STARTER.lines, line


def test_an_unreadable_notebook_is_not_compared(tmp_path):
    path = tmp_path / SPEC.notebook
    path.write_text('{"cells": [', encoding="utf-8")
    assert similarity.own_code("x", path, STARTER) is None
    assert similarity.own_code("x", tmp_path / "absent.ipynb", STARTER) is None


def test_a_symlinked_notebook_is_never_followed(tmp_path):
    """It could point at any file of the grading machine; the report shows code."""
    real = tmp_path / "real.ipynb"
    nbformat.write(solved_notebook("someone"), real)
    assert similarity.own_code("x", real, STARTER) is not None
    link = tmp_path / "student" / SPEC.name / SPEC.notebook
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    assert similarity.own_code("x", link, STARTER) is None
    folder_link = tmp_path / "other" / SPEC.name
    folder_link.parent.mkdir()
    folder_link.symlink_to(tmp_path, target_is_directory=True)
    assert similarity.own_code("x", folder_link / "real.ipynb", STARTER) is None


@pytest.mark.parametrize("seed", range(20))
def test_winnowing_sees_every_shared_run_of_k_plus_window_minus_one_tokens(seed):
    rng = random.Random(seed)
    words = [f"t{i}" for i in range(30)]
    run = [rng.choice(words) for _ in range(similarity.K + similarity.WINDOW - 1)]
    a = [rng.choice(words) for _ in range(rng.randrange(0, 80))] + run + \
        [rng.choice(words) for _ in range(rng.randrange(0, 80))]
    b = [rng.choice(words) for _ in range(rng.randrange(0, 80))] + run
    shared = similarity.winnow(similarity.kgram_hashes(a)).keys() & \
        similarity.winnow(similarity.kgram_hashes(b)).keys()
    assert shared


def test_fingerprints_do_not_depend_on_the_process():
    texts = ["V", "=", "np", ".", "exp", "(", "V", ")"] * 5
    code = ("from autograder.report.similarity import kgram_hashes; "
            f"print(kgram_hashes({texts!r}))")
    runs = {
        subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                       env={**os.environ, "PYTHONHASHSEED": seed}, check=True).stdout
        for seed in ("1", "2")
    }
    assert len(runs) == 1 and runs == {str(similarity.kgram_hashes(texts)) + "\n"}


def test_a_common_fingerprint_is_boilerplate_only_beyond_a_trio():
    assert similarity.common_limit(2) == 3 and similarity.common_limit(7) == 3
    assert similarity.common_limit(40) == 20

