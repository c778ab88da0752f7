"""The schema states what a limitation must be, and the student-side check and the grader's
verifier both refuse the same limitations with a sentence a student understands.

What the schema refuses is what the grader scores 0 without reading it: an empty or blank
text, the notebook's placeholder sentence, fewer than ``MIN_WORDS`` or more than ``MAX_WORDS``
words (issue 42: one length rule). It must never refuse a limitation the grader would give
points (even provisional ones).
"""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from autograder.bundles.h2_attention.evidence import (
    EVIDENCE_POINTS,
    SCHEMA_PATH,
    load_schema,
    verify_evidence,
)
from autograder.bundles.h2_attention.evidence.limitation import (
    MAX_WORDS,
    MIN_WORDS,
    judge_limitation,
)
from solutions.evidence import LIMITATION_PLACEHOLDER
from solutions.evidence_check import validate_evidence_file

from .helpers import COHORT, GOOD_LIMITATION, STUDENT, dump
from .limitation_corpus import HOSTILE, SOUND

# name -> (limitation, words one of the messages must contain)
REFUSED = {
    "empty": ("", "empty"),
    "blank": ("  \n\t  ", "white space"),
    "placeholder": (LIMITATION_PLACEHOLDER, "placeholder"),
    "placeholder with spaces": ("  " + LIMITATION_PLACEHOLDER + "\n", "placeholder"),
    "too short": ("Attention is slow.", f"{MIN_WORDS} to {MAX_WORDS} words"),
    "one word short": (" ".join(["attention"] * (MIN_WORDS - 1)) + ".",
                       f"{MIN_WORDS} to {MAX_WORDS} words"),
    "one word too many": (" ".join(["attention"] * (MAX_WORDS + 1)) + ".",
                          f"{MIN_WORDS} to {MAX_WORDS} words"),
    "only punctuation": ("?!... --- ;;", f"{MIN_WORDS} to {MAX_WORDS} words"),
}
# Phrases of jsonschema's own messages, which quote the regular expression or the subschema.
RAW_JSONSCHEMA = ("does not match", "should not be valid under", "is too short", "^", "(?")


def _schema_errors(text: str) -> list:
    """The schema's errors for this limitation (the rest of the file left out)."""
    errors = Draft202012Validator(load_schema()).iter_errors({"limitation": text})
    return [e for e in errors if list(e.absolute_path) == ["limitation"]]


@pytest.mark.parametrize("name", list(REFUSED))
def test_the_schema_refuses_the_limitation(name):
    text, _ = REFUSED[name]
    assert _schema_errors(text), f"the schema accepts the {name} limitation {text!r}"


@pytest.mark.parametrize("name", list(REFUSED))
def test_student_side_check_refuses_it_with_a_message(name, evidence, write, capsys):
    text, words = REFUSED[name]
    evidence["limitation"] = text
    problems = validate_evidence_file(write("e.json", evidence), SCHEMA_PATH)
    assert [p.split(":", 1)[0] for p in problems] == ["/limitation"], problems
    [problem] = problems
    assert words in problem and "own words" in problem
    assert not any(raw in problem for raw in RAW_JSONSCHEMA), problem
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("name", list(REFUSED))
def test_verifier_refuses_it_with_the_same_message(name, evidence, write):
    text, words = REFUSED[name]
    evidence["limitation"] = text
    report = verify_evidence(dump(evidence), student_id=STUDENT, cohort=COHORT)
    assert report.status == "invalid"
    assert report.points == {"evidence": EVIDENCE_POINTS, "limitation": 0}
    limitation = [f for f in report.findings if f.part == "limitation"]
    assert [(f.layer, f.pointer, f.severity) for f in limitation] == [
        ("schema", "/limitation", "error")], limitation  # said once, not again by the judge
    [finding] = limitation
    assert words in finding.message and "own words" in finding.message
    assert not any(raw in finding.message for raw in RAW_JSONSCHEMA), finding.message
    student = validate_evidence_file(write("e.json", evidence), SCHEMA_PATH)
    assert student == [f"/limitation: {finding.message.rsplit('; found ', 1)[0]}"]
    assert report.layers["schema"] == "failed" and report.layers["consistency"] == "passed"


@pytest.mark.parametrize("text", [GOOD_LIMITATION, " ".join(["attention"] * MIN_WORDS),
                                  " ".join(["attention"] * MAX_WORDS)])
def test_a_limitation_with_enough_words_passes_both(text, evidence, write):
    evidence["limitation"] = text
    assert validate_evidence_file(write("e.json", evidence), SCHEMA_PATH) == []
    report = verify_evidence(dump(evidence), student_id=STUDENT, cohort=COHORT)
    assert not [f for f in report.findings if f.layer == "schema"]


def test_a_sound_limitation_passes_both_and_earns_the_points(evidence, write):
    evidence["limitation"] = GOOD_LIMITATION
    assert validate_evidence_file(write("e.json", evidence), SCHEMA_PATH) == []
    report = verify_evidence(dump(evidence), student_id=STUDENT, cohort=COHORT)
    assert report.status == "ok" and report.findings == []
    assert report.layers["limitation"] == "passed"


# Texts near the rule: contractions, hyphens, digits glued to letters, non-Latin letters.
EDGE_TEXTS = [
    "GPT4 uses 8k tokens.",  # the grader counts GPT, 4, uses, 8, k, tokens: 6 words
    "a1b2c",  # 5 words for the grader
    "Don't won't can't.",
    "self-attention is quadratic-cost",
    "Внимание не объясняет, почему модель так ответила.",
    "注意力 权重 不是 因果 解释",
    "Attention weights are not causal explanations of what the model outputs.",
    LIMITATION_PLACEHOLDER + "\n" + GOOD_LIMITATION,  # judged below the placeholder
    LIMITATION_PLACEHOLDER + " Attention is slow.",
    "Replace this sentence.",
    "x" * 3999,
    "1 2 3 4 5",
]


@pytest.mark.parametrize("text", EDGE_TEXTS + list(SOUND.values()) + list(HOSTILE.values())
                         + [t for t, _ in REFUSED.values()])
def test_the_schema_never_refuses_what_the_grader_gives_points(text):
    """Compatible with the grader: whatever the schema refuses, the grader scores 0."""
    if _schema_errors(text):
        assert judge_limitation(text).points == 0, text


def test_the_bounds_are_the_graders():
    """Exactly MIN_WORDS and MAX_WORDS words pass, one fewer or one more is refused (and
    scores 0 with the grader)."""
    for enough in (MIN_WORDS, MAX_WORDS):
        assert not _schema_errors(" ".join(["word"] * enough))
    for wrong in (MIN_WORDS - 1, MAX_WORDS + 1):
        text = " ".join(["word"] * wrong)
        assert _schema_errors(text) and judge_limitation(text).points == 0


def test_the_rules_are_stated_in_the_schema():
    """The description says what a limitation must be and how the minimum is counted."""
    limitation = load_schema()["properties"]["limitation"]
    stated = limitation["description"]
    assert "placeholder" in stated and "white space" in stated
    assert f"{MIN_WORDS} to {MAX_WORDS} words" in stated and "a run of letters" in stated
    assert all(rule.get("description") for rule in limitation["allOf"])


@pytest.mark.timeout(60)  # a hang guard: catastrophic backtracking would take hours
def test_checking_a_long_text_ends_with_its_finding():
    for text in ("a" * 4000, "!" * 3990 + " a b c d", "a " * 2000, "a1" * 2000):
        assert _schema_errors(text), text[:20]  # too long, or not words: each one refused
