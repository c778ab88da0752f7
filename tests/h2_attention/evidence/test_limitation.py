"""Layer 3: the limitation text: mechanical checks, topic recognition, and human review."""

from __future__ import annotations

import json

import pytest

from autograder.bundles.h2_attention.evidence import (
    EVIDENCE_POINTS,
    LIMITATION_POINTS,
    LIMITATION_REVIEW_POINTS,
    lecture_claims,
    limitation,
    notebook_echo,
    verify_evidence,
)
from autograder.bundles.h2_attention.evidence.limitation import (
    MAX_FILLER_SHARE,
    MAX_WORDS,
    MIN_CONCRETE_WITH_FILLER,
    MIN_CONCRETE_WORDS,
    MIN_WORDS,
    OWN_WORDS_CODES,
    PROSE_CODES,
    classify,
    concrete_ideas,
    filler_share,
    judge_limitation,
    prose_finding,
    prose_signals,
)
from autograder.bundles.h2_attention.samples import GOOD_LIMITATION as SAMPLE_COHORT_LIMITATION
from solutions.evidence import LIMITATION_PLACEHOLDER
from tests.h2_attention.test_correct_students import SOLUTIONS, split_solution
from tests.support.h2 import SPEC

from .helpers import COHORT, GOOD_LIMITATION, STUDENT, dump
from .limitation_corpus import (
    AGREEING,
    CONTRADICTING,
    COPIED,
    EDITED_COPIES,
    HOSTILE,
    SOUND,
    STUFFED_EXAMPLE,
    VACUOUS,
    VACUOUS_EXAMPLE,
)

TOPIC_TEXTS = {
    "causal": (
        "High attention weights are often read as the reason for a prediction, but they are not "
        "a causal explanation: removing the most attended token can leave the output unchanged, "
        "so the weights are not a faithful account."
    ),
    "other components": (
        "A large attention weight does not settle what the layer outputs, because the residual "
        "connection adds the input back and the feed-forward block and later layers transform "
        "the result further."
    ),
    "context window": (
        "A transformer can only attend to tokens inside its fixed context window, so anything "
        "said earlier than the maximum context length is simply invisible to the model, however "
        "relevant it was."
    ),
    "quadratic": (
        "Dense attention compares every query with every key, so the number of score entries "
        "grows quadratically with the sequence length: doubling the length quadruples the memory "
        "and compute needed."
    ),
    "masking": (
        "Results depend on masking choices: if the padding mask is broadcast along the wrong "
        "axis, padded filler tokens receive weight, and a causal mask with the wrong convention "
        "lets tokens see the future."
    ),
    "retrieval": (
        "Attention is a soft lookup, so there is no guarantee it retrieves the right item: when "
        "several keys are similar to the query the weight is diluted across them and the context "
        "mixes unrelated values."
    ),
    "position": (
        "Without positional encodings attention is permutation invariant: shuffling the tokens "
        "just shuffles the outputs, so the mechanism itself cannot tell word order apart and "
        "needs position information added."
    ),
}
OFF_TOPIC = (
    "I really enjoyed this assignment and the lecture was very clear; the notebook ran quickly "
    "on my laptop and I liked the plots of the heatmaps a lot."
)
WEAK = (
    "Attention can be hard to use well in practice, because the numbers it gives depend strongly "
    "on which values the model has learned during training and on the data it saw."
)


@pytest.mark.parametrize("name", list(TOPIC_TEXTS))
def test_recognised_topic_gets_full_points_without_review(name):
    text = TOPIC_TEXTS[name]
    assert MIN_WORDS <= len(text.split()) <= MAX_WORDS
    result = judge_limitation(text)
    assert (result.points, result.needs_review, result.findings) == (LIMITATION_POINTS, False, [])
    assert result.topic is not None


def test_topics_are_told_apart():
    topics = {name: classify(text)[0] for name, text in TOPIC_TEXTS.items()}
    assert len(set(topics.values())) == len(TOPIC_TEXTS), topics


def test_weak_match_gets_points_but_needs_review():
    assert classify(WEAK)[1] == 1  # precondition: exactly one weak cue
    result = judge_limitation(WEAK)
    assert result.points == LIMITATION_POINTS and result.needs_review
    assert [(f.code, f.severity) for f in result.findings] == [("limitation_review", "review")]


