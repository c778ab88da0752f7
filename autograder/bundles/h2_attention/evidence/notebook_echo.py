"""Does the limitation repeat the notebook's own sentences?

The notebook already states several limitations of attention (Step 10, the
bullets of Step 11, the closing caution); a student can paste one as "their"
limitation. This module compares the limitation with every sentence the student
was given: the release notebook's markdown, and the comments and docstrings of
its code cells, read once per process from the grader's packaged copy
(``H2.grader_release_notebook``), so the notebook stays the one source of truth;
and, apart (``example_index``), the example limitation of the schema shipped beside it.

The measure is word shingles: the share of the limitation's words that lie in a
run of ``SHINGLE`` consecutive words (lowercased, a plural "s" dropped) that
also occurs in the notebook. A pasted sentence scores 1.0; an honest limitation
that reuses the lecture's terms ("the sequence length", "causal explanation")
only covers a few scattered words. Pure Python, set look-ups only: well under a
millisecond per limitation once the notebook's shingles are built (once per process,
a few tens of milliseconds).
"""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..bundle import H2

SHINGLE = 4  # words per shingle
# Calibrated on tests/h2_attention/evidence/limitation_corpus.py (see tests/h2_attention/evidence/test_limitation.py):
# sound limitations cover at most 0.28 of their words with the notebook's 4-word runs, pasted
# or lightly edited notebook text at least 0.44. The threshold sits nearer the copies' side,
# as the module's other thresholds do: a false flag costs a careful student a review.
MAX_COPIED_SHARE = 0.4
QUOTE_CHARS = 120  # the quoted notebook sentence in a message is cut to this length

_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*|\d+", re.UNICODE)
_SENTENCE_END = re.compile(r"(?<=[.!?])(?<!\be\.g\.)(?<!\bi\.e\.)\s+")
_BLOCK_START = re.compile(r"(?:[*+-]|\d+[.)]|#+|\|)\s|\|")  # list item, heading, table row
_UNJOINABLE = re.compile(r"#+\s|\|")  # nothing continues a heading or a table row
_MARKUP = re.compile(r"[*`#>|]+|(?<!\w)_|_(?!\w)")  # emphasis, code, headings, tables


class NotebookUnavailable(RuntimeError):
    """The grader's copy of the release notebook cannot be read (a broken install)."""


@dataclass(frozen=True)
class Echo:
    """How much of a limitation the notebook already says, and its most-copied sentence."""

    copied_share: float  # share of the limitation's words inside a shared shingle
    sentence: str  # the notebook sentence that shares the most shingles ("" = none)

    @property
    def copied(self) -> bool:
        """True when the limitation largely repeats the notebook."""
        return self.copied_share >= MAX_COPIED_SHARE


