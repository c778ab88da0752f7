"""Layer 3: judge the student's limitation of attention, and say when a human must look.

Mechanical checks (present, not the template's placeholder, a sensible length,
not a word repeated) are decided here. Whether the text is *right* is not: a
keyword classifier only recognises the topic. A recognised topic earns the
points (with review when the match is weak); text with no recognised topic gets
provisional points and is always sent to a human: never a silent zero, never
silent full marks. A recognised topic in text that is not mostly real sentences
about attention (a keyword stuffed into unrelated text, a keyword list, a word
salad, one sentence repeated) is sent to a human with provisional points too:
see ``prose_signals``. So is text that is not the student's own words about
attention (``own_words_findings``): text that largely repeats the notebook's own
sentences (``notebook_echo``), that states the opposite of what the lecture shows
about attention weights, cost or masks (``lecture_claims``), or that makes no
concrete claim at all (``vacuous_finding``).
"""

from __future__ import annotations

import difflib
import functools
import math
import re
from dataclasses import dataclass, field

from solutions.evidence import (
    LIMITATION_MAX_WORDS,
    LIMITATION_MIN_WORDS,
    LIMITATION_PLACEHOLDER,
    WORD_PATTERN,
)

from . import lecture_claims, notebook_echo
from .report import (
    LIMITATION_POINTS,
    LIMITATION_REVIEW_POINTS,
    Finding,
)

# The one length rule (``solutions.evidence``): the notebook's check, the schema and this
# judge count words alike (``WORD_PATTERN``) and refuse the same texts (0 points, said why).
MIN_WORDS = LIMITATION_MIN_WORDS
MAX_WORDS = LIMITATION_MAX_WORDS
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
_WORD = re.compile(WORD_PATTERN, re.UNICODE)


# --- Does the text read as real sentences about attention? -----------------------------------
# The topic cues above are single words, so one keyword can carry an unrelated text. The check
# below looks at the whole text instead; see ``prose_signals``. Word lists are lowercase.

# Closed-class English words (articles, pronouns, prepositions, conjunctions, auxiliaries and
# a few very common adverbs). Real sentences are roughly 35-60% such words, of many kinds;
# keyword lists, word salads and lorem ipsum have almost none.
FUNCTION_WORDS = frozenset("""
a an the this that these those each every either neither some any no all both another other
such what which whose who whom i me my mine myself we us our ours ourselves you your yours he
him his she her hers it its itself they them their theirs themselves one ones of to in on at by
for with from into onto about above below over under between among through throughout across
against along around before after during without within beyond behind upon via per than like
unlike toward towards until till since despite except near off out up down and or but nor so
yet if then because while whereas although though unless whether when where why how as once is
are was were be been being am do does did doing done have has had having can could may might
must shall should will would cannot can't won't don't doesn't didn't isn't aren't wasn't
weren't hasn't haven't hadn't couldn't shouldn't wouldn't it's that's there's let's i'm we're
they're not never also only just even still very too much many more most few fewer less least
there here again already always often thus hence therefore however instead rather quite almost
enough else ever own same
""".split())

# Vocabulary of attention, deep learning, text and the ways they fail or cost, as word prefixes
# (a word counts when it starts with one: "comput" covers compute, computation, computational;
# in a hyphenated word any part may match). Broad on purpose: a sound limitation on any topic
# (cost, interpretability, inductive bias, tokens, retrieval, hallucination, data, hardware...)
# should find most of its technical words here. Short or everyday stems are exact words below.
DOMAIN_PREFIXES: tuple[str, ...] = tuple("""
attent attend quer keyed valu softmax argmax logit scor weigh layer mask padd token
subword vocab sequen posit context window memor comput length matri vector tensor
dimension embed encod decod transform neural network gradient backprop backward parameter
train learn model input output residual mlp feedforward norm linear quadratic squar pair
summation averag mix focus relevan similar distribut probab scal dense sparse local global
order permut shuffl recurren rnn lstm cnn convolut gpu tpu cpu hardware cost expens cheap
slow fast speed latenc throughput flop operation complex effic inefficien batch cache infer
generat predict classif accura error loss bias induct interpret explain explan caus faithful
attribut importan salien heatmap visuali retriev lookup fact hallucin passage document text
word sentence language linguist letter character digit numer arithmet spell pixel image patch
vision audio speech data sample generalis generaliz overfit underfit robust adversar noise
distract dilut spread sharp smooth saturat collaps rank represent feature informat pattern
relation depend structur syntax semantic meaning reason logic prompt question answer
instruction chat conversation convention broadcast axis axes column entry entries element
array shape index indices truncat chunk algorithm architect mechanism block stack deep depth
width capacity size precision float stabil overflow underflow infinit neuron activation
nonlinear bert gpt llm translat summar causal autoregress ngram distance distant step map limit
guarantee pronoun noun verb grammar notebook plot assum approximat compar quadrupl increas
decreas reduc exponent polynom proportion bottleneck connection budget usage evaluat benchmark
metric task optimi objective finetun pretrain understand
""".split())
DOMAIN_WORDS = frozenset("""
key keys pad pads sum sums summed summing head heads row rows unit units span spans nan gram
grams qk kv time times long short
""".split())

