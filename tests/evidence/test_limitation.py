"""Layer 3: the limitation text: mechanical checks, topic recognition, and human review."""

from __future__ import annotations

import pytest

from autograder.evidence import (
    EVIDENCE_POINTS,
    LIMITATION_POINTS,
    LIMITATION_REVIEW_POINTS,
    verify_evidence,
)
from autograder.evidence.limitation import MAX_WORDS, MIN_WORDS, classify, judge_limitation
from solutions.evidence import LIMITATION_PLACEHOLDER

from .helpers import COHORT, GOOD_LIMITATION, STUDENT, dump

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
    evidence["limitation"] = LIMITATION_PLACEHOLDER
    report = verify_evidence(dump(evidence), student_id=STUDENT, cohort=COHORT)
    assert report.status == "invalid"
    assert report.points == {"evidence": EVIDENCE_POINTS, "limitation": 0}
    assert report.codes() == ["limitation_placeholder"]
    assert report.layers["limitation"] == "failed" and report.layers["consistency"] == "passed"


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
    assert {"schema", "limitation_placeholder"} <= set(report.codes())
    evidence["limitation"] = TOPIC_TEXTS["quadratic"]
    assert verify_evidence(dump(evidence)).points == {"evidence": 0, "limitation": LIMITATION_POINTS}
