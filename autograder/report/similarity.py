"""Pairs of submissions whose own code is suspiciously alike: winnowed fingerprints.

What is compared is each student's *own* code: the code cells of the submitted
notebook minus the starter code of the release (a cell identical to a release
cell is dropped, and so is every line identical to a line of the release:
signatures, docstrings, ``# YOUR CODE HERE``, the locked helper cells). That code
is turned into normalised tokens with Python's ``tokenize``: every identifier
becomes ``V`` (renaming variables changes nothing), every number ``N`` and
string ``S``, comments and layout are dropped; keywords, operators and the
names after a dot (``np.exp``, ``.sum``: what a library offers, not what a
student chose) stay. Hashes of every ``K`` consecutive tokens are winnowed
(Schleimer, Wilkerson, Aiken, SIGMOD 2003: the smallest hash of each window of
``WINDOW`` hashes), which guarantees that any common run of
``K + WINDOW - 1`` tokens is seen, whatever surrounds it.

A fingerprint that many submissions share is what everyone writes (MOSS's
``-m``): it is ignored once it is found in more than ``common_limit(n)`` of
them. Two submissions are flagged when the larger of their two *coverages*
(the share of a submission's own tokens inside runs they share) reaches
``THRESHOLD`` and the runs cover at least ``MIN_TOKENS`` tokens. Measured
(``tests/report/test_report_similarity.py``): the repository's six independent
correct solutions, written in six styles from the same notebook text, reach at
most 0.48 as pairs alone (no fingerprint is boilerplate among two); a near-copy
of one of them (locals renamed, comments rewritten) 0.99 alone and 0.95 in a
cohort of seven, where the highest other pair is 0.26.

This is a flag for a person, never evidence by itself, and it changes no grade.
Only the notebook's JSON is read; no student code runs. Copydetect (PyPI) does
the same winnowing but tokenizes with Pygments, keeps numbers and most
operators as characters, hashes with Python's salted ``hash()`` and works on
files (through temporary copies here); subtracting the release by lines and mapping
matches back to notebook cells and lines are simpler in this module, with no new
pinned dependency.
"""

from __future__ import annotations

import hashlib
import io
import json
import keyword
import os
import stat
import tokenize
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

K = 20  # tokens per fingerprinted k-gram
WINDOW = 8  # winnowing window: any shared run of K + WINDOW - 1 = 27 tokens is found
THRESHOLD = 0.7  # coverage that flags a pair
MIN_TOKENS = 100  # shared tokens below this never flag (a few obvious lines)
COMMON_SHARE = 0.5  # a fingerprint in more than this share of submissions is boilerplate...
COMMON_MIN = 4  # ...once it is in at least this many (a pair or a trio is never boilerplate)
MAX_NOTEBOOK_BYTES = 20_000_000  # a notebook larger than this is not read
MAX_BLOCKS = 15  # matching passages shown per flagged pair (the longest)
MIN_PASSAGE = 8  # tokens: a shorter piece of a shared run (at a cell's edge) is not shown

_SKIPPED = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENCODING, tokenize.ENDMARKER, tokenize.TYPE_COMMENT}


@dataclass(frozen=True)
class Token:
    """One normalised token and where it came from (code cell index, line in that cell)."""

    text: str
    cell: int
    line: int


@dataclass
class OwnCode:
    """A submission's own code: its cells' lines (for display) and normalised tokens."""

    student: str
    cells: list[list[str]]
    tokens: list[Token]
    labels: list[str] = field(default_factory=list)  # each kept cell's label


@dataclass(frozen=True)
class Starter:
    """What every student was given: the release's code cells and their lines."""

    cells: frozenset[str]
    lines: frozenset[str]

    @classmethod
    def from_notebook(cls, path: Path | None) -> Starter:
        """The starter code of a release notebook (none if there is no such file)."""
        sources = [source for _, source in (code_cells(path) or [])] if path else []
        lines = {line.strip() for source in sources for line in source.split("\n")}
        return cls(frozenset(sources), frozenset(line for line in lines if line))


@dataclass(frozen=True)
class Block:
    """One passage found in both submissions: 1-based line ranges in their code cells."""

    tokens: int
    left: tuple[int, int, int]  # cell, first line, last line
    right: tuple[int, int, int]


@dataclass
class Pair:
    """Two submissions compared: coverages, shared tokens and the passages they share."""

    left: str
    right: str
    left_coverage: float
    right_coverage: float
    shared_tokens: int
    blocks: list[Block] = field(default_factory=list)

    @property
    def score(self) -> float:
        """The larger coverage: one student's code found almost whole in another's."""
        return max(self.left_coverage, self.right_coverage)

    @property
    def flagged(self) -> bool:
        return self.score >= THRESHOLD and self.shared_tokens >= MIN_TOKENS


# ----------------------------------------------------------------- reading and normalising