def _stem(word: str) -> str:
    """Fold a plural or third-person "s", so "weight"/"weights" and "say"/"says" match."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def words_of(text: str) -> list[str]:
    """Lowercase, stemmed words of ``text`` (punctuation and markup dropped)."""
    return [_stem(w) for w in _WORD.findall(text.lower().replace("\u2019", "'"))]


def _code_prose(source: str) -> list[str]:
    """Comments and docstrings of one code cell (what a student reads there as prose); a
    comment running over several whole lines is one text."""
    texts: list[str] = []
    last_row = -2
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type != tokenize.COMMENT:
                continue
            text = token.string.lstrip("#").strip()
            whole_line = token.line.lstrip().startswith("#")
            if whole_line and token.start[0] == last_row + 1 and texts:
                texts[-1] += "\n" + text
            else:
                texts.append(text)
            last_row = token.start[0] if whole_line else -2
    except (tokenize.TokenError, SyntaxError):
        pass
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return texts
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            docstring = ast.get_docstring(node)
            if docstring:
                texts.append(docstring)
    return texts


def notebook_sentences(notebook: dict) -> list[str]:
    """The prose sentences of a notebook: markdown cells, code comments and docstrings."""
    sentences = []
    for cell in notebook.get("cells", []):
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        texts = [source] if cell.get("cell_type") == "markdown" else _code_prose(source)
        for text in texts:
            for line in _unwrapped(text):
                for piece in _SENTENCE_END.split(_MARKUP.sub("", line)):
                    sentence = " ".join(piece.split()).lstrip("-• ").strip()
                    if _WORD.search(sentence):
                        sentences.append(sentence)
    return sentences


def _unwrapped(text: str) -> list[str]:
    """The logical lines of ``text``: a wrapped line joins the one before it, while a blank
    line, a list item, a heading or a table row starts a new one."""
    lines: list[str] = []
    joinable = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            joinable = False
            continue
        if joinable and not _BLOCK_START.match(line):
            lines[-1] += " " + line
        else:
            lines.append(line)
        joinable = not _UNJOINABLE.match(line)
    return lines


@dataclass(frozen=True)
class _Index:
    sentences: tuple[str, ...]
    shingles: dict[tuple[str, ...], tuple[int, ...]]  # shingle -> sentences holding it


def build_index(sentences: list[str]) -> _Index:
    """Every ``SHINGLE``-word run of every sentence, mapped to the sentences it occurs in."""
    shingles: dict[tuple[str, ...], list[int]] = {}
    for number, sentence in enumerate(sentences):
        words = words_of(sentence)
        for start in range(len(words) - SHINGLE + 1):
            holders = shingles.setdefault(tuple(words[start:start + SHINGLE]), [])
            if not holders or holders[-1] != number:
                holders.append(number)
    return _Index(tuple(sentences), {k: tuple(v) for k, v in shingles.items()})


@cache
def _release_index(path: Path) -> _Index:
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise NotebookUnavailable(
            f"cannot read the release notebook {path} ({error.__class__.__name__}); reinstall "
            "the grader (`pip install .` ships it), or in a checkout run `make release`"
        ) from None
    return build_index(notebook_sentences(notebook))


def release_index() -> _Index:
    """The packaged release notebook's sentences and shingles, built once per process.

    Raises ``NotebookUnavailable`` (one line) when the grader's copy cannot be read."""
    return _release_index(H2.grader_release_notebook)


@cache
def _example_index(path: Path) -> _Index:
    schema = json.loads(path.read_text(encoding="utf-8"))  # the verifier's first layer read it
    examples = schema.get("examples", []) if isinstance(schema, dict) else []
    return build_index([example["limitation"] for example in examples
                        if isinstance(example, dict) and isinstance(example.get("limitation"), str)])


def example_index() -> _Index:
    """The limitation of the schema's example file (shipped next to the notebook), whose
    words a student was given too: a copy of it is not the student's own either."""
    return _example_index(H2.grader_schema)


def echo(text: str, index: _Index | None = None) -> Echo:
    """How much of ``text`` repeats the notebook (the release notebook unless ``index``)."""
    index = release_index() if index is None else index
    words = words_of(text)
    covered = [False] * len(words)
    hits: dict[int, int] = {}
    for start in range(len(words) - SHINGLE + 1):
        holders = index.shingles.get(tuple(words[start:start + SHINGLE]))
        if holders:
            covered[start:start + SHINGLE] = [True] * SHINGLE
            for number in holders:
                hits[number] = hits.get(number, 0) + 1
    share = sum(covered) / len(words) if words else 0.0
    best = max(hits, key=lambda n: (hits[n], len(index.sentences[n])), default=None)
    return Echo(share, "" if best is None else index.sentences[best])


def quote(sentence: str, limit: int = QUOTE_CHARS) -> str:
    """``sentence`` without its final full stop, cut at a word boundary near ``limit``."""
    sentence = sentence.rstrip(" .")
    if len(sentence) <= limit:
        return sentence
    return sentence[:limit].rsplit(" ", 1)[0].rstrip(",;:") + "..."
