"""Evidence provenance through the real sandbox: whole notebooks graded by ``grade_submission``.

The file must be what the submitted functions compute. A correct notebook keeps
14/14 with no review; stubs with a file from the reference or from torch keep nothing
(no function computes anything: not even the identity section) and are flagged; a buggy
notebook keeps what the verifier gives its honest file, and loses what its code does not
reproduce otherwise.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

import solutions
from autograder.authoring.sync import grade_id
from autograder.bundles.h2_attention import samples as sample_cohort
from autograder.bundles.h2_attention.samples import GOOD_LIMITATION, solved_notebook
from autograder.grading.submission import load_submission
from solutions.evidence import LIMITATION_PLACEHOLDER, build_evidence
from tests.support.evidence_files import TORCH_API, honest_evidence, notebook_code
from tests.support.h2 import H2, SPEC
from tests.support.said import said

pytestmark = pytest.mark.slow

STUDENT = "s-provenance"
SECTION_TITLES = ("the hand example", "the masked case", "the parity check", "the intervention")
TORCH_MASK = "torch.from_numpy(np.array(mask, dtype=bool))"


@pytest.fixture(scope="module")
def session():
    from autograder.grading.grade_one import GradingSession

    session = GradingSession.start(H2)
    yield session
    session.close()


def stubs_notebook(student: str) -> nbformat.NotebookNode:
    """The release notebook with the student id and limitation set, every stub left in."""
    notebook = nbformat.read(SPEC.release_notebook, as_version=4)
    solved = {grade_id(c): c.source for c in solved_notebook(student).cells if grade_id(c)}
    for cell in notebook.cells:
        if grade_id(cell) == SPEC.part("limitation").cell:
            cell.source = solved[grade_id(cell)]
        elif cell.cell_type == "code" and cell.source.startswith("STUDENT_ID"):
            cell.source = f'STUDENT_ID = "{student}"'
    return notebook


def bug(name: str) -> nbformat.NotebookNode:
    notebook = solved_notebook(STUDENT)
    variant = next(v for v in sample_cohort.VARIANTS if v.name == name)
    variant.apply(notebook, Path("."), STUDENT)
    return notebook


def torch_mask_inverted() -> nbformat.NotebookNode:
    notebook = solved_notebook(STUDENT)
    sample_cohort.set_cell(notebook, "torch_sdpa", lambda s: s.replace(TORCH_MASK, "~" + TORCH_MASK))
    assert "~" + TORCH_MASK in notebook_code(notebook)
    return notebook


def grade(session, folder: Path, notebook: nbformat.NotebookNode | None, evidence: dict):
    from autograder.grading.grade_one import grade_submission

    folder.mkdir(parents=True)
    if notebook is not None:
        (folder / SPEC.notebook).write_text(nbformat.writes(notebook), encoding="utf-8")
    (folder / SPEC.evidence_file).write_text(json.dumps(evidence, indent=2), encoding="utf-8")
    return grade_submission(load_submission(folder, STUDENT, assignment=H2), session)


def part(result, name: str):
    return next(p for p in result.parts if p.part == name)


def provenance_messages(result) -> list[str]:
    return [m for m in said(part(result, "evidence").messages) if "do not reproduce" in m
            or "no notebook of yours could be run" in m]


REFERENCE = build_evidence(vars(solutions), STUDENT, GOOD_LIMITATION)


def test_a_correct_submission_keeps_14_of_14_without_review(session, tmp_path):
    result = grade(session, tmp_path / "ok", solved_notebook(STUDENT), REFERENCE)
    evidence = part(result, "evidence")
    assert (evidence.points, evidence.needs_review, said(evidence.messages)) == (14, False, ())
    assert result.score == SPEC.total_points and not result.needs_review


@pytest.mark.parametrize("made_by", ["reference", "torch"])
def test_stubs_with_a_borrowed_file_keep_no_section(session, tmp_path, made_by):
    """Not even the identity check (issue 50, item 18): no function computes anything."""
    evidence = REFERENCE if made_by == "reference" else honest_evidence(
        TORCH_API, STUDENT, GOOD_LIMITATION)
    result = grade(session, tmp_path / made_by, stubs_notebook(STUDENT), evidence)
    assert all(part(result, name).points == 0 for name in SPEC.function_parts)
    assert part(result, "evidence").points == 0
    assert "nothing_computed" in [m.code for m in part(result, "evidence").messages]
    assert part(result, "evidence").needs_review and result.needs_review
    messages = provenance_messages(result)
    for title in SECTION_TITLES:
        assert any(f"do not reproduce {title}:" in m for m in messages), (title, messages)
    assert part(result, "limitation").points == 8 and not part(result, "limitation").needs_review


def test_wrong_scale_honest_file_is_carried_forward(session, tmp_path):
    """An honest file from code with a scale bug keeps every section (the bug is charged
    once, in attention_scores); the same code with the reference's file keeps identity only."""
    notebook = bug("unscaled_scores")
    honest = honest_evidence(notebook_code(notebook), STUDENT, GOOD_LIMITATION)
    result = grade(session, tmp_path / "honest", notebook, honest)
    assert provenance_messages(result) == []
    assert part(result, "evidence").points == 14 and not part(result, "evidence").needs_review
    assert any("carried forward" in m for m in said(part(result, "evidence").messages))
    borrowed = grade(session, tmp_path / "borrowed", notebook, REFERENCE)
    assert part(borrowed, "evidence").points == 2 and part(borrowed, "evidence").needs_review
    assert len(provenance_messages(borrowed)) == 4


