"""The comment's table of methods: five columns at most, each score with its change against base, the method
linked to its line at the head commit and the clause a finding is about quoted and linked. Pure code."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.dafny.spans import EnsuresSpan
from bot.report.fmt import pct
from bot.report.links import Links
from bot.report.markdown import cell_code, cell_esc, link
from bot.report.sentences import finding_clause, short
from bot.symbolic.compare import Change, MethodDelta
from bot.symbolic.results import MethodScore

HEADER = ["| Method | Correctness | Completeness | Pinned | Clause |", "|---|---:|---:|---:|---|"]
# the README section that defines the statuses and the pin check (the project's URL: pyproject.toml)
DOCS = "https://github.com/dafny-spec-score/dafny-spec-score#statuses"
LEGEND = ("<sub>▲▼: change against base. Pinned: cases whose expected output is proved to be the only one the spec "
          "accepts. Unknown: neither acceptance nor rejection proved, counted neither way. Clause: the one that "
          f"rejects a test, or for a weak spec the first about the output. [Statuses]({DOCS})</sub>")
Spans = Mapping[tuple[str, str], EnsuresSpan]  # by (file, method)


def _score(now: float | None, was: float | None, d: MethodDelta) -> str:
    """A score cell: the head's value and its change against base ("0.60 ▼0.40")."""
    if d.head is None:
        return f"was {pct(was)}" if was is not None else "–"
    if d.base is None or now == was:
        return pct(now)
    if now is None or was is None:
        return f"{pct(now)} (was {pct(was)})"
    delta = now - was
    if abs(delta) < 1e-9:
        return pct(now)
    return f"{pct(now)} {'▲' if delta > 0 else '▼'}{abs(delta):.2f}"


def _pinned(s: MethodScore | None) -> int | None:
    return int(s.pinned_text.split("/")[0]) if s is not None and s.pinned_text else None


def _pins(d: MethodDelta) -> str:
    if d.head is None:
        return "–"
    now, was = _pinned(d.head), _pinned(d.base)
    moved = "" if now is None or was is None or now == was else f" {'▲' if now > was else '▼'}{abs(now - was)}"
    return (d.head.pinned_text or "n/a") + moved


def _url(links: Links | None, file: str, first: int, last: int = 0) -> str:
    return links.blob(file, first, last) if links is not None else ""


def _method(d: MethodDelta, links: Links | None, spans: Spans, with_file: bool) -> str:
    span = spans.get((d.file, d.method))
    line = span.line if span is not None else d.head.line if d.head is not None else 0
    # a removed method has no line at head to point at
    name = link(cell_code(d.method), _url(links, d.file, line) if d.head is not None else "")
    state = {Change.NEW: " (new)", Change.REMOVED: " (removed)"}.get(d.change, "")
    return name + state + (f"<br><sub>{cell_esc(d.file)}</sub>" if with_file else "")


def _clause(d: MethodDelta, links: Links | None, spans: Spans) -> str:
    text, at = finding_clause(d.head, spans.get((d.file, d.method))) if d.head is not None else ("", None)
    if not text:
        return "–"
    return link(cell_code(short(text, 300)), _url(links, d.file, at.first, at.last) if at is not None else "")


def methods_table(rows: Sequence[MethodDelta], links: Links | None = None, spans: Spans | None = None) -> list[str]:
    """The header and one row per method; the file goes under the method's name, only when the rows span several
    files (a sixth column would not fit a comment's width)."""
    spans = spans or {}
    with_file = len({d.file for d in rows}) > 1
    out = list(HEADER)
    for d in rows:
        h, b = d.head, d.base
        corr = _score(h.correctness if h else None, b.correctness if b else None, d)
        comp = _score(h.completeness if h else None, b.completeness if b else None, d)
        out.append(f"| {_method(d, links, spans, with_file)} | {corr} | {comp} | {_pins(d)} "
                   f"| {_clause(d, links, spans)} |")
    return out
