"""Does the limitation assert the opposite of what the lecture shows about attention?

A small, explicit list of claims (``CLAIMS``), each a regular expression for a
proposition and whether the lecture holds it or its negation: "weights are a
faithful explanation" (the lecture: they are not), "masks are needed" (they
are), and so on. A text contradicts the lecture when it states a proposition
with the other polarity. Polarity is decided within the clause the proposition
is in: an odd number of negators ("not", "no", "never", "n't", "cannot",
"hardly"...) before or inside it flips it, so "attention weights are NOT a
faithful causal explanation" agrees with the lecture. A proposition that is
reported rather than asserted ("it is tempting to read the weights as ...",
"many people think ...", "... is a myth") is not the student's claim and is
skipped. Matches are cheap: a few regular expressions over a few sentences.

Only clear statements are listed: a human reads every match (provisional
points), so a false match costs a careful student a review, never points.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


# Up to ``n`` words between two parts of a claim (commas allowed, no sentence end).
def _gap(n: int) -> str:
    return rf"(?:[\s,]+[\w'-]+){{0,{n}}}?[\s,]+"


_W = _gap(3)
_SUBJECT_WEIGHTS = r"\b(?:attention weights?|weights?|attention scores?|heat ?maps?|attention maps?|attention patterns?)\b"
_COST = (r"\b(?:cost|compute|computation|work|running time|number of (?:scores|pairs|score entries|"
         r"operations|dot products)|score entries|pairs|operations)\b")
_LENGTH = r"\b(?:doubling|twice)\b(?:\s+(?:the|of|a|sequence|input|context))*\s+(?:length|t|n|input|sequence|context|tokens)\b"


@dataclass(frozen=True)
class Claim:
    """A proposition about attention (``pattern``) and what the lecture says about it."""

    stated: str  # what a text that contradicts the lecture here says (for the message)
    lecture: str  # what the lecture shows instead (for the message)
    pattern: re.Pattern[str]
    lecture_holds: bool  # True: the lecture asserts the proposition; False: its negation
    needs: tuple[str, ...]  # lowercase stems one of which every match contains (a fast pre-test)


def _claim(stated: str, lecture: str, pattern: str, needs: str, lecture_holds: bool = False) -> Claim:
    return Claim(stated, lecture, re.compile(pattern, re.IGNORECASE), lecture_holds,
                 tuple(needs.split()))


_NOT_EXPLANATION = ("attention weights alone are not a causal explanation, because the output also "
                    "depends on the values and, in a model, on residual paths and later layers")
_QUADRATIC = "dense attention computes a score for every query-key pair, so doubling the length quadruples them"

CLAIMS: tuple[Claim, ...] = (
    _claim(
        "attention weights are a faithful or causal explanation of the output", _NOT_EXPLANATION,
        _SUBJECT_WEIGHTS + _gap(4) + r"(?:is|are|give|gives|provide|provides|offer|offers|form|forms|"
        r"serve as|act as|constitute|constitutes|make|makes)" + _W
        + r"(?:faithful|causal|true|reliable|complete|accurate|trustworthy)(?:\s+\w+)?\s+"
        r"(?:explanations?|accounts?|attributions?)\b", "explanation account attribution"),
    _claim(
        "attention weights explain why the model produced its output", _NOT_EXPLANATION,
        _SUBJECT_WEIGHTS + _W + r"(?:explain|explains)" + _gap(2)
        + r"(?:why|the (?:model's )?(?:output|prediction|decision|answer)s?)\b", "explain"),
    _claim(
        "attention weights show which input caused the output", _NOT_EXPLANATION,
        _SUBJECT_WEIGHTS + _W + r"(?:show|shows|tell|tells|reveal|reveals|prove|proves|identify|"
        r"identifies|indicate|indicates)" + _W + r"(?:which|what)" + _W
        + r"(?:caused|causes|drove|drives|determined|determines|(?:is|was|are|were) responsible)\b",
        "caus drove drive determin responsible"),
    _claim(
        "a high attention weight means that the token caused the output", _NOT_EXPLANATION,
        r"\b(?:high|large|higher|larger|highest|largest|big|biggest|strong|strongest|top)\s+"
        r"(?:attention\s+)?weights?" + _gap(6) + r"(?:mean|means|meant|show|shows|prove|proves|"
        r"implies|imply|tell|tells|guarantee|guarantees)" + _gap(4)
        + r"(?:caused|causes|(?:is|was) (?:the )?(?:cause|reason)|matters? most|mattered most|"
        r"(?:is|was) the most important|drove)\b", "caus reason matter important drove"),
    _claim(
        "the most attended token is the cause of the output", _NOT_EXPLANATION,
        r"\b(?:the )?most[- ]attended (?:token|word|key|input|position)s?\b" + _gap(2)
        + r"(?:cause[sd]?|(?:is|was|are|were) (?:the )?(?:cause|reason|one that (?:caused|matters|"
        r"mattered)|most important))\b", "attended"),
    _claim(
        "the cost of attention does not grow with the sequence length", _QUADRATIC,
        _COST + r"(?:\s+of\s+(?:dense\s+|self-|full\s+)?attention)?" + _gap(2)
        + r"(?:grow|grows|grew|increase|increases|scale|scales|rise|rises)"
        r"(?:\s+(?:quadratically|fast|rapidly|quickly|steeply)\b|\s+(?:with|as|when)\b)",
        "grow grew increas scale rise", lecture_holds=True),
    _claim(
        "attention has no cost growth", _QUADRATIC,
        r"\b(?:cost|compute|computation)\s+(?:growth|increase)\b", "growth increase",
        lecture_holds=True),
    _claim(
        "the cost of attention grows only linearly", _QUADRATIC,
        _COST + r"(?:\s+of\s+(?:dense\s+|self-|full\s+)?attention)?" + _gap(2)
        + r"(?:grows?|increases?|scales?|is)\s+(?:only\s+)?linear(?:ly)?\b", "linear"),
    _claim(
        "doubling the length only doubles the cost", _QUADRATIC,
        _LENGTH + _gap(2) + r"(?:doubles|double)\s+(?:the\s+)?(?:cost|compute|computation|work|"
        r"memory|time|number of (?:scores|pairs|score entries|operations)|score entries|scores|pairs)\b",
        "doubl twice"),
    _claim(
        "fused kernels such as FlashAttention avoid computing the pairs",
        "fused kernels avoid storing the score matrix, not computing the pairs",
        r"\b(?:fused kernels?|flash ?attention|fused attention)\b" + _W
        + r"(?:avoid|avoids|remove|removes|eliminate|eliminates|skip|skips|get rid of|gets rid of)"
        + _gap(2) + r"(?:the )?(?:quadratic (?:cost|compute|computation|number of pairs)|computing (?:the |all )?"
        r"(?:pairs|scores)|the number of (?:pairs|scores|operations))\b", "fused flash"),
    _claim(
        "masks are not needed", "a mask is what makes blocked keys (the future, padding) get weight exactly 0",
        r"\b(?:masks?|masking|padding masks?|causal masks?)\s+(?:is|are)" + _gap(2)
        + r"(?:needed|necessary|required|essential)\b|\b(?:need|needs|require|requires)\s+"
        r"(?:a |an |any |the )?(?:\w+ )?(?:masks?|masking)\b|\bneed (?:for|of) (?:a |any |the )?"
        r"(?:\w+ )?(?:masks?|masking)\b",
        "need necessar requir essential", lecture_holds=True),
    _claim(
        "masks are unnecessary", "a mask is what makes blocked keys (the future, padding) get weight exactly 0",
        r"\b(?:masks?|masking|padding masks?|causal masks?)\s+(?:is|are)" + _gap(2)
        + r"(?:unnecessary|optional|pointless|useless|redundant)\b",
        "unnecessary optional pointless useless redundant"),
    _claim(
        "padding does not affect the output", "unmasked padding changes the output, because filler keys get weight",
        r"\b(?:padding|padded (?:tokens|keys|positions)|filler(?: tokens| keys)?)\s+(?:does|do)\s+"
        r"(?:not|n't)\s+(?:matter|affect|change|influence)\b(?![^.!?]*\bmask)",
        "padd filler", lecture_holds=True),
    _claim(
        "a zero score gives zero weight", "a score of 0 still gets a positive weight, because exp(0) = 1",
        r"\b(?:a\s+)?(?:zero|0)\s+scores?\b" + _gap(2) + r"(?:means?|gives?|leads? to|results? in|"
        r"is|get|gets)" + _gap(2) + r"(?:zero|0)\s+weights?\b|\bscores? of (?:zero|0)\b" + _gap(2)
        + r"(?:means?|gives?|leads? to|results? in|get|gets)" + _gap(2) + r"(?:zero|0)\s+weights?\b",
        "zero 0"),
    _claim(
        "attention always retrieves the right item",
        "a key is retrieved only if its score stands out, otherwise its weight is diluted",
        r"\b(?:attention|it|the query|the model|softmax)\b" + _gap(2)
        + r"(?:always|reliably|guarantees?|is guaranteed to|will always)" + _gap(2)
        + r"(?:retrieves?|finds?|picks?|selects?|gets?|attends? to)" + _gap(2)
        + r"(?:right|correct|relevant|needed|true)\b"
        r"|\bguarantee[sd]?(?:\s+that)?" + _gap(3) + r"(?:retriev\w*|find\w*|pick\w*|select\w*)"
        + _gap(2) + r"(?:right|correct|relevant)\b"
        r"|\b(?:gives?|provides?|offers?|ensures?|has|have|means?)\s+guaranteed\s+(?:retrieval|lookup)\b",
        "always reliabl guarantee"),
    _claim(
        "attention has an unlimited context",
        "the context is bounded by the memory the pairs need and by the lengths seen in training",
        r"\b(?:has|have|gives?|allows?|provides?|offers?|supports?|handles?|with)\s+(?:an?\s+)?"
        r"(?:unlimited|infinite|unbounded)\s+(?:context|memory|sequence|input|length)s?\b"
        r"|\bcontext(?: window| length| size)?\s+(?:is|are)\s+(?:unlimited|infinite|unbounded)\b",
        "unlimited infinite unbounded"),
)

_NEGATORS = frozenset("""
not no never cannot neither nor none nothing nobody hardly rarely seldom barely isn't aren't
wasn't weren't doesn't don't didn't can't couldn't won't wouldn't shouldn't mustn't hasn't haven't
hadn't
""".split())
# "not only X but also Y", "not just X": X is asserted, not denied.
_NOT_ONLY = re.compile(r"\bnot (?:only|just|merely)\b(?=.*\b(?:but|also)\b)", re.IGNORECASE)
_NEGATOR_WORD = re.compile(r"[\w']+")
# Words that end a clause for the polarity rule (punctuation ends one too).
_CLAUSE_BREAK = re.compile(r"[;:()\[\]]|,(?=\s)|\b(?:but|while|whereas|although|though|however|yet|"
                           r"because|since|so|and|or)\b", re.IGNORECASE)
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|\n+")
# Before the proposition, in its sentence: it is reported, supposed or asked, not asserted.
_REPORTED_BEFORE = re.compile(
    r"\b(?:tempting|tempted|seems?|seemed|appears?|appeared|looks? like|believes?|believed|think|"
    r"thinks|thought|assumes?|assumed|assumption|misconceptions?|myths?|misread\w*|mislead\w*|"
    r"wrong(?:ly)?|mistaken(?:ly)?|mistakes?|naive(?:ly)?|read as|interpreted as|treated as|taken "
    r"as|presented as|claims?|claimed|say|says|said|suppose|supposed|as if|if|whether|would|might|"
    r"could|idea|notion|belief|impression|illusion|expect|expected|hope|hoped|pretend\w*|"
    r"false(?:ly)?|incorrect(?:ly)?|untrue)\b",
    re.IGNORECASE)
# After the proposition, in its sentence: it is refuted there ("..., but they are not").
_REFUTED_AFTER = re.compile(
    r"\b(?:but|yet|however)\b[^.!?]*\b(?:not|n't|no|never|wrong|false|myth)\b|\b(?:is|are|was|were) "
    r"(?:a )?(?:wrong|false|a myth|a misconception|not true|untrue|incorrect|misleading)\b|\?$",
    re.IGNORECASE)


@dataclass(frozen=True)
class Contradiction:
    """One statement of the text that the lecture contradicts."""

    claim: Claim
    excerpt: str  # the student's own words that state it


def _negations(text: str) -> int:
    return sum(word.lower() in _NEGATORS or word.lower().endswith("n't")
               for word in _NEGATOR_WORD.findall(text))


def _asserts(sentence: str, match: re.Match[str]) -> bool | None:
    """The polarity the sentence gives the matched proposition (None = reported, not asserted)."""
    before = sentence[:match.start()]
    if _REPORTED_BEFORE.search(before) or _REFUTED_AFTER.search(sentence[match.end():].strip()):
        return None
    clause_start = max((m.end() for m in _CLAUSE_BREAK.finditer(before)), default=0)
    negations = _negations(sentence[clause_start:match.end()]) - sum(
        clause_start <= m.start() < match.end() for m in _NOT_ONLY.finditer(sentence))
    return negations % 2 == 0


def contradictions(text: str) -> list[Contradiction]:
    """The statements of ``text`` that assert the opposite of a lecture claim, in text order."""
    text = text.replace("\u2019", "'")
    lowered = text.lower()
    candidates = [claim for claim in CLAIMS if any(stem in lowered for stem in claim.needs)]
    found: list[Contradiction] = []
    for sentence in _SENTENCE_BREAK.split(text) if candidates else ():
        for claim in candidates:
            for match in claim.pattern.finditer(sentence):
                polarity = _asserts(sentence, match)
                if polarity is not None and polarity != claim.lecture_holds:
                    found.append(Contradiction(claim, " ".join(match.group(0).split())))
                    break
    return found