def test_no_recognised_topic_is_neither_zero_nor_full():
    assert classify(OFF_TOPIC) == (None, 0)
    result = judge_limitation(OFF_TOPIC)
    assert result.points == LIMITATION_REVIEW_POINTS and 0 < result.points < LIMITATION_POINTS
    assert result.needs_review
    assert [(f.code, f.severity, f.pointer) for f in result.findings] == [
        ("limitation_topic", "review", "/limitation")]
    assert "human" in result.findings[0].message


@pytest.mark.parametrize("text", [
    LIMITATION_PLACEHOLDER,
    "  " + LIMITATION_PLACEHOLDER.upper() + "  ",
    "Replace this sentence with one limitation of attention in my own words!",
    "replace this sentence with a limitation of attention, in your own words",
    "Replace this sentence.",
])
def test_placeholder_fails_with_a_helpful_message(text):
    result = judge_limitation(text)
    assert result.points == 0 and not result.needs_review
    [finding] = result.findings
    assert finding.code == "limitation_placeholder" and finding.severity == "error"
    assert "placeholder" in finding.message and "own words" in finding.message


def test_text_below_the_placeholder_is_judged():
    result = judge_limitation(LIMITATION_PLACEHOLDER + "\n" + GOOD_LIMITATION)
    assert result.points == LIMITATION_POINTS and not result.needs_review
    assert [(f.code, f.severity) for f in result.findings] == [("limitation_placeholder", "warning")]


@pytest.mark.parametrize("value, code", [("", "limitation_empty"), ("   \n ", "limitation_empty"),
                                         (None, "limitation_missing"), (42, "limitation_missing"),
                                         ("It is slow.", "limitation_length")])
def test_mechanical_failures_score_zero_with_a_reason(value, code):
    result = judge_limitation(value)
    assert result.points == 0
    assert [f.code for f in result.findings] == [code]
    assert len(result.findings[0].message) > 40


def test_too_short_even_on_topic_scores_zero_and_says_the_rule():
    """One length rule (issue 42): outside MIN_WORDS to MAX_WORDS words a limitation scores 0,
    as the notebook's check cell and the schema say, however sound it reads."""
    text = "Attention weights are not causal explanations of what the model outputs."
    assert len(text.split()) < MIN_WORDS
    result = judge_limitation(text)
    assert (result.points, result.needs_review) == (0, False)
    [finding] = result.findings
    assert finding.code == "limitation_length" and f"{MIN_WORDS} to {MAX_WORDS} words" in finding.message


def test_too_long_scores_zero_and_says_the_rule():
    text = " ".join(TOPIC_TEXTS.values())
    assert len(text.split()) > MAX_WORDS
    result = judge_limitation(text)
    assert (result.points, result.needs_review) == (0, False)
    assert [f.code for f in result.findings] == ["limitation_length"]


def test_repetition_is_provisional():
    result = judge_limitation("attention is quadratic " * 15)
    assert "limitation_repetitive" in [f.code for f in result.findings]
    assert result.points == LIMITATION_REVIEW_POINTS and result.needs_review


def test_placeholder_file_fails_only_the_limitation(evidence):
    """The schema refuses the placeholder (as the student's own check does); the judge, which
    would only say it again, is skipped."""
    evidence["limitation"] = LIMITATION_PLACEHOLDER
    report = verify_evidence(dump(evidence), student_id=STUDENT, cohort=COHORT)
    assert report.status == "invalid"
    assert report.points == {"evidence": EVIDENCE_POINTS, "limitation": 0}
    assert [(f.code, f.pointer, f.part) for f in report.findings] == [
        ("schema", "/limitation", "limitation")]
    assert "placeholder" in report.findings[0].message
    assert report.layers["schema"] == "failed" and report.layers["limitation"] == "skipped"
    assert report.layers["consistency"] == "passed"


def test_off_topic_file_is_ok_but_flagged_for_review(evidence):
    evidence["limitation"] = OFF_TOPIC
    report = verify_evidence(dump(evidence), student_id=STUDENT, cohort=COHORT)
    assert report.status == "ok" and report.needs_review
    assert report.points["limitation"] == LIMITATION_REVIEW_POINTS
    assert report.layers["limitation"] == "review"


