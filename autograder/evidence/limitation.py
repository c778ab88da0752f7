"""Layer 3: judge the student's limitation of attention, and say when a human must look.

Mechanical checks (present, not the template's placeholder, a sensible length,
not a word repeated) are decided here. Whether the text is *right* is not: a
keyword classifier only recognises the topic. A recognised topic earns the
points (with review when the match is weak); text with no recognised topic gets
provisional points and is always sent to a human: never a silent zero, never
silent full marks.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from autograder.evidence.report import (
    LIMITATION_POINTS,
    LIMITATION_REVIEW_POINTS,
    Finding,
)
from solutions.evidence import LIMITATION_PLACEHOLDER

MIN_WORDS = 20
MAX_WORDS = 200
TOO_FEW_WORDS = 5  # below this there is nothing to review
PLACEHOLDER_SIMILARITY = 0.75  # SequenceMatcher ratio at which text counts as the template
MIN_DISTINCT_RATIO = 0.3  # distinct words / words: lower means one phrase repeated
POINTER = "/limitation"

# topic -> (regex, weight). Weight 2 is a cue that alone identifies the topic; weight 1 is a
# weak cue: one alone leaves the classifier unsure (points, but a human should look).
TOPICS: dict[str, tuple[tuple[str, int], ...]] = {
    "weights are not causal explanations": (
        (r"\bcaus\w*", 2), (r"\bexplain\w*|\bexplanation\w*", 2), (r"\binterpret\w*", 1),
        (r"\bfaithful\w*", 2), (r"\battribut\w*", 1), (r"\bimportan\w*", 1), (r"\bwhy\b", 1),
    ),
    "values, residual paths and later layers also shape the output": (
        (r"\bresidual\w*", 2), (r"\blater layers?\b|\bother layers?\b|\bnext layers?\b", 2),
        (r"\bmlp\b|\bfeed[- ]?forward\b", 2), (r"\bvalues?\b", 1), (r"\bother heads?\b", 1),
        (r"\blayer ?norm\w*", 1), (r"\bskip connection\w*", 2),
    ),
    "fixed context window": (
        (r"\bcontext (window|length|size|limit)\w*", 2), (r"\bfixed[- ](length|size|window)\b", 2),
        (r"\bmaximum (sequence|context|input) length\b", 2), (r"\btruncat\w*", 1),
        (r"\btokens? (beyond|outside|past)\b", 2), (r"\bwindow\b", 1),
    ),
    "quadratic number of pairs": (
        (r"\bquadratic\w*", 2), (r"\bn\s*(\^|\*\*)\s*2\b|\bn²|\bt\s*(\^|\*\*)\s*2\b|\bt²", 2),
        (r"\bsquare[sd]?\b", 1), (r"\bevery pair\b|\ball pairs\b|\bpairwise\b|\bpairs\b", 1),
        (r"\bmemory\b", 1), (r"\bcompute\b|\bcomputation\w*|\bcost\w*", 1),
        (r"\bsequence length\b|\blong (sequences?|inputs?|documents?)\b", 1),
    ),
    "masking and padding choices": (
        (r"\bmask\w*", 1), (r"\bpad\b|\bpadding\b|\bpadded\b", 2), (r"\bconvention\w*", 1),
        (r"\bcausal mask\w*", 2), (r"\bfully masked\b|\bmasked rows?\b", 2),
    ),
    "no guarantee of correct retrieval": (
        (r"\bretriev\w*", 2), (r"\bno guarantee\w*|\bnot guaranteed\b", 2),
        (r"\bwrong (key|token|item|value|word)s?\b", 2), (r"\bsimilar\w*", 1),
        (r"\bdilut\w*", 2), (r"\bspread\w*", 1), (r"\blook[- ]?up\w*", 1),
        (r"\bdistract\w*", 1), (r"\bsoft\b", 1),
    ),
    "no notion of order without positions": (
        (r"\bpositional (encoding|embedding|information)\w*", 2),
        (r"\bpermutation\w*", 2), (r"\bword order\b|\border of (the )?(tokens|words)\b", 2),
        (r"\bposition\w*", 1), (r"\border\b", 1),
    ),
}
_COMPILED = {topic: [(re.compile(p, re.IGNORECASE), w) for p, w in cues] for topic, cues in TOPICS.items()}
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*|\d+", re.UNICODE)


@dataclass
class LimitationResult:
    """Points for the limitation part, whether a human must look, and why."""

    points: float
    needs_review: bool
    findings: list[Finding] = field(default_factory=list)
    topic: str | None = None


def _finding(code: str, message: str, severity: str = "error") -> Finding:
    return Finding(code=code, part="limitation", layer="limitation", pointer=POINTER,
                   message=message, severity=severity)


def _normalise(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def classify(text: str) -> tuple[str | None, int]:
    """The best-matching limitation topic and its cue score (0 = none recognised)."""
    best, best_score = None, 0
    for topic, cues in _COMPILED.items():
        score = sum(weight for pattern, weight in cues if pattern.search(text))
        if score > best_score:
            best, best_score = topic, score
    return best, best_score


def is_placeholder(text: str) -> bool:
    """The template sentence, or a near copy of it (a few words changed)."""
    mine, template = _normalise(text), _normalise(LIMITATION_PLACEHOLDER)
    if not mine:
        return False
    if mine == template or "replace this sentence" in mine:
        return True
    return difflib.SequenceMatcher(None, mine, template).ratio() >= PLACEHOLDER_SIMILARITY


def judge_limitation(value: object) -> LimitationResult:
    """Points, review flag and findings for the ``limitation`` value of an evidence file."""
    if not isinstance(value, str):
        return LimitationResult(0, False, [_finding("limitation_missing", (
            "the limitation is missing or not text: write one limitation of attention, in your "
            "own words, in the notebook's limitation cell and re-run the evidence cell"
        ))])
    text = value.strip()
    if not text:
        return LimitationResult(0, False, [_finding("limitation_empty", (
            "the limitation is empty: write one limitation of attention (20 to 200 words), for "
            "example why attention weights are not an explanation of the output"
        ))])
    findings: list[Finding] = []
    if LIMITATION_PLACEHOLDER in text and len(_WORD.findall(text.replace(LIMITATION_PLACEHOLDER, ""))) >= MIN_WORDS:
        # The student wrote below the template sentence: judge what they wrote.
        text = text.replace(LIMITATION_PLACEHOLDER, " ").strip()
        findings.append(_finding("limitation_placeholder", (
            "the template's placeholder sentence is still there next to your text; delete it "
            "(only your own text was judged)"
        ), severity="warning"))
    if is_placeholder(text):
        return LimitationResult(0, False, [_finding("limitation_placeholder", (
            "the limitation is still the template's placeholder sentence (\""
            f"{LIMITATION_PLACEHOLDER}\"): replace it with one limitation of attention in your "
            "own words (20 to 200 words), e.g. what attention weights can and cannot tell you"
        ))])
    words = _WORD.findall(text)
    if len(words) < TOO_FEW_WORDS:
        return LimitationResult(0, False, [*findings, _finding("limitation_length", (
            f"the limitation has only {len(words)} word{'s' if len(words) != 1 else ''}; explain one limitation of attention in "
            f"{MIN_WORDS} to {MAX_WORDS} words: what goes wrong, and why"
        ))])
    points: float = LIMITATION_POINTS
    review = False
    if not MIN_WORDS <= len(words) <= MAX_WORDS:
        short = len(words) < MIN_WORDS
        findings.append(_finding("limitation_length", (
            f"the limitation has {len(words)} words; aim for {MIN_WORDS} to {MAX_WORDS}: "
            + ("say what the limitation is and why it matters" if short
               else "keep to one limitation and its reason")
            + ". A human will read it; points are provisional"
        )))
        points, review = LIMITATION_REVIEW_POINTS, True
    distinct = len({w.lower() for w in words}) / len(words)
    if len(words) >= MIN_WORDS and distinct < MIN_DISTINCT_RATIO:
        findings.append(_finding("limitation_repetitive", (
            f"the limitation repeats the same words (only {distinct:.0%} of its words are "
            "distinct); write it as normal sentences. A human will read it"
        )))
        points, review = min(points, LIMITATION_REVIEW_POINTS), True
    topic, score = classify(text)
    if topic is None:
        findings.append(_finding("limitation_topic", (
            "no known limitation of attention was recognised in this text (e.g. weights are not "
            "causal explanations; values, residual paths and later layers also shape the output; "
            "a fixed context window; the quadratic number of query-key pairs; masking and "
            "padding choices; no guarantee of retrieving the right item). It may still be a "
            "good answer: a human will read it, and the points are provisional"
        ), severity="review"))
        points, review = min(points, LIMITATION_REVIEW_POINTS), True
    elif score < 2:
        findings.append(_finding("limitation_review", (
            f"the limitation seems to be about {topic!r}, but the match is weak, so a human "
            "will read it"
        ), severity="review"))
        review = True
    return LimitationResult(points, review, findings, topic)
