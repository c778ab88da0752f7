"""The report reads as English and its histogram is right (issue 26): one pluralising helper
for every count, and score bins that end exactly at the maximum score."""

from __future__ import annotations

import numpy as np
import pytest

from autograder.base.wording import inline_markdown, plural, points
from autograder.report import plots


@pytest.mark.parametrize(("count", "noun", "said"), [
    (1, "pair", "1 pair"), (0, "pair", "0 pairs"), (2, "pair", "2 pairs"),
    (1, "similar pair", "1 similar pair"), (2.5, "point", "2.5 points"),
    (1.0, "point", "1 point"), (3, "check", "3 checks"),
])
def test_plural(count, noun, said):
    assert plural(count, noun) == said


def test_points():
    assert points(1) == "1 point" and points(7) == "7 points" and points(0) == "0 points"


@pytest.mark.parametrize("max_score", [100, 14, 8, 3, 37])
def test_score_bins_end_exactly_at_the_maximum(max_score):
    edges = plots.score_bins(max_score)
    assert edges[0] == 0 and edges[-1] == max_score
    assert all(b > a for a, b in zip(edges, edges[1:], strict=False))
    assert max(b - a for a, b in zip(edges, edges[1:], strict=False)) <= 5


def test_a_full_score_falls_in_the_last_closed_bin():
    edges = plots.score_bins(100)
    assert edges[-2:] == [95, 100]
    counts, _ = np.histogram([100, 100, 97, 95, 94.5, 0], bins=edges)  # matplotlib's binning
    assert counts[-1] == 4  # 95, 97, 100, 100: [95, 100] is closed on both ends
    assert counts[-2] == 1 and counts[0] == 1
    assert sum(counts) == 6  # nothing falls past the maximum


def test_the_histogram_axis_ends_at_the_maximum():
    svg = plots.score_histogram([100, 80, 55], 100)
    assert "the last bar holds 95 to 100, both included" in svg
    assert ">105<" not in svg  # no tick past the maximum


def test_report_texts_render_their_markdown():
    assert str(inline_markdown("An explicit `scale` replaces 1/sqrt(d_k)")) == \
        "An explicit <code>scale</code> replaces 1/sqrt(d_k)"
    assert "<em>all</em>" in str(inline_markdown("K.T reverses *all* axes"))