def test_limitation_is_judged_in_a_schema_invalid_file(evidence):
    evidence["hand_example"]["weights"] = "0.4, 0.2, 0.4"
    evidence["limitation"] = LIMITATION_PLACEHOLDER
    report = verify_evidence(dump(evidence))
    assert report.points == {"evidence": 0, "limitation": 0}
    assert {f.pointer for f in report.findings if f.code == "schema"} >= {
        "/hand_example/weights", "/limitation"}
    evidence["limitation"] = TOPIC_TEXTS["quadratic"]
    assert verify_evidence(dump(evidence)).points == {"evidence": 0, "limitation": LIMITATION_POINTS}


# --- Is it real sentences about attention? (calibrated on limitation_corpus.py) ------------

SOUND_TEXTS = {
    **SOUND,
    **{f"topic text: {name}": text for name, text in TOPIC_TEXTS.items()},
    "weak match": WEAK,
    "helpers GOOD_LIMITATION": GOOD_LIMITATION,
    "sample cohort GOOD_LIMITATION": SAMPLE_COHORT_LIMITATION,
}
# ProseSignals.score is the weakest signal over its threshold (>= 1 passes). Measured on the
# corpus: lowest sound 1.35 ("party analogy", topicality 0.47 vs 0.35), highest hostile 0.81
# ("random english about memory", topicality 0.28). These bounds keep that gap from shrinking
# unnoticed when the word lists or thresholds change.
SOUND_MIN_SCORE = 1.3
HOSTILE_MAX_SCORE = 0.85
CONTENT_CODES = {*PROSE_CODES, "limitation_topic", "limitation_repetitive"}


def test_the_corpus_is_large_varied_and_holds_the_reported_example():
    assert len(SOUND) >= 20 and len(HOSTILE) >= 12
    assert HOSTILE["stuffed example"] == STUFFED_EXAMPLE == (
        "Quadratic. Purple elephants dance on the rooftop while seven trombones whisper about "
        "marmalade, and nobody asks the weather for permission to sing loudly.")
    assert all(MIN_WORDS <= len(text.split()) <= MAX_WORDS for text in SOUND.values())
    assert all(len(text.split()) >= MIN_WORDS for text in HOSTILE.values())
    # several sound limitations are on topics the keyword classifier does not know
    assert sum(classify(text)[0] is None for text in SOUND.values()) >= 3


@pytest.mark.parametrize("name", list(SOUND_TEXTS))
def test_sound_limitation_reads_as_prose_about_attention(name):
    text = SOUND_TEXTS[name]
    signals = prose_signals(text)
    assert signals.failed == [], signals.margins
    assert signals.score >= SOUND_MIN_SCORE, signals.margins
    assert prose_finding(text) is None


@pytest.mark.parametrize("name", list(SOUND_TEXTS))
def test_sound_limitation_keeps_its_verdict(name, monkeypatch):
    text = SOUND_TEXTS[name]
    result = judge_limitation(text)
    assert not {f.code for f in result.findings} & set(PROSE_CODES)
    monkeypatch.setattr(limitation, "prose_finding", lambda text: None)
    assert judge_limitation(text) == result  # the same as without the prose check


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_text_is_flagged_for_a_person_never_zeroed(name):
    text = HOSTILE[name]
    signals = prose_signals(text)
    assert signals.failed and signals.score <= HOSTILE_MAX_SCORE, signals.margins
    result = judge_limitation(text)
    assert result.needs_review
    assert 0 < result.points == LIMITATION_REVIEW_POINTS < LIMITATION_POINTS
    assert {f.code for f in result.findings} & CONTENT_CODES


def test_the_reported_keyword_stuffing_is_flagged():
    assert classify(STUFFED_EXAMPLE)[0] == "quadratic number of pairs"  # the keyword matches
    result = judge_limitation(STUFFED_EXAMPLE)
    assert (result.points, result.needs_review) == (LIMITATION_REVIEW_POINTS, True)
    [finding] = result.findings
    assert (finding.code, finding.severity, finding.pointer) == (
        "limitation_off_topic", "review", "/limitation")
    assert "not about attention" in finding.message


def test_stuffed_file_is_ok_but_flagged_for_review(evidence):
    evidence["limitation"] = STUFFED_EXAMPLE
    report = verify_evidence(dump(evidence), student_id=STUDENT, cohort=COHORT)
    assert report.status == "ok" and report.needs_review
    assert report.points == {"evidence": EVIDENCE_POINTS, "limitation": LIMITATION_REVIEW_POINTS}
    assert report.codes() == ["limitation_off_topic"]
    assert report.layers["limitation"] == "review"


