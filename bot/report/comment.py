"""The pull-request comment (and the step summary, which is the same report untrimmed). Pure code.

Everything from user files goes through `esc`/`code`: no `@` pings, nothing that breaks out of a cell
or a <details> block. GitHub refuses comments over 65,536 characters, so the longest sections are
trimmed with a note pointing at the step summary, which always has the full report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.report.fmt import pct, proved_text
from bot.report.markdown import code, esc
from bot.symbolic.compare import Change, MethodDelta
from bot.symbolic.gate import why_unscored
from bot.symbolic.results import CaseStatus, Gate, MutantStatus, Surviving

MAX_COMMENT = 65_536
TITLE = "Dafny Spec Score"
PASSED = "passed"
FAILED = "failed"
NOTHING = "No Dafny specs with tests were changed in this pull request: nothing to score."
TRIMMED = "Some rows were left out to fit GitHub's comment size limit; the job's step summary has the full report."
FOLD_UNCHANGED = "Methods whose scores did not change"


@dataclass(frozen=True)
class CommentInput:
    deltas: tuple[MethodDelta, ...]
    gate: Gate
    failures: tuple[str, ...]  # gate failures (empty: passed)
    verifier: str
    marker: str  # hidden marker identifying the bot's comment for this comment-id
    details_url: str = ""  # link to the workflow run, when known
    warnings: tuple[str, ...] = ()  # unscored methods let through (allow-unscored)


def _arrow(d: MethodDelta) -> str:
    if d.head is not None and not d.head.decided:
        was = f" (was {pct(d.base.correctness)}, {pct(d.base.completeness)})" if d.base and d.base.decided else ""
        return f"not scored: {why_unscored(d.head)}{was}"
    if d.change is Change.NEW:
        return "new"
    if d.change is Change.REMOVED:
        return "removed"
    parts = []
    if d.correctness_lost:
        parts.append(f"correctness ▼ (was {pct(d.base.correctness if d.base else None)})")
    if d.correctness_regained:
        parts.append(f"correctness ▲ (was {pct(d.base.correctness if d.base else None)})")
    if d.completeness_delta is not None and abs(d.completeness_delta) > 1e-9:
        arrow = "▲" if d.completeness_delta > 0 else "▼"
        parts.append(f"completeness {arrow} {abs(d.completeness_delta):.2f} "
                     f"(was {pct(d.base.completeness if d.base else None)})")
    if d.new_survivors and d.base is not None:
        parts.append(f"{len(d.new_survivors)} new surviving mutant(s)")
    if d.lost_pins:
        parts.append(f"{len(d.lost_pins)} case(s) no longer pinned")
    return "; ".join(parts) if parts else "="


def _row(d: MethodDelta) -> str:
    s = d.head or d.base
    assert s is not None
    corr = pct(d.head.correctness) if d.head else "–"
    comp = pct(d.head.completeness) if d.head else "–"
    pinned = (d.head.pinned_text or "n/a") if d.head else "–"
    return f"| {code(d.file)} | {code(d.method)} | {corr} | {comp} | {pinned} | {esc(_arrow(d))} |"


def _table(rows: Sequence[MethodDelta]) -> list[str]:
    return ["| File | Method | Correctness | Completeness | Pinned | Change vs base |", "|---|---|---:|---:|---:|---|",
            *(_row(d) for d in rows)]


@dataclass
class _Section:
    summary: str
    head: list[str]  # lines before the rows (not trimmed)
    rows: list[str]  # trimmable lines

    def render(self, limit: int | None = None) -> list[str]:
        rows = self.rows if limit is None else self.rows[:limit]
        cut = len(self.rows) - len(rows)
        lines = [f"<details><summary>{self.summary}</summary>", "", *self.head, *rows]
        if cut:
            lines += ["", f"... {cut} more row(s) left out (see the step summary)."]
        return [*lines, "", "</details>", ""]


FOUND_BY = "found by the "  # a pin-check witness's description (results.MethodScore.witnesses)
LEGEND = ("(solver), (search): found by the pin check, in the verifier's counterexample or by a search around the "
          "expected output, then proved accepted; (new): accepted at head and not at base. The others are mutants "
          "of the expected output, proved accepted.")


def _sections(inp: CommentInput) -> list[_Section]:
    heads = [d for d in inp.deltas if d.head is not None]
    out: list[_Section] = []
    # a fix the verifier proved comes first: it is what a reviewer can act on at once
    fixes = [(d, d.head.suggestions[0]) for d in heads if d.head is not None and d.head.suggestions]
    if fixes:
        out.append(_Section(
            f"Suggested clauses ({len(fixes)}): stronger postconditions the verifier proved",
            ["Each clause, added to its method's `ensures`, is proved to accept every test case and to reject every "
             "wrong output listed below for that method.", "",
             "| Method | Add after line | Clause | What was proved |", "|---|---:|---|---|"],
            [f"| {code(d.method)} | {g.line} | {code('ensures ' + g.clause)} | {esc(proved_text(g))} |"
             for d, g in fixes],
        ))
    # the pin check's witnesses first: each is one other output the spec accepts, proved so
    survivors = [(d, s) for d in heads for s in (d.head.witnesses if d.head else ())]
    survivors += [(d, s) for d in heads for s in (d.head.surviving if d.head else ())]
    if survivors:
        fresh = {(d.file, d.method, s.case, s.value) for d in heads for s in d.new_survivors if d.base is not None}
        # one row per case: its inputs and expected output once, every wrong output it accepts in one cell
        grouped: dict[tuple[str, str, str], list[tuple[MethodDelta, Surviving]]] = {}
        for d, s in survivors:
            grouped.setdefault((d.file, d.method, s.case), []).append((d, s))
        rows = []
        for same in grouped.values():
            d, first = same[0]
            values = ", ".join(
                code(s.value) + (f" ({esc(s.description.removeprefix(FOUND_BY))})" if s.description.startswith(FOUND_BY)
                                 else "")
                + (" (new)" if (d.file, d.method, s.case, s.value) in fresh else "") for _, s in same)
            rows.append(f"| {code(d.method)} | {esc(first.case)} | {code(first.inputs)} | {code(first.expected)} "
                        f"| {values} |")
        out.append(_Section(
            f"Surviving outputs ({len(survivors)}): wrong outputs the spec accepts",
            ["Each row is a test case and the outputs the spec accepts although the test expects another: "
             "strengthen the `ensures` clauses so that they are rejected. "
             + LEGEND, "",
             "| Method | Case | Inputs | Expected | Also accepted |", "|---|---|---|---|---|"],
            rows,
        ))
    failing = [(d, c) for d in heads for c in (d.head.cases if d.head else ())
               if c.status in (CaseStatus.REFUTED, CaseStatus.PRECONDITION_VIOLATED)]
    if failing:
        out.append(_Section(
            f"Failing cases ({len(failing)}): expected outputs (or test inputs) the spec is proved to reject",
            ["| Method | Case | Inputs | Expected | Rejected by |", "|---|---|---|---|---|"],
            [f"| {code(d.method)} | {esc(c.name)} | {code(c.inputs)} | {code(c.expected)} "
             f"| {code((c.clause or c.message)[:300])} |" for d, c in failing],
        ))
    unknown = []
    for d in heads:
        assert d.head is not None
        for c in d.head.cases:
            if not c.status.scored and c.status is not CaseStatus.PRECONDITION_VIOLATED:
                why = c.reason.value if c.reason else c.status.value
                unknown.append(f"| {code(d.method)} | {esc(c.name)} | {why} | {code(c.message[:300])} |")
            for m in c.mutants:
                if m.status is MutantStatus.UNKNOWN:
                    why = m.reason.value if m.reason else "unknown"
                    unknown.append(f"| {code(d.method)} | {esc(c.name)} (mutant {code(m.value)}) | {why} "
                                   f"| {code(m.message[:300])} |")
        for p in d.head.problems:
            unknown.append(f"| {code(d.method)} | unreadable case | – | {code(p[:300])} |")
    if unknown:
        out.append(_Section(
            f"Unknown ({len(unknown)}): neither acceptance nor rejection proved, not counted either way",
            ["| Method | Case | Reason | Verifier |", "|---|---|---|---|"],
            unknown,
        ))
    unchanged = [d for d in inp.deltas if d.change is Change.UNCHANGED]
    if unchanged:
        table = _table(unchanged)
        out.append(_Section(f"{FOLD_UNCHANGED} ({len(unchanged)})", table[:2], table[2:]))
    return out


def _headline(inp: CommentInput) -> list[str]:
    passed = not inp.failures
    icon = "✅" if passed else "❌"
    lines = [
        inp.marker,
        f"## {icon} {TITLE}: {PASSED if passed else FAILED}",
        "",
        f"Thresholds: correctness ≥ {inp.gate.min_correctness:.2f}, completeness ≥ {inp.gate.min_completeness:.2f}.",
    ]
    regressions = sum(d.regression for d in inp.deltas)
    if regressions:
        lines.append(f"**{regressions} regression(s)** against the base branch.")
    for f in inp.failures:
        lines.append(f"- {esc(f)}")
    for w in inp.warnings:
        lines.append(f"- ⚠️ {esc(w)}")
    return [*lines, ""]


def render_comment(inp: CommentInput, limit: int | None = MAX_COMMENT) -> str:
    """The comment body; with limit=None the untrimmed report (for the step summary)."""
    if not inp.deltas:
        return "\n".join([inp.marker, f"## {TITLE}", "", NOTHING, ""])
    changed = [d for d in inp.deltas if d.change is not Change.UNCHANGED]
    top = _headline(inp) + (_table(changed) if changed else ["All scored methods are unchanged against base."]) + [""]
    footer = [f"<sub>Verifier: Dafny {esc(inp.verifier)}"
              + (f" · [details]({inp.details_url})" if inp.details_url else "") + "</sub>", ""]
    sections = _sections(inp)

    def build(limits: dict[int, int]) -> str:
        body = list(top)
        for k, s in enumerate(sections):
            body += s.render(limits.get(k))
        if limits:
            body += [f"> {TRIMMED}", ""]
        return "\n".join(body + footer)

    limits: dict[int, int] = {}
    text = build(limits)
    # trim the longest section first, halving its rows until the whole fits
    while limit is not None and len(text) > limit:
        sizes = {k: len("\n".join(s.render(limits.get(k)))) for k, s in enumerate(sections)}
        trimmable = [k for k in sizes if limits.get(k, len(sections[k].rows)) > 0]
        if not trimmable:
            return text[: limit - 200] + f"\n\n> {TRIMMED}\n"
        k = max(trimmable, key=lambda i: sizes[i])
        limits[k] = limits.get(k, len(sections[k].rows)) // 2
        text = build(limits)
    return text
