"""Layer 3: the limitation text: mechanical checks, topic recognition, and human review."""

from __future__ import annotations

import time

import pytest

from autograder.authoring.sample_cohort import GOOD_LIMITATION as SAMPLE_COHORT_LIMITATION
from autograder.evidence import (
    EVIDENCE_POINTS,
    LIMITATION_POINTS,
    LIMITATION_REVIEW_POINTS,
    limitation,
    verify_evidence,
)
from autograder.evidence.limitation import (
    MAX_WORDS,
    MIN_WORDS,
    PROSE_CODES,
    classify,
    judge_limitation,
    prose_finding,
    prose_signals,
)
from solutions.evidence import LIMITATION_PLACEHOLDER

from .helpers import COHORT, GOOD_LIMITATION, STUDENT, dump
from .limitation_corpus import HOSTILE, SOUND, STUFFED_EXAMPLE

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


def test_too_short_but_on_topic_is_provisional():
    text = "Attention weights are not causal explanations of what the model outputs."
    assert len(text.split()) < MIN_WORDS
    result = judge_limitation(text)
    assert result.points == LIMITATION_REVIEW_POINTS and result.needs_review
    assert [f.code for f in result.findings] == ["limitation_length"]


def test_too_long_is_provisional():
    text = " ".join(TOPIC_TEXTS.values())
    assert len(text.split()) > MAX_WORDS
    result = judge_limitation(text)
    assert result.points == LIMITATION_REVIEW_POINTS and result.needs_review
    assert "limitation_length" in [f.code for f in result.findings]


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
    # Below MIN_WORDS a person reads the text anyway; the statistics would be noise.
    result = judge_limitation("Quadratic. Purple elephants dance loudly tonight.")
    assert [f.code for f in result.findings] == ["limitation_length"]
    assert result.points == LIMITATION_REVIEW_POINTS and result.needs_review


def test_prose_check_is_deterministic_and_cheap():
    text = " ".join(" ".join(SOUND.values()).split()[:MAX_WORDS])
    assert prose_signals(text) == prose_signals(text)
    start = time.perf_counter()
    for _ in range(100):
        prose_signals(text)
    assert (time.perf_counter() - start) / 100 < 0.005  # measured ~0.4 ms
