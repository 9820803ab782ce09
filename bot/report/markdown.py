"""Markdown report (also the base of the pull-request comment). Pure code.

Everything that comes from user files is escaped: no `@` mention pings, no HTML or markdown that
breaks out of a table cell or a <details> block.
"""

from __future__ import annotations

import html
import re

from bot.report.fmt import pct, proved_text
from bot.symbolic.results import UNTESTED_TEXT, MethodScore, method_notes

_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_{}[]<>()#+!|~"})


def esc(text: str, wrap: bool = False) -> str:
    """Escape user text for a markdown table cell or paragraph (`wrap`: as in `code`)."""
    # a zero-width joiner after @ keeps the text but stops GitHub from pinging
    return "<wbr>".join(html.escape(w, quote=False).translate(_MD_SPECIAL).replace("@", "@\u200d")
                        for w in _pieces(" ".join(text.translate(_BIDI).split()), wrap))


def fence(text: str, lang: str = "dafny") -> list[str]:
    """A fenced code block that user text cannot close: its fence is longer than any run of backticks in it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return [f"{ticks}{lang}", *(text.splitlines() or [""]), ticks]


# characters markdown still reads inside a raw <code> element: `n*n*n` would render as emphasis
_IN_CODE = str.maketrans({"|": "&#124;", "@": "&#64;", "`": "&#96;", "*": "&#42;", "\\": "&#92;", "~": "&#126;"})


# characters that reorder or hide the text around them (bidirectional controls, as in "Trojan Source"): shown by
# their code point, so that a hostile name cannot look like another
_BIDI = str.maketrans({c: f"<U+{c:04X}>" for c in (0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))})


def code(text: str, wrap: bool = False) -> str:
    """Inline code that survives backticks and pipes in user text (rendered inside <code>). With `wrap`, long
    words get line-break opportunities (for table cells: a table is as wide as its longest unbroken word)."""
    words = _pieces(" ".join(text.translate(_BIDI).split()), wrap)
    return "<code>" + "<wbr>".join(html.escape(w, quote=False).translate(_IN_CODE) for w in words) + "</code>"


def code_exact(text: str) -> str:
    """`code` that keeps every character visible as it is: a run of spaces stays as long (non-breaking), and any
    other blank or control character shows as its escape (`\\n`). For values that must not look like each
    other when they differ (two outputs of one witness), and for file names."""
    shown = "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in text.translate(_BIDI))
    return "<code>" + html.escape(shown, quote=False).translate(_IN_CODE).replace(" ", "&nbsp;") + "</code>"


def cell_code(text: str) -> str:
    """`code` for a table cell: long words wrap (a table is as wide as its longest unbroken word)."""
    return code(text, wrap=True)


def cell_esc(text: str) -> str:
    """`esc` for a table cell: long words wrap."""
    return esc(text, wrap=True)


def link(text: str, url: str) -> str:
    """A markdown link around already rendered `text` (from `code` or `esc`); the text alone without a url.
    Brackets in the text become entities, so that user text cannot end the link text early."""
    if not url:
        return text
    return "[" + text.replace("[", "&#91;").replace("]", "&#93;") + f"]({url})"


WORD = 16  # longest run of characters a wrapped cell keeps unbroken
_SOFT = re.compile(r"(?<=[/_.,:;=(\[{])|(?<=[a-z0-9])(?=[A-Z])")  # after punctuation, at camelCase word ends


def _pieces(text: str, wrap: bool) -> list[str]:
    """`text` in pieces between which a line may break: words longer than WORD at their soft breaks, packed
    greedily, and cut every WORD characters when a part is longer still (a 200-character string literal)."""
    if not wrap:
        return [text]
    out = [""]
    for run in re.split(r"(\s+)", text):
        if len(run) <= WORD or run.isspace():
            out[-1] += run
            continue
        parts = [p[i:i + WORD] for p in _SOFT.split(run) for i in range(0, len(p), WORD)]
        for k, part in enumerate(parts):
            if k and len(out[-1].rsplit(" ", 1)[-1]) + len(part) > WORD:
                out.append("")
            out[-1] += part
    return [w for w in out if w]


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
    rests = [(s, line) for s in ordered
             for line in [*method_notes(s), *([UNTESTED_TEXT] if s.untested else []),
                          *([s.everywhere.sentence] if s.everywhere is not None else [])]]
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
