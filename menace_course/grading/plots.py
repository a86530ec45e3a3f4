"""The class report's pictures, drawn with matplotlib and kept as inline SVG text.

The Agg backend is used (no display needed), and the SVG carries no date and uses fixed
ids, so the same class gives the same pictures. Only trusted text appears in them (test
names and numbers), never a student's name or output.
"""

from __future__ import annotations

import io
from typing import Any

from menace_course.grading.stats import ClassStats


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "menace-course"
    matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: small and searchable
    import matplotlib.pyplot as plt

    return plt


def _svg(figure: Any) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    _pyplot().close(figure)
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def score_distribution(stats: ClassStats) -> str:
    """A bar for each score, on a scale from 0 to the maximum: how many students got it."""
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(7, 3))
    scores = sorted(stats.scores)
    whole = all(float(s).is_integer() for s in scores)
    axes.bar(scores, [stats.scores[s] for s in scores], width=0.8 if whole else 0.3, color="#4c72b0")
    axes.set_xlim(-0.6, stats.max_score + 0.6)
    if whole and stats.max_score <= 40:
        axes.set_xticks(range(int(stats.max_score) + 1))
    axes.set_xlabel(f"score (out of {stats.max_score:g})")
    axes.set_ylabel("students")
    axes.yaxis.get_major_locator().set_params(integer=True)
    axes.spines[["top", "right"]].set_visible(False)
    return _svg(figure)


#: The colour of a test's bar by how many pass it, and what the legend says of it.
PASS_BANDS = (("#55a868", "80% or more pass"), ("#dd8452", "50% to 79% pass"), ("#c44e52", "under 50% pass"))


def _band(rate: float) -> tuple[str, str]:
    return PASS_BANDS[0] if rate >= 80 else PASS_BANDS[1] if rate >= 50 else PASS_BANDS[2]


def pass_rates(stats: ClassStats) -> str:
    """A bar for each test: the share of submissions that ran and passed it."""
    plt = _pyplot()
    names = [t.name for t in stats.tests]
    figure, axes = plt.subplots(figsize=(7, 0.3 * len(names) + 0.8))
    rates = [100 * stats.pass_rate(n) for n in names]
    axes.barh(names, rates, color=[_band(r)[0] for r in rates])
    axes.invert_yaxis()  # the suite's order, top to bottom
    axes.set_xlim(0, 100)
    axes.set_xlabel("% of submissions that ran which pass")
    legend = [_pyplot().Rectangle((0, 0), 1, 1, color=colour) for colour, _ in PASS_BANDS]
    axes.legend(legend, [label for _, label in PASS_BANDS], loc="lower right", fontsize="small")
    axes.spines[["top", "right"]].set_visible(False)
    return _svg(figure)