def test_a_torch_bug_costs_parity_only_when_the_file_is_borrowed(session, tmp_path):
    notebook = torch_mask_inverted()
    honest = honest_evidence(notebook_code(notebook), STUDENT, GOOD_LIMITATION)
    result = grade(session, tmp_path / "honest", notebook, honest)
    assert part(result, "evidence").points == 14 and not part(result, "evidence").needs_review
    assert provenance_messages(result) == []
    borrowed = grade(session, tmp_path / "borrowed", notebook, REFERENCE)
    assert part(borrowed, "evidence").points == 12 and part(borrowed, "evidence").needs_review
    (message,) = provenance_messages(borrowed)
    assert message.startswith("/parity/") and "the parity check" in message
    assert {p.part: p.points for p in borrowed.parts if p.part != "evidence"} == {
        p.part: p.points for p in result.parts if p.part != "evidence"}


def test_no_notebook_reproduces_nothing(session, tmp_path):
    result = grade(session, tmp_path / "none", None, REFERENCE)
    assert result.status == "ungradable"
    assert part(result, "evidence").points == 2 and part(result, "evidence").needs_review
    assert len(provenance_messages(result)) == 4


def test_a_lookup_table_for_the_evidence_inputs_goes_to_review(session, tmp_path):
    """value_intervention returns stored numbers for this student's evidence inputs only:
    it reproduces the file but scores 0 on its checks, so a TA looks (points stand)."""
    stored = {name: REFERENCE["intervention"][name]
              for name in ("weights_before", "weights_after", "context_before", "context_after")}
    lookup = (
        "def value_intervention(Q, K, V, index, new_value, mask=None):\n"
        f"    if np.array_equal(Q, {REFERENCE['masked_case']['queries']!r}):\n"
        f"        return {{k: np.array(v) for k, v in {stored!r}.items()}}\n"
        "    raise NotImplementedError()\n"
    )
    notebook = solved_notebook(STUDENT)
    sample_cohort.set_cell(notebook, "value_intervention", lambda _: lookup)
    result = grade(session, tmp_path / "lookup", notebook, REFERENCE)
    assert part(result, "value_intervention").points == 0
    evidence = part(result, "evidence")
    assert evidence.points == 14 and evidence.needs_review and result.needs_review
    assert any("`value_intervention` scored 0 on the hidden checks" in m for m in said(evidence.messages))


def test_a_wrong_axis_softmax_is_charged_once_though_its_file_holds_nan(session, tmp_path):
    """Issue 26: the wrong-axis softmax gives NaN on the masked case (a key no query may
    attend to: a column 0/0). The evidence cell records it as "NaN", the softmax's own part
    loses its points, and the evidence part none; a NaN the functions do not give costs its
    section and goes to a TA."""
    notebook = bug("softmax_wrong_axis")
    honest = honest_evidence(notebook_code(notebook), STUDENT, GOOD_LIMITATION)
    assert honest["parity"][0]["max_abs_diff"] == "NaN" and "error" not in honest["masked_case"]
    result = grade(session, tmp_path / "honest", notebook, honest)
    softmax = part(result, "stable_softmax")
    assert softmax.points < softmax.max_points
    evidence = part(result, "evidence")
    assert (evidence.points, evidence.needs_review) == (14, False)
    assert any(m.startswith("/masked_case/") and "carried forward: your function returned NaN "
               "here (`scaled_dot_product_attention`" in m for m in said(evidence.messages))
    assert not any("JSON" in m for m in said(evidence.messages))
    assert result.score == SPEC.total_points - (softmax.max_points - softmax.points)
    forged = json.loads(json.dumps(honest))
    forged["hand_example"]["weights"][0][1] = "NaN"  # these functions give 1 there
    result = grade(session, tmp_path / "forged", notebook, forged)
    evidence = part(result, "evidence")
    assert evidence.points == 14 - SPEC.evidence_sections["hand_example"] and evidence.needs_review


