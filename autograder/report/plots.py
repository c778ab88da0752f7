"""The report's plots: matplotlib figures as inline SVG, so the page needs no other file.

Each figure becomes an ``<svg>`` element with no XML prolog, no metadata, no
namespace URLs and ids prefixed by the figure's name (several inline SVGs on
one page must not share an id). Text stays text (``svg.fonttype = none``): the
page is small and searchable. Labels come from our data and matplotlib escapes
them as XML; the template inserts the SVG as is.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure

# matplotlib 3.10 renamed boxplot's vert=False (deprecated since 3.11); pyproject allows 3.9.
HORIZONTAL = ({"orientation": "horizontal"}
              if tuple(int(x) for x in matplotlib.__version__.split(".")[:2]) >= (3, 10)
              else {"vert": False})
COLOUR = "#4c72b0"
ACCENT = "#c44e52"
STYLE = {"svg.fonttype": "none", "font.size": 9, "axes.spines.top": False,
         "axes.spines.right": False, "svg.hashsalt": "autograder-report"}


def to_svg(figure: Figure, name: str) -> str:
    """The figure as an inline ``<svg>`` element (see the module docstring)."""
    buffer = io.StringIO()
    with matplotlib.rc_context(STYLE):
        figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buffer.getvalue()
    text = text[text.index("<svg"):]  # no <?xml ...?>, no DOCTYPE
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)
    text = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", text)
    text = re.sub(r'\bid="([^"]+)"', rf'id="{name}-\1"', text)
    text = re.sub(r"url\(#([^)]+)\)", rf"url(#{name}-\1)", text)
    text = re.sub(r'href="#([^"]+)"', rf'href="#{name}-\1"', text)
    return text.replace("<svg", f'<svg role="img" aria-label="{name}"', 1).strip()


def _figure(width: float = 6.4, height: float = 3.0) -> tuple[Figure, Axes]:
    """A figure of its own, not pyplot's: nothing keeps it alive once its SVG is made (pyplot
    kept every figure until closed, and warned past 20 when a plot failed half-way), and no
    display backend is involved (``savefig`` renders with Agg/SVG by itself)."""
    with matplotlib.rc_context(STYLE):
        figure = Figure(figsize=(width, height))
        axes = figure.add_subplot()
    return figure, axes


def score_bins(max_score: float) -> list[float]:
    """Bin edges from 0 to exactly ``max_score``: bins of 5 points (10 % of the maximum at
    most, 1 at least), the last one closed (matplotlib's last bin holds its right edge), so
    a full score falls in [95, 100], never in a bar past the maximum."""
    width = max(1.0, min(5.0, max_score / 10 or 1.0))
    edges = [i * width for i in range(int(max_score // width) + 1)]
    if max_score - edges[-1] > 1e-9:
        edges.append(float(max_score))  # a shorter last bin when width does not divide it
    return edges if len(edges) > 1 else [0.0, float(max_score) or 1.0]


def score_histogram(totals: Sequence[float], max_score: float) -> str:
    """Total scores in the bins of ``score_bins``, ticks on the bin edges."""
    with matplotlib.rc_context(STYLE):
        figure, axes = _figure()
        edges = score_bins(max_score)
        axes.hist(totals, bins=edges, color=COLOUR, edgecolor="white")
        axes.set_xlim(0, edges[-1])
        step = max(1, len(edges) // 10)
        axes.set_xticks(edges[::step] if edges[::step][-1] == edges[-1]
                        else [*edges[::step], edges[-1]])
        axes.set_xlabel(f"total score (of {max_score:g}; the last bar holds {edges[-2]:g} to "
                        f"{edges[-1]:g}, both included)")
        axes.set_ylabel("students")
        axes.yaxis.get_major_locator().set_params(integer=True)
        return to_svg(figure, "score-histogram")


def part_distribution(shares: Mapping[str, Sequence[float]]) -> str:
    """Per part, the spread of students' shares of its points (box, mean as a dot)."""
    parts = [part for part, values in shares.items() if values]
    with matplotlib.rc_context(STYLE):
        figure, axes = _figure(6.4, 0.32 * max(len(parts), 1) + 0.8)
        data = [[100 * v for v in shares[part]] for part in parts]
        if data:
            axes.boxplot(data, **HORIZONTAL, widths=0.6, showmeans=True,
                         meanprops={"marker": "o", "markerfacecolor": ACCENT,
                                    "markeredgecolor": ACCENT, "markersize": 4},
                         medianprops={"color": COLOUR})
            axes.set_yticks(range(1, len(parts) + 1), parts)
            axes.invert_yaxis()
        axes.set_xlim(-3, 103)
        axes.set_xlabel("share of the part's points (%); dot = mean")
        return to_svg(figure, "part-distribution")


def misconception_bars(counts: Mapping[str, int]) -> str:
    """Students per misconception code."""
    codes = list(counts)
    with matplotlib.rc_context(STYLE):
        figure, axes = _figure(6.4, 0.3 * max(len(codes), 1) + 0.8)
        axes.barh(codes, [counts[c] for c in codes], color=COLOUR)
        axes.invert_yaxis()
        axes.set_xlabel("students")
        axes.xaxis.get_major_locator().set_params(integer=True)
        return to_svg(figure, "misconceptions")


def submission_times(hours_from_due: Sequence[float]) -> str:
    """Submissions against the due date (hours; negative = before it)."""
    with matplotlib.rc_context(STYLE):
        figure, axes = _figure()
        low, high = min(hours_from_due), max(hours_from_due)
        span = max(high - low, 1.0)
        bins = min(40, max(5, len(hours_from_due)))
        axes.hist(hours_from_due, bins=bins, range=(low - 0.05 * span, high + 0.05 * span),
                  color=COLOUR, edgecolor="white")
        axes.axvline(0, color=ACCENT, linewidth=1.5)
        axes.annotate("due", (0, 1), xycoords=("data", "axes fraction"), color=ACCENT,
                      xytext=(3, -10), textcoords="offset points")
        axes.set_xlabel("hours from the due date (after it > 0)")
        axes.set_ylabel("students")
        axes.yaxis.get_major_locator().set_params(integer=True)
        return to_svg(figure, "submission-times")


def similarity_histogram(scores: Sequence[float], threshold: float) -> str:
    """How alike every compared pair is, with the threshold that flags a pair."""
    with matplotlib.rc_context(STYLE):
        figure, axes = _figure(6.4, 2.4)
        axes.hist([100 * s for s in scores], bins=[5 * i for i in range(21)], color=COLOUR,
                  edgecolor="white")
        axes.axvline(100 * threshold, color=ACCENT, linewidth=1.5)
        axes.set_xlim(0, 100)
        axes.set_xlabel("coverage of the pair's own code by shared passages (%)")
        axes.set_ylabel("pairs")
        axes.yaxis.get_major_locator().set_params(integer=True)
        return to_svg(figure, "similarity")