@pytest.mark.parametrize("name, signal, code", [
    ("stuffed example", "topicality", "limitation_off_topic"),
    ("stuffed keywords sprinkled", "topicality", "limitation_off_topic"),
    ("random english about memory", "topicality", "limitation_off_topic"),
    ("keyword list", "function words", "limitation_not_prose"),
    ("keywords glued with and", "function variety", "limitation_not_prose"),
    ("shuffled sound text", "word order", "limitation_not_prose"),
    ("sentence repeated with small changes", "repeated sentences", "limitation_not_prose"),
])
def test_each_signal_says_what_it_noticed_in_one_sentence(name, signal, code):
    text = HOSTILE[name]
    assert signal in prose_signals(text).failed
    finding = prose_finding(text)
    assert finding is not None
    assert (finding.code, finding.severity, finding.part) == (code, "review", "limitation")
    message = finding.message
    assert "a person will read it" in message and "points are provisional" in message
    assert ". " not in message and not message.endswith(".")  # one sentence, house style


def test_one_typo_is_not_a_word_salad():
    text = SOUND["typos and its"]
    assert "the the" in text and prose_signals(text).odd_order_pairs == 1
    assert prose_finding(text) is None


def test_prose_check_needs_enough_words():
    # Below MIN_WORDS the text scores 0 for its length; the statistics would be noise.
    result = judge_limitation("Quadratic. Purple elephants dance loudly tonight.")
    assert [f.code for f in result.findings] == ["limitation_length"]
    assert (result.points, result.needs_review) == (0, False)


def test_prose_check_is_deterministic():
    text = " ".join(" ".join(SOUND.values()).split()[:MAX_WORDS])
    assert prose_signals(text) == prose_signals(text)


# --- The student's own words about attention (issue 25): copied, contradicting, vacuous ------

CORRECT_STUDENTS = {f"tests/h2_attention/correct/{name}": split_solution(name)[1] for name in SOLUTIONS}
# What careful students write: none of it may be flagged by the three checks below.
CAREFUL = {**SOUND_TEXTS, **CORRECT_STUDENTS, **AGREEING}
COPIES = {**COPIED, **EDITED_COPIES}
# Measured (notebook_echo.echo(...).copied_share): careful texts cover at most 0.28 of their
# words with 4-word runs of the notebook ("topic text: quadratic"), copies at least 0.44
# ("Step 11 retrieval, edited"); MAX_COPIED_SHARE = 0.4 sits in that gap. These bounds
# keep the gap from shrinking unnoticed when the notebook's text or the measure changes.
CAREFUL_MAX_ECHO = 0.3
COPY_MIN_ECHO = 0.44
# Careful texts name at least 5 distinct specific words and are at most 8% filler.
CAREFUL_MIN_CONCRETE = 5
CAREFUL_MAX_FILLER = 0.1


def _release_prose() -> str:
    """Every prose sentence of the packaged release notebook, as one normalised word stream."""
    sentences = notebook_echo.notebook_sentences(
        json.loads(SPEC.grader_release_notebook.read_text(encoding="utf-8")))
    return " " + " ".join(" ".join(notebook_echo.words_of(s)) for s in sentences) + " "


def test_copied_cases_are_the_notebooks_own_words():
    """The corpus's verbatim cases are really in the release notebook (closing cell, Steps
    10 and 11), sentence by sentence, so the tests below test copying from the real notebook."""
    prose = _release_prose()
    for name, text in COPIED.items():
        for sentence in text.replace(". ", ".\n").splitlines():
            assert f" {' '.join(notebook_echo.words_of(sentence))} " in prose, (name, sentence)
    assert notebook_echo.echo(COPIED["closing cell caution"]).sentence in (
        notebook_echo.release_index().sentences)


def test_notebook_sentences_come_once_from_the_packaged_release():
    index = notebook_echo.release_index()
    assert notebook_echo.release_index() is index  # built once per process
    assert index == notebook_echo.build_index(notebook_echo.notebook_sentences(
        json.loads(SPEC.grader_release_notebook.read_text(encoding="utf-8"))))
    # markdown, a code comment and a docstring of the release are all there
    sentences = set(index.sentences)
    assert "Attention is query-dependent weighted retrieval." in sentences
    assert "hand-designed for illustration, not measured; each row sums to 1" in sentences
    assert any("Fused kernels" in s and "avoid storing this matrix" in s for s in sentences)