def test_a_softmax_that_raises_is_charged_once_though_its_file_records_errors(session, tmp_path):
    """Issue 26: a softmax without keepdims raises on the masked case (4 x 5 scores, 4 row
    sums); the evidence cell records the three sections that need it as errors. The sandbox
    raises the same error, the softmax's part pays for it, the evidence part loses nothing;
    an error these functions do not raise costs its section and goes to a TA."""
    notebook = solved_notebook(STUDENT)
    old = "exps / exps.sum(axis=-1, keepdims=True)"
    sample_cohort.set_cell(notebook, "stable_softmax",
                           lambda s: s.replace(old, "exps / exps.sum(axis=-1)"))
    assert old not in notebook_code(notebook)
    honest = honest_evidence(notebook_code(notebook), STUDENT, GOOD_LIMITATION)
    raising = {"masked_case", "parity", "intervention"}
    assert {s for s in raising if "error" in honest[s]} == raising
    result = grade(session, tmp_path / "honest", notebook, honest)
    softmax = part(result, "stable_softmax")
    assert softmax.points < softmax.max_points
    evidence = part(result, "evidence")
    assert (evidence.points, evidence.needs_review) == (14, False), said(evidence.messages)
    assert any(m.startswith("/masked_case: carried forward: your `stable_softmax` raised "
                            "ValueError here") for m in said(evidence.messages))
    forged = json.loads(json.dumps(honest))
    forged["hand_example"] = {"error": "ValueError: operands could not be broadcast together"}
    result = grade(session, tmp_path / "forged", notebook, forged)
    evidence = part(result, "evidence")
    assert evidence.points == 14 - SPEC.evidence_sections["hand_example"] and evidence.needs_review


# ------------------------------------------------ issue 50, item 18: points without work


def with_stubs(functions: tuple[str, ...], raising: str = "NotImplementedError()"
               ) -> nbformat.NotebookNode:
    """A solved notebook whose ``functions`` are the release's own stub cells, the stub
    raising ``raising`` (a student who edits the stubs' exception)."""
    notebook = solved_notebook(STUDENT)
    release = {grade_id(c): c.source for c in nbformat.read(SPEC.release_notebook, as_version=4).cells
               if grade_id(c)}
    for name in functions:
        cell = SPEC.part(name).cell
        assert "raise NotImplementedError()" in release[cell]
        sample_cohort.set_cell(notebook, cell, lambda _, cell=cell: release[cell].replace(
            "raise NotImplementedError()", f"raise {raising}"))
    return notebook


def graded(session, folder: Path, notebook: nbformat.NotebookNode, limitation: str = GOOD_LIMITATION):
    """The notebook graded with the file its own Run All saves."""
    return grade(session, folder, notebook, honest_evidence(notebook_code(notebook), STUDENT, limitation))


SOFTMAX = ("stable_softmax",)
GAMING = {  # less work than the honest student, the stubs made to raise another error
    "same_stub_other_error": with_stubs(SOFTMAX, 'ValueError("not done")'),
    "four_stubs_other_error": with_stubs(
        (*SOFTMAX, "causal_mask", "padding_mask", "combine_masks"), 'ValueError("not done")'),
}


@pytest.mark.parametrize("gaming", sorted(GAMING))
def test_an_honest_stub_never_ends_below_a_gaming_one(session, tmp_path, gaming):
    """Twelve of thirteen functions, ``stable_softmax`` a stub: every section records its
    NotImplementedError. A student who did no more and made the sections raise another
    error must not end above (the rule is what the student did, not which exception)."""
    honest = graded(session, tmp_path / "honest", with_stubs(SOFTMAX))
    other = graded(session, tmp_path / gaming, GAMING[gaming])
    data = json.loads((tmp_path / "honest" / SPEC.evidence_file).read_text(encoding="utf-8"))
    assert all(data[name]["error"].startswith("NotImplementedError")
               for name in SPEC.evidence_sections if name != "identity")
    assert part(honest, "evidence").points >= part(other, "evidence").points
    assert honest.score >= other.score
    # The honest student did work: the identity check stands.
    assert part(honest, "evidence").points == SPEC.evidence_sections["identity"]
    assert "nothing_computed" not in [m.code for m in part(honest, "evidence").messages]


@pytest.mark.parametrize("raising", ["NotImplementedError()", 'ValueError("not done")'])
def test_an_untouched_release_earns_nothing_whatever_its_stubs_raise(session, tmp_path, raising):
    """The release with only the student id typed (and its stubs' exception, if edited):
    Run All's file passes the identity check, yet it is no work of the student's."""
    notebook = nbformat.read(SPEC.release_notebook, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code" and cell.source.startswith("STUDENT_ID"):
            cell.source = f'STUDENT_ID = "{STUDENT}"'
        elif grade_id(cell) in {SPEC.part(name).cell for name in SPEC.function_parts}:
            cell.source = cell.source.replace("raise NotImplementedError()", f"raise {raising}")
    error = NotImplementedError() if raising.startswith("NotImplementedError") else ValueError("not done")

    def stub(*args, **kwargs):
        raise error

    # What the release's Run All saves (its cells that call a stub are allowed to raise).
    evidence = build_evidence(dict.fromkeys(SPEC.function_parts, stub), STUDENT, LIMITATION_PLACEHOLDER)
    result = grade(session, tmp_path / "fresh", notebook, evidence)
    assert result.score == 0
    evidence = part(result, "evidence")
    assert evidence.points == 0 and not evidence.needs_review
    assert "nothing_computed" in [m.code for m in evidence.messages]
