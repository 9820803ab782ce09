"""Markdown report (also the base of the pull-request comment). Pure code.

Everything that comes from user files is escaped: no `@` mention pings, no HTML or markdown that
breaks out of a table cell or a <details> block.
"""

from __future__ import annotations

import html
import re

from bot.report.fmt import pct, proved_text
from bot.symbolic.results import MethodScore, method_notes

_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_{}[]<>()#+!|~"})


def esc(text: str) -> str:
    """Escape user text for a markdown table cell or paragraph."""
    t = html.escape(text, quote=False).translate(_MD_SPECIAL)
    # a zero-width joiner after @ keeps the text but stops GitHub from pinging
    t = t.replace("@", "@\u200d")
    return " ".join(t.split())


def fence(text: str, lang: str = "dafny") -> list[str]:
    """A fenced code block that user text cannot close: its fence is longer than any run of backticks in it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return [f"{ticks}{lang}", *(text.splitlines() or [""]), ticks]


def code(text: str) -> str:
    """Inline code that survives backticks and pipes in user text (rendered inside <code>)."""
    t = html.escape(" ".join(text.split()), quote=False).replace("|", "&#124;").replace("@", "&#64;")
    t = t.replace("`", "&#96;")
    return f"<code>{t}</code>"


def render_markdown(scores: list[MethodScore], verifier_version: str) -> str:
    ordered = sorted(scores, key=lambda s: (s.file, s.line, s.method))
    lines = [
        "## Dafny Spec Score",
        "",
        "| File | Method | Correctness | Completeness | Surviving mutants |",
        "|---|---|---:|---:|---:|",
    ]
    for s in ordered:
        lines.append(
            f"| {code(s.file)} | {code(s.method)} | {pct(s.correctness)} | {pct(s.completeness)} "
            f"| {len(s.surviving)} |"
        )
    lines.append("")
    rests = [(s, line) for s in ordered for line in method_notes(s)]
    lines += [f"- {code(s.method)}: {esc(line)}" for s, line in rests] + ([""] if rests else [])
    survivors = [s for s in ordered if s.surviving]
    if survivors:
        lines += ["<details><summary>Surviving mutants: wrong outputs the spec accepts</summary>", ""]
        for s in survivors:
            lines.append(f"**{esc(s.method)}** ({code(s.file)})")
            lines.append("")
            lines.append("| Case | Inputs | Expected | Also accepted |")
            lines.append("|---|---|---|---|")
            for v in s.surviving:
                lines.append(f"| {esc(v.case)} | {code(v.inputs)} | {code(v.expected)} | {code(v.value)} |")
            lines.append("")
        lines += ["</details>", ""]
    for s in ordered:
        for g in s.suggestions[:1]:
            lines += [f"**Suggested clause for {esc(s.method)}** ({proved_text(g)}):", "",
                      *fence(f"ensures {g.clause}"), ""]
    failing = [(s, c) for s in ordered for c in s.cases if c.status.value != "verified"]
    if failing:
        lines += ["<details><summary>Cases not verified</summary>", ""]
        lines.append("| Method | Case | Status | Inputs | Expected |")
        lines.append("|---|---|---|---|---|")
        for s, c in failing:
            lines.append(
                f"| {esc(s.method)} | {esc(c.name)} | {c.status.value} | {code(c.inputs)} "
                f"| {code(c.expected)} |"
            )
        lines += ["", "</details>", ""]
    lines.append(f"<sub>Verifier: Dafny {esc(verifier_version)}</sub>")
    return "\n".join(lines) + "\n"