def code_cells(path: Path) -> list[tuple[str, str]] | None:
    """A notebook's code cells as (label, source), read as JSON only (None if unreadable).
    The label is the cell's nbgrader ``grade_id`` (the function's name for a solution
    cell), else ``code cell N``."""
    try:
        notebook = json.loads(_read_regular_file(path).decode("utf-8", errors="replace"))
        cells = []
        for cell in notebook["cells"]:
            if not isinstance(cell, dict) or cell.get("cell_type") != "code":
                continue
            source = cell.get("source", "")
            source = "".join(map(str, source)) if isinstance(source, list) else str(source)
            metadata = cell.get("metadata")
            nbgrader = metadata.get("nbgrader") if isinstance(metadata, dict) else None
            grade_id = nbgrader.get("grade_id") if isinstance(nbgrader, dict) else None
            label = grade_id if isinstance(grade_id, str) and grade_id else ""
            cells.append((label or f"code cell {len(cells) + 1}", source))
        return cells
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _read_regular_file(path: Path) -> bytes:
    """A notebook's bytes; ``OSError`` for a symlink (the file or its submission and student
    folders: it could point at the grading machine's files), a non-file or a huge file."""
    if any(p.is_symlink() for p in (path, path.parent, path.parent.parent)):
        raise OSError(f"{path} is a symlink")
    info = os.lstat(path)
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_NOTEBOOK_BYTES:
        raise OSError(f"{path} is not a notebook file")
    handle = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(handle, "rb") as file:
        data = file.read(MAX_NOTEBOOK_BYTES + 1)
    if len(data) > MAX_NOTEBOOK_BYTES:
        raise OSError(f"{path} is too large")
    return data


def normalise(source: str, starter_lines: frozenset[str] = frozenset(), cell: int = 0
              ) -> list[Token]:
    """The normalised tokens of one cell, without those on a line of the starter code.

    Source that ``tokenize`` cannot read (a syntax error) keeps the tokens before the
    error: a broken cell still counts for what it has."""
    lines = source.split("\n")  # as tokenize counts lines (not splitlines: \x0c, \u2028...)
    tokens: list[Token] = []
    previous = ""
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type in _SKIPPED:
                continue
            number = token.start[0]
            if 0 < number <= len(lines) and lines[number - 1].strip() in starter_lines:
                previous = token.string
                continue
            if token.type == tokenize.NAME:
                text = token.string if keyword.iskeyword(token.string) or previous == "." else "V"
            elif token.type == tokenize.NUMBER:
                text = "N"
            elif token.type == tokenize.STRING:
                text = "S"
            else:
                text = token.string
            tokens.append(Token(text, cell, number))
            previous = token.string
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return tokens


def own_code(student: str, notebook: Path, starter: Starter) -> OwnCode | None:
    """A student's own code (None when the notebook cannot be read)."""
    found = code_cells(notebook)
    if found is None:
        return None
    code = OwnCode(student, [], [], [])
    for label, source in found:
        if source in starter.cells:
            continue
        code.tokens += normalise(source, starter.lines, len(code.cells))
        code.cells.append(source.split("\n"))
        code.labels.append(label)
    return code


# ----------------------------------------------------------------- fingerprints