# Determiners are followed by a noun, an adjective or a number, so "the of", "every the" or
# "the and" do not occur in sentences; in shuffled words they are frequent. ("its", "their",
# "your" are left out: students write them for "it's", "there", "you're".)
_DETERMINERS = frozenset("the an every our my".split())
_NOT_AFTER_DETERMINER = frozenset("""
of to in on at by for with from into onto about over under between through without within per
than via and or but nor if because while although though unless whether when where that which
who whom is are was were be been am do does did has have had can could may might must shall
should will would cannot we you he she it they me us them him the a an its their our my your
every this these those
""".split())
_PREPOSITIONS = frozenset("of in on at by for with from into onto about per via within".split())
_NOT_AFTER_PREPOSITION = frozenset("""
and or but nor is are was were has have had can could may might must shall should will would
cannot
""".split())
_NOT_LAST = _DETERMINERS | frozenset("and or nor but because of".split())
_ABBREVIATION = re.compile(r"\b(e\.g|i\.e|etc|vs|cf|approx|resp)\.", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_CLAUSE_END = re.compile(r"[,;:()\[\]]")

# Thresholds, calibrated on tests/h2_attention/evidence/limitation_corpus.py; the measured margins are in
# tests/h2_attention/evidence/test_limitation.py. Each sits inside the gap between the two corpora and
# nearer the gibberish side: a false flag costs a careful student, a missed flag only a review.
MIN_FUNCTION_SHARE = 0.20  # function words / words (sound >= 0.33, lists and salads <= 0.04)
MIN_FUNCTION_VARIETY = 4  # distinct function words (sound >= 6, keyword lists <= 3)
MIN_TOPICALITY = 0.35  # sqrt(domain share * on-topic share) (sound >= 0.47, stuffing <= 0.29)
MAX_ECHO_SHARE = 0.34  # words in sentences that nearly copy an earlier sentence / words
ECHO_SIMILARITY = 0.6  # Jaccard similarity of two sentences' word sets that counts as a copy
MAX_ODD_ORDER_SHARE = 0.05  # impossible word pairs ("the of", "with and") / words
MIN_ODD_ORDER_PAIRS = 2  # ...and at least this many (one typo is not a word salad)
_CAP = 9.99  # margins are capped so that a perfect signal does not hide in the report


@dataclass(frozen=True)
class ProseSignals:
    """How much a text reads as real sentences about attention (see ``prose_signals``).

    Each ``*_share`` is a fraction in [0, 1]. ``margins`` divides each signal by its threshold
    (inverted for the "at most" ones), so >= 1 passes; ``score`` is the weakest margin.
    """

    words: int
    function_share: float
    function_variety: int
    domain_share: float
    on_topic_share: float
    echo_share: float
    odd_order_pairs: int

    @property
    def topicality(self) -> float:
        """Geometric mean of the domain and on-topic shares: high only when the text is dense in
        attention vocabulary *and* spreads it over its clauses (either may be modest alone)."""
        return math.sqrt(self.domain_share * self.on_topic_share)

    @property
    def margins(self) -> dict[str, float]:
        """Each signal relative to its threshold: >= 1 passes, < 1 fails (capped at 9.99)."""
        def ratio(good: float, bad: float) -> float:
            return min(_CAP, good / bad) if bad > 0 else _CAP
        odd = self.odd_order_pairs / max(self.words, 1)
        return {
            "function words": ratio(self.function_share, MIN_FUNCTION_SHARE),
            "function variety": ratio(self.function_variety, MIN_FUNCTION_VARIETY),
            "word order": ratio(MAX_ODD_ORDER_SHARE,
                                odd if self.odd_order_pairs >= MIN_ODD_ORDER_PAIRS else 0.0),
            "repeated sentences": ratio(MAX_ECHO_SHARE, self.echo_share),
            "topicality": ratio(self.topicality, MIN_TOPICALITY),
        }

    @property
    def score(self) -> float:
        """The weakest margin: the text reads as prose about attention when this is >= 1."""
        return min(self.margins.values())

    @property
    def failed(self) -> list[str]:
        """Names of the signals below their threshold, weakest first."""
        return [name for name, m in sorted(self.margins.items(), key=lambda kv: kv[1]) if m < 1]


def _tokens(text: str) -> list[str]:
    """Lowercase words, without numbers and one-letter symbols ("n", "QK^T"'s "t")."""
    words = _WORD.findall(text.lower().replace("\u2019", "'"))
    return [w for w in words if (len(w) > 1 and not w.isdigit()) or w in ("a", "i")]


@functools.lru_cache(maxsize=8192)
def _is_domain(word: str) -> bool:
    return any(part in DOMAIN_WORDS or part.startswith(DOMAIN_PREFIXES)
               for part in (word, *word.split("-")))


def prose_signals(text: str) -> ProseSignals:
    """Measure whether ``text`` is mostly real sentences about attention.

    Five signals, each cheap and explainable, computed on lowercase words (numbers and
    one-letter symbols are ignored); sentences end at ".", "!", "?" or a line break, and
    clauses also at "," ";" ":" and brackets:

    * function share: the share of words that are English function words (the, of, is,
      because...). Sentences need them; keyword lists, word salads and lorem ipsum lack them.
    * function variety: how many different function words there are, so that a keyword list
      glued with "and" ("attention and softmax and query...") is not taken for sentences.
    * topicality: the geometric mean of two shares. The domain share is, among the other
      ("content") words, the share from the vocabulary of attention, deep learning and text
      (``DOMAIN_PREFIXES``, ``DOMAIN_WORDS``); the on-topic share is the share of words in
      clauses that contain such a word. One keyword in an unrelated text ("Quadratic. Purple
      elephants dance...") scores near zero on both; real limitations, on any topic, are high
      on at least one (an analogy has few domain words but uses one in every clause; a quoted
      example sentence has off-topic clauses but a dense rest).
    * echo share: the share of words in sentences that nearly copy an earlier sentence
      (word-set Jaccard similarity >= ``ECHO_SIMILARITY``): one sentence repeated with small
      changes.
    * odd word order: word pairs that do not occur in English ("the of", "every the", "with
      and", a sentence ending in "the"): shuffled words keep the vocabulary but not the order.

    Pure Python, no model and no network: well under a millisecond for 200 words.
    """
    text = _ABBREVIATION.sub(lambda m: m.group(1).replace(".", ""), text)
    clauses_by_sentence = [[c for piece in _CLAUSE_END.split(part) if (c := _tokens(piece))]
                           for part in _SENTENCE_END.split(text)]
    clauses = [c for cs in clauses_by_sentence for c in cs]
    sentences = [[w for c in cs for w in c] for cs in clauses_by_sentence if cs]
    words = [w for s in sentences for w in s]
    if not words:
        return ProseSignals(0, 0.0, 0, 0.0, 0.0, 0.0, 0)
    content = [w for w in words if w not in FUNCTION_WORDS]
    domain = sum(map(_is_domain, content))
    on_topic = sum(len(c) for c in clauses if any(map(_is_domain, c)))
    echo, seen = 0, []
    for sentence in sentences:
        bag = set(sentence)
        if len(sentence) >= 4 and any(len(bag & old) / len(bag | old) >= ECHO_SIMILARITY
                                      for old in seen):
            echo += len(sentence)
        seen.append(bag)
    odd = 0
    for sentence in sentences:
        for first, second in zip(sentence, sentence[1:], strict=False):
            odd += (first in _DETERMINERS and second in _NOT_AFTER_DETERMINER) or (
                first in _PREPOSITIONS and second in _NOT_AFTER_PREPOSITION)
        odd += len(sentence) > 1 and sentence[-1] in _NOT_LAST
    n = len(words)
    return ProseSignals(
        words=n,
        function_share=1 - len(content) / n,
        function_variety=len(set(words) & FUNCTION_WORDS),
        domain_share=domain / len(content) if content else 0.0,
        on_topic_share=on_topic / n,
        echo_share=echo / n,
        odd_order_pairs=odd,
    )


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


PROSE_CODES = ("limitation_not_prose", "limitation_off_topic")
_NOT_PROSE_REASONS = {
    "function words": "the limitation looks like a list of words rather than sentences",
    "function variety": "the limitation looks like a list of words rather than sentences",
    "word order": "the word order of the limitation does not read like English sentences",
    "repeated sentences": "the limitation repeats the same sentence with small changes",
}
_PROVISIONAL = ", so a person will read it and the points are provisional"


def prose_finding(text: str) -> Finding | None:
    """A review finding when ``text`` is not mostly real sentences about attention, else None.

    ``limitation_not_prose`` when the form fails (function words, word order, repetition),
    else ``limitation_off_topic`` when the topicality fails; see ``prose_signals``.
    """
    signals = prose_signals(text)
    failed = signals.failed
    if not failed:
        return None
    form = [name for name in failed if name in _NOT_PROSE_REASONS]
    if form:
        return _finding("limitation_not_prose", _NOT_PROSE_REASONS[form[0]] + _PROVISIONAL,
                        severity="review")
    if signals.on_topic_share < signals.domain_share:
        noticed = f"only {signals.on_topic_share:.0%} of its text is in phrases about"
    else:
        noticed = f"only {signals.domain_share:.0%} of its words are about"
    return _finding("limitation_off_topic", (
        f"most of the limitation is not about attention ({noticed} attention, models, data or "
        "their cost)" + _PROVISIONAL
    ), severity="review")


# --- Is it the student's own words, and does it say something the lecture allows? ----------
# Three checks on text that could otherwise earn full points silently (issue 25): a limitation
# that largely repeats the notebook's own sentences (``notebook_echo``), one that states the
# opposite of what the lecture shows (``lecture_claims``), and one that makes no concrete claim.
# Each sends the text to a person with provisional points, never to a silent zero.

OWN_WORDS_CODES = ("limitation_copied", "limitation_contradicts", "limitation_vacuous",
                   "limitation_not_compared")
# Words too general to be a claim about attention on their own (they are domain words, but
# "attention has limitations that matter" says nothing).
GENERIC_WORDS = frozenset("""
attention attend attends attending attended limitation limitations limit limits limited model
models mechanism mechanisms important
""".split())
# Phrases that fill a text without saying anything: "has some limitations", "in some
# situations", "should be considered carefully", "like any method".
FILLER_PHRASES = tuple(re.compile(p, re.IGNORECASE) for p in (
    r"\b(?:has|have|had) (?:some|several|many|certain|a few|a lot of|its|their|real|serious|"
    r"important) (?:\w+ )?(?:limitations?|drawbacks?|problems?|issues?|weaknesses|disadvantages|"
    r"shortcomings)\b",
    r"\bin (?:some|certain|many|various|specific|particular|different|most|all) (?:situations?|"
    r"cases?|contexts?|scenarios?|circumstances|settings?|applications?)\b",
    r"\b(?:should|must|need to|needs to|has to|have to) be (?:\w+ )?(?:considered|taken into "
    r"account|kept in mind|thought about|handled|used|treated|addressed)(?: (?:very )?(?:carefully|"
    r"with care|seriously))?\b",
    r"\bnot (?:always )?perfect\b",
    r"\bit (?:all )?depends\b",
    r"\b(?:can|could|may|might) (?:\w+ )?(?:matter|be (?:a )?(?:problem|problematic|an issue|"
    r"limiting|important)|cause (?:problems|issues))\b",
    r"\b(?:be|is|are|being) (?:\w+ )?(?:careful|aware|cautious|mindful)\b",
    r"\b(?:pros and cons|advantages and disadvantages|strengths and weaknesses)\b",
    r"\b(?:like|as with) (?:every|any|all|other) (?:\w+ )?(?:methods?|techniques?|tools?|"
    r"approach(?:es)?|technolog(?:y|ies)|models?)\b",
    r"\b(?:when|whenever|if) (?:we|you|they|people|one|someone) (?:\w+ )?(?:use|uses|using|"
    r"apply|applies)\b",
    # Hedges that restate a claim without its reason: "do not always explain everything",
    # "not always the whole explanation", "why a model behaves as it does" (issue 38).
    r"\b(?:everything|anything|all there is) (?:about|there is)\b",
    r"\bthe (?:whole|full|complete|entire) (?:\w+ )?(?:explanation|story|picture|truth)\b",
    r"\bwhy (?:a|the|any) (?:\w+ )?model (?:behaves|acts|works|does)(?: (?:as|the way) it does)?\b",
))
_FILLER = re.compile("|".join(f"(?:{p.pattern})" for p in FILLER_PHRASES), re.IGNORECASE)  # one pass
# Calibrated on tests/h2_attention/evidence/limitation_corpus.py (margins in tests/h2_attention/evidence/test_limitation.py):
# every sound limitation names at least 5 distinct ideas (``concrete_ideas``) and has at most
# 8% filler; the vacuous ones name at most 4, and those with 3 or 4 are 35% or more filler.
MIN_CONCRETE_WORDS = 3  # fewer distinct specific domain words: no concrete claim
MAX_FILLER_SHARE = 0.2  # more of the letters in filler phrases...
MIN_CONCRETE_WITH_FILLER = 5  # ...and fewer specific words than this: generic filler
_QUOTE_CHARS = 80


def concrete_words(text: str) -> list[str]:
    """The distinct specific words of ``text``: content words from the vocabulary of attention,
    models and their cost (``DOMAIN_PREFIXES``), except the generic ``GENERIC_WORDS``."""
    return sorted({w for w in _tokens(text)
                   if w not in FUNCTION_WORDS and w not in GENERIC_WORDS and _is_domain(w)})


def concrete_ideas(text: str) -> list[str]:
    """The distinct ideas among ``concrete_words``: words that share their first five letters
    are one ("explain" and "explanation", "weight" and "weights"), so a text that restates one
    claim in other forms of its words does not count as naming several."""
    return sorted({word[:5] for word in concrete_words(text)})


def filler_share(text: str) -> float:
    """The share of the letters of ``text`` inside ``FILLER_PHRASES``."""
    letters = sum(map(str.isalpha, text))
    filler = sum(sum(map(str.isalpha, m.group())) for m in _FILLER.finditer(text))
    return filler / letters if letters else 0.0


def _excerpt(text: str, limit: int = _QUOTE_CHARS) -> str:
    text = " ".join(text.split()).rstrip(" .")
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + "..."


def copied_finding(text: str) -> Finding | None:
    """A review finding when ``text`` largely repeats the release notebook's sentences."""
    try:
        echo = notebook_echo.echo(text)
    except notebook_echo.NotebookUnavailable as error:
        return Finding(
            code="limitation_not_compared", part="limitation", layer="limitation",
            pointer=POINTER, severity="review", ta_note=str(error),
            message="the grader could not compare the limitation with the notebook's own text "
                    "(its copy of the notebook could not be read)" + _PROVISIONAL)
    if echo.copied:
        return _finding("limitation_copied", (
            f"your limitation repeats the notebook's sentence '{notebook_echo.quote(echo.sentence)}' "
            f"({echo.copied_share:.0%} of its words are the notebook's); write it in your own words "
            "(a limitation the notebook discusses is welcome, explained with your own reasoning or "
            "an example of your own)" + _PROVISIONAL
        ), severity="review")
    example = notebook_echo.echo(text, notebook_echo.example_index())
    if not example.copied:
        return None
    return _finding("limitation_copied", (
        f"your limitation repeats the example in the schema ('{notebook_echo.quote(example.sentence)}'; "
        f"{example.copied_share:.0%} of its words are the example's), which shows the file's form, "
        "not a limitation: write your own, in your own words" + _PROVISIONAL
    ), severity="review")


def contradiction_finding(text: str) -> Finding | None:
    """A review finding when ``text`` states the opposite of a claim of the lecture."""
    found = lecture_claims.contradictions(text)
    if not found:
        return None
    first = found[0]
    return _finding("limitation_contradicts", (
        f"your limitation states that {first.claim.stated} (\"{_excerpt(first.excerpt)}\"), but "
        f"the lecture shows that {first.claim.lecture}" + _PROVISIONAL
    ), severity="review")


def vacuous_finding(text: str) -> Finding | None:
    """A review finding when ``text`` makes no concrete claim about attention."""
    concrete = concrete_words(text)
    ideas = len(concrete_ideas(text))
    filler = filler_share(text)
    if ideas >= MIN_CONCRETE_WORDS and not (
            filler >= MAX_FILLER_SHARE and ideas < MIN_CONCRETE_WITH_FILLER):
        return None
    quoted = [f"'{w}'" for w in concrete]
    named = " and ".join(filter(None, (", ".join(quoted[:-1]), *quoted[-1:])))
    noticed = ("it names nothing specific" if not concrete else
               f"its only specific word is {named}" if len(concrete) == 1 else
               f"its only specific words are {named}")
    if filler >= MAX_FILLER_SHARE:
        example = " ".join(next(_FILLER.finditer(text)).group().split())
        noticed += f", and {filler:.0%} of it is general phrases such as '{example}'"
    return _finding("limitation_vacuous", (
        f"the limitation makes no concrete claim about attention ({noticed}); say what goes wrong "
        "and why" + _PROVISIONAL
    ), severity="review")


def own_words_findings(text: str, words: int, judge_vacuity: bool) -> list[Finding]:
    """Review findings for text that is not the student's own, contradicts the lecture, or says
    nothing concrete. The statistics (copying, vacuity) need ``MIN_WORDS`` words; vacuity is
    judged only when asked (where a topic was recognised in prose: otherwise a person reads
    the text already, and a finding says why)."""
    found = [contradiction_finding(text)]
    if words >= MIN_WORDS:
        found.insert(0, copied_finding(text))
        if judge_vacuity:
            found.append(vacuous_finding(text))
    return [finding for finding in found if finding is not None]


def length_finding(words: int) -> Finding:
    """The finding on a limitation outside the length rule: it scores 0, and says the fix."""
    short = words < MIN_WORDS
    return _finding("limitation_length", (
        f"the limitation has {words} word{'s' if words != 1 else ''}; write {MIN_WORDS} to "
        f"{MAX_WORDS} words (a word is a run of letters or of digits): "
        + ("one limitation of attention, what goes wrong and why" if short
           else "keep to one limitation and its reason")
        + f"; outside {MIN_WORDS} to {MAX_WORDS} words it scores 0"
    ))


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
    if not MIN_WORDS <= len(words) <= MAX_WORDS:
        return LimitationResult(0, False, [*findings, length_finding(len(words))])
    points: float = LIMITATION_POINTS
    review = False
    distinct = len({w.lower() for w in words}) / len(words)
    repetitive = len(words) >= MIN_WORDS and distinct < MIN_DISTINCT_RATIO
    if repetitive:
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
    # A keyword can carry stuffing or gibberish: when a topic was recognised, check that the
    # text is mostly real sentences about attention. (With no topic, too few words or repeated
    # words, a human reads it already; the statistics need MIN_WORDS words.)
    prose = None
    if topic is not None and len(words) >= MIN_WORDS and not repetitive:
        prose = prose_finding(text)
        if prose is not None:
            findings.append(prose)
            points, review = min(points, LIMITATION_REVIEW_POINTS), True
    # Is it the student's own words, and a claim the lecture allows? (Vacuity only for prose
    # with a recognised topic: otherwise a finding above already sends it to a person.)
    own = own_words_findings(text, len(words), topic is not None and not repetitive
                             and prose is None)
    if own:
        findings.extend(own)
        points, review = min(points, LIMITATION_REVIEW_POINTS), True
    return LimitationResult(points, review, findings, topic)
