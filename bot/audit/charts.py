"""The completeness histogram of an audit: its bins, its counts per label, and two drawings of it. Pure code.

`histogram` counts, per human label, the tasks whose completeness falls in each bin of BINS;
`histogram_svg` draws that as an inline SVG bar chart (report.html) and `histogram_mermaid` as Mermaid
`xychart-beta` blocks (report.md; GitHub renders them). Every text drawn is fixed or a number: labels
are the Label enum's values, never dataset text, and the SVG escapes them all the same.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from bot.audit.model import LABEL_ORDER, Label, TaskResult


@dataclass(frozen=True)
class Bin:
    name: str  # as drawn: no character that Mermaid or HTML treats specially
    low: float
    high: float  # exclusive, except the last bin, which is exactly 1.0 (low == high)

    def holds(self, x: float) -> bool:
        return x == self.low if self.low == self.high else self.low <= x < self.high


# [0, 0.2), [0.2, 0.4), [0.4, 0.6), [0.6, 0.8), [0.8, 1.0), and 1.0 itself: "every mutant killed" apart
BINS: tuple[Bin, ...] = (
    Bin("0.0-0.2", 0.0, 0.2),
    Bin("0.2-0.4", 0.2, 0.4),
    Bin("0.4-0.6", 0.4, 0.6),
    Bin("0.6-0.8", 0.6, 0.8),
    Bin("0.8-1.0", 0.8, 1.0),
    Bin("1.0", 1.0, 1.0),
)
BINS_NOTE = "Bins are half-open, [0.0, 0.2) and so on; the last holds completeness 1.0 exactly."

# Okabe-Ito: told apart with every common colour-vision deficiency
COLOURS: dict[Label, str] = {
    Label.STRONG: "#0072B2",  # blue
    Label.WEAK: "#E69F00",  # orange
    Label.WRONG: "#CC79A7",  # reddish purple
    Label.UNLABELED: "#999999",  # grey
}


def bin_of(x: float) -> int:
    """The index in BINS of a completeness; values outside [0, 1] go to the nearest end."""
    for i, b in enumerate(BINS):
        if b.holds(x):
            return i
    return 0 if x < BINS[0].low else len(BINS) - 1


@dataclass(frozen=True)
class Histogram:
    counts: dict[Label, tuple[int, ...]]  # every label of LABEL_ORDER, one count per bin of BINS
    without: int  # tasks with no completeness (not evaluated, refuted, or no mutant decided)

    def total(self, label: Label) -> int:
        return sum(self.counts[label])

    @property
    def peak(self) -> int:
        return max((n for row in self.counts.values() for n in row), default=0)


def histogram(results: Sequence[TaskResult]) -> Histogram:
    counts = {lb: [0] * len(BINS) for lb in LABEL_ORDER}
    without = 0
    for r in results:
        c = r.score.completeness if r.score is not None else None
        if c is None or math.isnan(c):
            without += 1
        else:
            counts[r.label][bin_of(c)] += 1
    return Histogram({lb: tuple(row) for lb, row in counts.items()}, without)


def _tasks(n: int) -> str:
    return f"{n} task" if n == 1 else f"{n} tasks"


# ------------------------------------------------------------------------------------------- Mermaid


def histogram_mermaid(results: Sequence[TaskResult]) -> list[str]:
    """Markdown lines: one fenced Mermaid `xychart-beta` bar chart per label that has a completeness.

    One chart per label: xychart draws no legend, so bar series of several labels could not be told apart.
    Titles and categories are quoted and hold only letters, digits, spaces, dots and dashes.
    """
    h = histogram(results)
    lines: list[str] = []
    for lb in LABEL_ORDER:
        total = h.total(lb)
        if not total:
            continue
        noun = "task" if total == 1 else "tasks"
        who = f"{total} unlabeled {noun}" if lb is Label.UNLABELED else f"{total} {noun} labelled {lb.value}"
        lines += [
            "```mermaid",
            "xychart-beta",
            f'    title "Completeness of {who}"',
            '    x-axis "Completeness" [' + ", ".join(f'"{b.name}"' for b in BINS) + "]",
            f'    y-axis "Tasks" 0 --> {max(h.counts[lb])}',
            "    bar [" + ", ".join(map(str, h.counts[lb])) + "]",
            "```",
            "",
        ]
    if not lines:
        return ["No task has a completeness.", ""]
    return [*lines, f"{BINS_NOTE} Not drawn: {_tasks(h.without)} without a completeness.", ""]


# ----------------------------------------------------------------------------------------------- SVG

WIDTH, HEIGHT = 760, 330
LEFT, RIGHT, TOP, BOTTOM = 56, 170, 24, 58  # margins around the plot; the legend sits in RIGHT
FONT = 'font-family="system-ui, sans-serif"'


def _f(x: float) -> str:
    """Coordinates with one decimal: the same bytes on every platform."""
    return f"{x:.1f}"


def _step(peak: int) -> int:
    """A 1-2-5 tick step giving at most six ticks up to `peak`."""
    magnitude = 1
    while True:
        for m in (1, 2, 5):
            if peak <= 5 * m * magnitude:
                return m * magnitude
        magnitude *= 10


def histogram_svg(results: Sequence[TaskResult], element_id: str = "histogram") -> str:
    """An inline SVG grouped bar chart: one group per bin, one bar per label, with axes and a legend.

    Each bar and legend entry has a <title>, which browsers show on hover.
    """
    h = histogram(results)
    step = _step(max(h.peak, 1))
    top = step * math.ceil(max(h.peak, 1) / step)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    base = TOP + plot_h

    def y(n: float) -> float:
        return base - plot_h * n / top

    eid = escape(element_id)
    summary = "; ".join(f"{lb.value}: {_tasks(h.total(lb))}" for lb in LABEL_ORDER)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" id="{eid}" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
        f'height="{HEIGHT}" role="img" aria-labelledby="{eid}-title">',
        f'<title id="{eid}-title">{escape(f"Completeness histogram per label ({summary})")}</title>',
        f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
    ]
    # horizontal grid lines and y tick labels
    for n in range(0, top + 1, step):
        out.append(f'<line x1="{LEFT}" y1="{_f(y(n))}" x2="{LEFT + plot_w}" y2="{_f(y(n))}" stroke="#dddddd"/>')
        out.append(f'<text x="{LEFT - 8}" y="{_f(y(n) + 4)}" text-anchor="end" font-size="12" {FONT} '
                   f'fill="#333333">{n}</text>')
    # bars, grouped by bin
    group = plot_w / len(BINS)
    bar = group * 0.8 / len(LABEL_ORDER)
    for i, b in enumerate(BINS):
        x0 = LEFT + i * group + group * 0.1
        for j, lb in enumerate(LABEL_ORDER):
            n = h.counts[lb][i]
            if not n:
                continue
            x = x0 + j * bar
            tip = escape(f"label {lb.value}, completeness {b.name}: {_tasks(n)}")
            out.append(f'<rect x="{_f(x)}" y="{_f(y(n))}" width="{_f(bar - 1)}" height="{_f(base - y(n))}" '
                       f'fill="{COLOURS[lb]}"><title>{tip}</title></rect>')
            out.append(f'<text x="{_f(x + (bar - 1) / 2)}" y="{_f(y(n) - 4)}" text-anchor="middle" '
                       f'font-size="11" {FONT} fill="#333333">{n}</text>')
        out.append(f'<text x="{_f(LEFT + (i + 0.5) * group)}" y="{base + 18}" text-anchor="middle" '
                   f'font-size="12" {FONT} fill="#333333">{escape(b.name)}</text>')
    # axes and their titles
    out += [
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{base}" stroke="#333333"/>',
        f'<line x1="{LEFT}" y1="{base}" x2="{LEFT + plot_w}" y2="{base}" stroke="#333333"/>',
        f'<text x="{_f(LEFT + plot_w / 2)}" y="{HEIGHT - 14}" text-anchor="middle" font-size="13" {FONT} '
        f'fill="#111111">Completeness (killed / decided mutants)</text>',
        f'<text x="16" y="{_f(TOP + plot_h / 2)}" text-anchor="middle" font-size="13" {FONT} fill="#111111" '
        f'transform="rotate(-90 16 {_f(TOP + plot_h / 2)})">Tasks</text>',
    ]
    # legend: a swatch and "label (n)" per label
    lx = LEFT + plot_w + 24
    out.append(f'<text x="{lx}" y="{TOP + 12}" font-size="13" font-weight="bold" {FONT} fill="#111111">'
               "Human label</text>")
    for j, lb in enumerate(LABEL_ORDER):
        ly = TOP + 28 + j * 22
        out.append(f'<g><title>{escape(f"label {lb.value}: {_tasks(h.total(lb))} with a completeness")}</title>'
                   f'<rect x="{lx}" y="{ly}" width="14" height="14" fill="{COLOURS[lb]}"/>'
                   f'<text x="{lx + 20}" y="{ly + 12}" font-size="13" {FONT} fill="#111111">'
                   f"{escape(lb.value)} ({h.total(lb)})</text></g>")
    out.append(f'<text x="{lx}" y="{TOP + 28 + len(LABEL_ORDER) * 22 + 14}" font-size="12" {FONT} '
               f'fill="#555555">{escape(f"{_tasks(h.without)} without")}</text>')
    out.append(f'<text x="{lx}" y="{TOP + 28 + len(LABEL_ORDER) * 22 + 30}" font-size="12" {FONT} '
               'fill="#555555">a completeness</text>')
    out.append("</svg>")
    return "\n".join(out)