@pytest.mark.parametrize("name", list(COPIES))
def test_copied_text_goes_to_a_person_with_provisional_points(name):
    text = COPIES[name]
    assert len(text.split()) >= MIN_WORDS
    assert notebook_echo.echo(text).copied_share >= COPY_MIN_ECHO
    result = judge_limitation(text)
    assert (result.points, result.needs_review) == (LIMITATION_REVIEW_POINTS, True)
    [finding] = [f for f in result.findings if f.code == "limitation_copied"]
    assert (finding.severity, finding.pointer, finding.part) == ("review", "/limitation", "limitation")
    assert finding.message.startswith("your limitation repeats the notebook's sentence '")
    assert "write it in your own words" in finding.message
    quoted = finding.message.removeprefix("your limitation repeats the notebook's sentence '")
    quoted = quoted.split("' (")[0].removesuffix("...")
    assert any(s.startswith(quoted) for s in notebook_echo.release_index().sentences), quoted


@pytest.mark.parametrize("name", list(CAREFUL))
def test_careful_text_is_neither_copied_nor_contradicting_nor_vacuous(name):
    text = CAREFUL[name]
    assert notebook_echo.echo(text).copied_share <= CAREFUL_MAX_ECHO
    assert lecture_claims.contradictions(text) == []
    assert len(concrete_ideas(text)) >= CAREFUL_MIN_CONCRETE, concrete_ideas(text)
    assert filler_share(text) <= CAREFUL_MAX_FILLER
    assert not {f.code for f in judge_limitation(text).findings} & set(OWN_WORDS_CODES)


def test_thresholds_sit_inside_the_measured_gaps():
    assert CAREFUL_MAX_ECHO < notebook_echo.MAX_COPIED_SHARE < COPY_MIN_ECHO
    assert MIN_CONCRETE_WORDS <= CAREFUL_MIN_CONCRETE and MIN_CONCRETE_WITH_FILLER <= CAREFUL_MIN_CONCRETE
    assert CAREFUL_MAX_FILLER < MAX_FILLER_SHARE


@pytest.mark.parametrize("name", list(CORRECT_STUDENTS))
def test_correct_students_keep_full_limitation_marks(name):
    assert judge_limitation(CORRECT_STUDENTS[name]) == judge_limitation(CORRECT_STUDENTS[name])
    result = judge_limitation(CORRECT_STUDENTS[name])
    assert (result.points, result.needs_review, result.findings) == (LIMITATION_POINTS, False, [])


@pytest.mark.parametrize("name", list(CONTRADICTING))
def test_contradicting_the_lecture_goes_to_a_person(name):
    text = CONTRADICTING[name]
    assert classify(text)[1] >= 2 and prose_finding(text) is None  # it would pass otherwise
    result = judge_limitation(text)
    assert (result.points, result.needs_review) == (LIMITATION_REVIEW_POINTS, True)
    assert [(f.code, f.severity) for f in result.findings] == [("limitation_contradicts", "review")]
    message = result.findings[0].message
    assert message.startswith("your limitation states that ") and "the lecture shows that" in message
    assert "a person will read it and the points are provisional" in message


@pytest.mark.parametrize("name", list(AGREEING))
def test_the_same_claims_negated_or_reported_get_full_points(name):
    result = judge_limitation(AGREEING[name])
    assert (result.points, result.needs_review, result.findings) == (LIMITATION_POINTS, False, [])