def _hash(texts: Sequence[str]) -> int:
    digest = hashlib.blake2b("\x1f".join(texts).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def kgram_hashes(texts: Sequence[str], k: int | None = None) -> list[int]:
    """The hash of every run of ``k`` (default ``K``) consecutive tokens (stable across
    processes: no salted ``hash()``)."""
    k = k or K
    return [_hash(texts[i:i + k]) for i in range(len(texts) - k + 1)]


def winnow(hashes: Sequence[int], window: int | None = None) -> dict[int, list[int]]:
    """Robust winnowing: the smallest hash of each window of ``window`` (default ``WINDOW``)
    hashes, the rightmost on ties, each selected position once; returns hash -> the k-gram
    positions it was selected at."""
    window = window or WINDOW
    selected: dict[int, list[int]] = defaultdict(list)
    if not hashes:
        return selected
    if len(hashes) <= window:
        low = min(range(len(hashes)), key=lambda i: (hashes[i], -i))
        selected[hashes[low]].append(low)
        return selected
    last = -1
    for start in range(len(hashes) - window + 1):
        low = min(range(start, start + window), key=lambda i: (hashes[i], -i))
        if low != last:
            selected[hashes[low]].append(low)
            last = low
    return selected


def fingerprints(code: OwnCode) -> dict[int, list[int]]:
    """A submission's winnowed fingerprints: hash -> k-gram start positions."""
    return winnow(kgram_hashes([token.text for token in code.tokens]))


def common_limit(submissions: int) -> int:
    """How many submissions may share a fingerprint before it counts as boilerplate."""
    return max(COMMON_MIN - 1, int(COMMON_SHARE * submissions))


# ----------------------------------------------------------------- comparing


def _covered(starts: Iterable[int], length: int) -> set[int]:
    return {i for start in starts for i in range(start, min(start + K, length))}


def compare(left: OwnCode, right: OwnCode, left_prints: dict[int, list[int]],
            right_prints: dict[int, list[int]], ignored: frozenset[int] = frozenset()) -> Pair:
    """Coverages and shared passages of two submissions (``ignored``: boilerplate hashes)."""
    shared = [h for h in left_prints.keys() & right_prints.keys() if h not in ignored]
    covered_left = _covered((p for h in shared for p in left_prints[h]), len(left.tokens))
    covered_right = _covered((p for h in shared for p in right_prints[h]), len(right.tokens))
    pair = Pair(
        left.student, right.student,
        len(covered_left) / len(left.tokens) if left.tokens else 0.0,
        len(covered_right) / len(right.tokens) if right.tokens else 0.0,
        min(len(covered_left), len(covered_right)),
    )
    if pair.flagged:
        pair.blocks = passages(left, right, [(p, q) for h in shared for p in left_prints[h]
                                             for q in right_prints[h]])
    return pair


def passages(left: OwnCode, right: OwnCode, seeds: list[tuple[int, int]]) -> list[Block]:
    """The longest passages the two share, grown from matching k-grams, without overlap."""
    a = [token.text for token in left.tokens]
    b = [token.text for token in right.tokens]
    runs = set()
    grown: dict[int, list[tuple[int, int]]] = defaultdict(list)  # diagonal -> runs on it
    for i, j in sorted(set(seeds)):
        if any(start <= i < end for start, end in grown[i - j]):
            continue  # inside a run already grown from another seed
        while i > 0 and j > 0 and a[i - 1] == b[j - 1]:
            i, j = i - 1, j - 1
        end = 0
        while i + end < len(a) and j + end < len(b) and a[i + end] == b[j + end]:
            end += 1
        runs.add((end, i, j))
        grown[i - j].append((i, i + end))
    used_left: set[int] = set()
    used_right: set[int] = set()
    blocks = []
    for length, i, j in sorted(runs, key=lambda run: (-run[0], run[1], run[2])):
        span_left, span_right = set(range(i, i + length)), set(range(j, j + length))
        if span_left & used_left or span_right & used_right:
            continue
        used_left |= span_left
        used_right |= span_right
        blocks += _per_cell(left.tokens, right.tokens, i, j, length)
    longest = sorted(blocks, key=lambda block: (-block.tokens, block.left))[:MAX_BLOCKS]
    return sorted(longest, key=lambda block: (block.left[0], block.left[1]))


def _per_cell(a: Sequence[Token], b: Sequence[Token], i: int, j: int, length: int
              ) -> list[Block]:
    """A shared run cut where either side moves on to another cell (one view per cell)."""
    blocks, start = [], 0
    for t in range(1, length + 1):
        if t == length or a[i + t].cell != a[i + t - 1].cell or b[j + t].cell != b[j + t - 1].cell:
            if t - start >= MIN_PASSAGE:
                blocks.append(Block(t - start, _lines(a[i + start:i + t]),
                                    _lines(b[j + start:j + t])))
            start = t
    return blocks


def _lines(tokens: Sequence[Token]) -> tuple[int, int, int]:
    """Cell and line range of a run of tokens of one cell."""
    numbers = [token.line for token in tokens]
    return tokens[0].cell, min(numbers), max(numbers)


def similar_pairs(codes: Sequence[OwnCode]) -> tuple[list[Pair], list[Pair]]:
    """Every pair that shares anything beyond boilerplate, most alike first, and the
    flagged ones among them."""
    prints = {code.student: fingerprints(code) for code in codes}
    holders: dict[int, set[str]] = defaultdict(set)
    for student, found in prints.items():
        for digest in found:
            holders[digest].add(student)
    limit = common_limit(len(codes))
    ignored = frozenset(h for h, who in holders.items() if len(who) > limit)
    candidates = set()
    for digest, who in holders.items():
        if digest not in ignored and len(who) > 1:
            candidates.update(combinations(sorted(who), 2))
    by_name = {code.student: code for code in codes}
    pairs = [compare(by_name[a], by_name[b], prints[a], prints[b], ignored)
             for a, b in sorted(candidates)]
    pairs.sort(key=lambda pair: (-pair.score, pair.left, pair.right))
    return pairs, [pair for pair in pairs if pair.flagged]


def excerpt(code: OwnCode, where: tuple[int, int, int]) -> str:
    """The original lines of a passage (for the side-by-side view; escaped when rendered)."""
    cell, first, last = where
    return "\n".join(code.cells[cell][first - 1:last])


def where(code: OwnCode, at: tuple[int, int, int]) -> str:
    """``my_function, lines 3-9``: a passage's cell label and line range."""
    cell, first, last = at
    lines = f"line {first}" if first == last else f"lines {first}-{last}"
    return f"{code.labels[cell] if cell < len(code.labels) else 'code'}, {lines}"