@pytest.mark.parametrize("sentence, contradicts", [
    ("Attention weights are a faithful causal explanation of the output.", True),
    ("Attention weights are NOT a faithful causal explanation of the output.", False),
    ("Attention weights are not always a faithful explanation.", False),
    ("The weights never give a faithful explanation.", False),
    ("Many people think that attention weights are a faithful causal explanation.", False),
    ("The idea that attention weights are a causal explanation is a myth.", False),
    ("It is tempting to read the weights as a faithful explanation, but they are not.", False),
    ("Heatmaps of attention weights show exactly which input token caused the output.", True),
    ("Heatmaps do not show which token caused the output.", False),
    ("A high attention weight on a token means that the token caused the output.", True),
    ("A high weight on a token does not mean that token caused the output.", False),
    ("The attention weights explain why the model made its prediction.", True),
    ("The weights do not explain why the model made its prediction.", False),
    ("The cost of attention does not grow with the sequence length.", True),
    ("The cost of attention grows quadratically with the sequence length.", False),
    ("Not only does the cost grow with the length, but memory also runs out.", False),
    ("Attention has no cost growth, so long inputs are fine.", True),
    ("Doubling the sequence length only doubles the number of scores.", True),
    ("Doubling the length quadruples the number of scores.", False),
    ("The number of scores grows only linearly with the sequence length.", True),
    ("The key-value cache grows linearly with the length of the output.", False),
    ("FlashAttention avoids computing the pairs, so it removes the quadratic cost.", True),
    ("Fused kernels avoid storing the matrix, not computing the pairs.", False),
    ("Masks are not needed, because softmax already ignores padding.", True),
    ("We do not need a causal mask in a language model.", True),
    ("A language model needs a causal mask.", False),
    ("Masking is unnecessary in self-attention.", True),
    ("Padding does not matter for the output.", True),
    ("Padding does not matter once it is masked.", False),
    ("A zero score gives zero weight after the softmax.", True),
    ("A zero score does not give zero weight.", False),
    ("Attention always retrieves the right key.", True),
    ("There is no guarantee that attention retrieves the right item.", False),
    ("Attention has an unlimited context, since every query reaches every key.", True),
    ("Attention does not have an unlimited context.", False),
])
def test_contradiction_patterns_and_their_negation(sentence, contradicts):
    assert bool(lecture_claims.contradictions(sentence)) is contradicts


def test_no_sentence_of_the_notebook_contradicts_the_lecture():
    """The notebook is the lecture: a pattern that matches its own sentences is wrong."""
    sentences = notebook_echo.release_index().sentences
    assert len(sentences) > 200
    assert [s for s in sentences if lecture_claims.contradictions(s)] == []


@pytest.mark.parametrize("name", list(VACUOUS))
def test_vacuous_text_goes_to_a_person_never_full_never_zero(name):
    result = judge_limitation(VACUOUS[name])
    codes = [f.code for f in result.findings]
    if VACUOUS[name] == VACUOUS_EXAMPLE:  # too short: 0 by the one length rule (issue 42)
        assert (result.points, result.needs_review, codes) == (0, False, ["limitation_length"])
    else:
        assert (result.points, result.needs_review) == (LIMITATION_REVIEW_POINTS, True)
        assert classify(VACUOUS[name])[0] is not None and prose_finding(VACUOUS[name]) is None
        assert codes[-1] == "limitation_vacuous"
        assert "makes no concrete claim about attention" in result.findings[-1].message


@pytest.mark.parametrize("name, code", [
    ("closing cell caution", "limitation_copied"),
    ("weights are a faithful causal explanation", "limitation_contradicts"),
    ("filler about explanation", "limitation_vacuous"),
])
def test_each_own_words_finding_is_one_sentence(name, code):
    text = {**COPIED, **CONTRADICTING, **VACUOUS}[name]
    [finding] = [f for f in judge_limitation(text).findings if f.code == code]
    message = finding.message
    assert finding.severity == "review" and finding.part == "limitation"
    assert "a person will read it and the points are provisional" in message
    assert ". " not in message and not message.endswith(".") and "\n" not in message


def test_copied_file_is_ok_but_flagged_for_review(evidence):
    evidence["limitation"] = COPIED["closing cell caution"]
    report = verify_evidence(dump(evidence), student_id=STUDENT, cohort=COHORT)
    assert report.status == "ok" and report.needs_review
    assert report.points == {"evidence": EVIDENCE_POINTS, "limitation": LIMITATION_REVIEW_POINTS}
    assert report.codes() == ["limitation_copied"]
    assert report.layers["limitation"] == "review"


def test_unreadable_release_notebook_fails_closed(monkeypatch, tmp_path):
    """A grader without its copy of the notebook cannot tell a copy: a person reads every
    limitation (provisional points), with the reason for the TA, and no traceback."""
    class Broken:
        grader_release_notebook = tmp_path / "absent.ipynb"

    monkeypatch.setattr(notebook_echo, "H2", Broken())
    with pytest.raises(notebook_echo.NotebookUnavailable) as error:
        notebook_echo.release_index()
    assert "absent.ipynb" in str(error.value) and "\n" not in str(error.value)
    result = judge_limitation(GOOD_LIMITATION)
    assert (result.points, result.needs_review) == (LIMITATION_REVIEW_POINTS, True)
    [finding] = result.findings
    assert (finding.code, finding.severity) == ("limitation_not_compared", "review")
    assert "absent.ipynb" in finding.ta_note and "absent.ipynb" not in finding.message
