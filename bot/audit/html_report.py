"""report.html: the audit on one self-contained page. Pure code.

One HTML file with inline CSS and inline SVG, no script, no font, nothing fetched: its Content Security
Policy forbids all of that, so the page renders the same offline, as a CI artifact or from a mail
attachment. The counts come from bot.audit.report (the markdown report's definitions) and the chart
from bot.audit.charts. Every text from the dataset (task ids, methods, files, causes, values) goes
through html.escape; nothing depends on the clock or on input order.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from html import escape

from bot.audit.charts import BINS_NOTE, histogram_svg
from bot.audit.model import LABEL_ORDER, VERDICT_ORDER, TaskResult, Verdict
from bot.audit.report import (
    AGREEING,
    NOT_EXPOSED,
    TITLE,
    accepted_wrong_outputs,
    agreement,
    confusion_counts,
    disagreeing,
    ordered,
    rate,
    refuted_cases,
    settings_shown,
)
from bot.report.fmt import pct, proved_text
from bot.symbolic.results import CaseStatus, EverywhereStatus

MAX_OUTPUTS = 8  # wrong outputs listed per task; results.json has them all
MAX_TEXT = 200  # characters of one value; values can be whole lists

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

CSS = """
body { margin: 0; background: #ffffff; color: #1a1a1a; font: 14px/1.45 system-ui, sans-serif; }
main { max-width: 1140px; margin: 0 auto; padding: 20px 28px 40px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid #dddddd; padding-bottom: 4px; }
p { margin: 6px 0; }
.settings { color: #555555; }
.headline { display: flex; flex-wrap: wrap; gap: 14px; margin: 16px 0 4px; }
.stat { border: 1px solid #cccccc; border-radius: 6px; padding: 10px 16px; min-width: 220px; }
.stat .big { font-size: 26px; font-weight: 700; }
.stat .what { color: #555555; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border: 1px solid #cccccc; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
td.agree { background: #dbeaf6; font-weight: 700; }
table.tasks { width: 100%; }
table.tasks th { white-space: nowrap; }
table.tasks th.evidence { white-space: normal; }
table.tasks th.score { white-space: normal; hyphens: manual; }
.file { overflow-wrap: anywhere; }
table.tasks td { overflow-wrap: anywhere; }
table.tasks td.method, table.tasks td.method code { overflow-wrap: break-word; }
table.tasks td.id { min-width: 5ch; }
table.tasks td.word { white-space: nowrap; }
tr.disagree td { background: #fff1cc; }
tr.disagree td:first-child { box-shadow: inset 4px 0 0 #d08a00; }
code { font: 12px/1.4 ui-monospace, monospace; background: #f4f4f4; padding: 0 3px; border-radius: 3px; }
code.accepted { background: #fbe3d0; }
code.suggested { background: #dcf3dc; }
.suggestion { margin-top: 6px; }
ul.outputs { margin: 0; padding-left: 16px; }
.muted { color: #666666; }
.file { font-size: 12px; }
.verdict { font-weight: 700; }
span.word { white-space: nowrap; }
svg { max-width: 100%; height: auto; }
"""


def _e(text: str) -> str:
    return escape(text, quote=True)


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= MAX_TEXT else flat[:MAX_TEXT] + " …"


def _code(text: str, cls: str = "") -> str:
    attr = f' class="{cls}"' if cls else ""
    return f"<code{attr}>{_e(_short(text))}</code>"


def _headline(tasks: list[TaskResult], settings: Mapping[str, object]) -> list[str]:
    evaluated = sum(r.evaluated for r in tasks)
    agree, judged = agreement(tasks)
    agreement_text = (
        f"{agree} of {judged} labelled and evaluated tasks got the verdict their label names"
        if judged
        else "no task is both labelled and evaluated"
    )
    settings_text = ", ".join(f"{name} {value}" for name, value in settings_shown(settings))
    return [
        f"<h1>{_e(TITLE.lstrip('# '))}</h1>",
        f'<p class="settings">Settings: {_e(settings_text)}.</p>',
        '<div class="headline">',
        f'<div class="stat" id="coverage"><div class="big">{evaluated} / {len(tasks)}</div>'
        f'<div class="what">tasks evaluated (coverage {rate(evaluated, len(tasks))})</div></div>',
        f'<div class="stat" id="agreement"><div class="big">{rate(agree, judged)}</div>'
        f'<div class="what">agreement with the labels: {_e(agreement_text)}</div></div>',
        "</div>",
    ]


def _confusion(tasks: list[TaskResult]) -> list[str]:
    counts = confusion_counts(tasks)
    head = "".join(f'<th scope="col">{_e(v.value)}</th>' for v in VERDICT_ORDER)
    lines = [
        "<h2>Verdicts × human labels</h2>",
        '<table class="confusion" id="confusion">',
        f'<thead><tr><th scope="col">Label ↓ / verdict →</th>{head}<th scope="col">Total</th></tr></thead>',
        "<tbody>",
    ]
    for lb in LABEL_ORDER:
        cells = "".join(
            f'<td class="n{" agree" if AGREEING.get(lb) is v else ""}">{counts[lb, v]}</td>' for v in VERDICT_ORDER
        )
        total = sum(counts[lb, v] for v in VERDICT_ORDER)
        lines.append(f'<tr><th scope="row">{_e(lb.value)}</th>{cells}<td class="n">{total}</td></tr>')
    totals = [sum(counts[lb, v] for lb in LABEL_ORDER) for v in VERDICT_ORDER]
    cells = "".join(f'<td class="n">{n}</td>' for n in totals)
    lines += [
        f'<tr><th scope="row">Total</th>{cells}<td class="n">{sum(totals)}</td></tr>',
        "</tbody></table>",
        '<p class="muted">Highlighted: the verdict each label names (agreement). Unlabeled tasks and tasks not '
        "evaluated (inconclusive) count for neither side.</p>",
    ]
    return lines


def _histogram(tasks: list[TaskResult]) -> list[str]:
    return [
        "<h2>Completeness histogram</h2>",
        '<p class="muted">Tasks per completeness bin, one bar per human label. '
        f"{_e(BINS_NOTE)} Hover a bar for its count.</p>",
        "<figure>",
        histogram_svg(tasks),
        "</figure>",
    ]


_BREAK_AFTER = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[_.])")  # camelCase and snake_case word ends


def _method(name: str) -> str:
    """A method name that wraps only between its words (`<wbr>` at each), never mid-word unless a word is wider
    than its column."""
    if not name:
        return '<span class="muted">(no method)</span>'
    words = _BREAK_AFTER.split(_short(name))
    return "<code>" + "<wbr>".join(_e(w) for w in words if w) + "</code>"


def _evidence(r: TaskResult) -> str:
    """What a verdict rests on: the refuted cases and the clause proved to reject each, or the wrong outputs the
    spec accepts, or (strong) that nothing was exposed."""
    refuted = refuted_cases(r)
    if r.verdict is Verdict.WRONG and refuted:
        items = []
        for c in refuted[:MAX_OUTPUTS]:
            if c.status is CaseStatus.PRECONDITION_VIOLATED:
                items.append(f"<li>case {_e(c.name)}: the <code>requires</code> rejects {_code(c.inputs)}</li>")
                continue
            by = f"rejected by {_code(c.clause)}" if c.clause else "rejected by the clauses together"
            items.append(f"<li>case {_e(c.name)}: {_code(c.inputs)} → expected {_code(c.expected)}, {by}</li>")
        if len(refuted) > MAX_OUTPUTS:
            items.append(f'<li class="muted">… and {len(refuted) - MAX_OUTPUTS} more (see results.json)</li>')
        return '<ul class="outputs">' + "".join(items) + "</ul>"
    return _outputs(r) + _suggestion(r) + _every_input(r)


def _every_input(r: TaskResult) -> str:
    """What the spec says on every input, when a witness shows it leaves the output open (beyond the tests)."""
    e = r.score.everywhere if r.score is not None else None
    if e is None or e.status is not EverywhereStatus.NOT_DETERMINED:
        return ""
    return (f'<div class="every">On every input: for {_code(e.inputs)} the spec accepts both {_code(e.outputs[0])} '
            f"and {_code(e.outputs[1])}</div>")


def _suggestion(r: TaskResult) -> str:
    """The best verified suggestion, with what was proved of it."""
    if r.score is None or not r.score.suggestions:
        return ""
    g = r.score.suggestions[0]
    return (f'<div class="suggestion">Suggested clause: {_code("ensures " + g.clause, "suggested")}'
            f'<div class="muted">{_e(proved_text(g))}</div></div>')


def _outputs(r: TaskResult) -> str:
    found = accepted_wrong_outputs(r)
    if not found:
        return '<span class="muted">none</span>'
    items = [
        f"<li>{_code(v.inputs)} → expected {_code(v.expected)}, accepted {_code(v.value, 'accepted')}</li>"
        for v in found[:MAX_OUTPUTS]
    ]
    if len(found) > MAX_OUTPUTS:
        items.append(f'<li class="muted">… and {len(found) - MAX_OUTPUTS} more (see results.json)</li>')
    return '<ul class="outputs">' + "".join(items) + "</ul>"


def _disagreements(tasks: list[TaskResult]) -> list[str]:
    found = disagreeing(tasks)
    lines = ["<h2>Disagreements</h2>"]
    if not found:
        return [*lines, "<p>Every labelled and evaluated task got the verdict its label names.</p>"]
    lines += [
        '<p class="muted">Labelled tasks whose verdict is not the one their label names, with what the verdict '
        "rests on. They are highlighted in the table of tasks too.</p>",
        '<table class="tasks" id="disagreements">',
        '<thead><tr><th>Task</th><th>Method</th><th>Label</th><th>Verdict</th><th class="evidence">Evidence</th>'
        "</tr></thead>",
        "<tbody>",
    ]
    for r in found:
        evidence = (f'<span class="muted">{_e(NOT_EXPOSED[r.label])}</span>'
                    if r.verdict is Verdict.STRONG and r.label in NOT_EXPOSED else _evidence(r))
        lines.append(
            f'<tr class="disagree"><td class="id">{_e(r.task_id)}</td><td class="method">{_method(r.method)}</td>'
            f"<td class=\"word\">{_e(r.label.value)}</td>"
            f"<td class=\"word\"><span class=\"verdict\">{_e(r.verdict.value)}</span></td>"
            f"<td>{evidence}</td></tr>"
        )
    return [*lines, "</tbody></table>"]


def _per_task(tasks: list[TaskResult]) -> list[str]:
    disagree = {id(r) for r in disagreeing(tasks)}
    lines = [
        "<h2>Per task</h2>",
        '<p class="muted">Evidence: the refuted cases, or the wrong outputs the spec accepts (inputs → expected, '
        "accepted)." + (" Highlighted: the label and the verdict disagree." if disagree else "") + "</p>",
        '<table class="tasks" id="tasks">',
        # the scores' headers may break at their soft hyphen on a narrow screen; the other short cells never break
        '<thead><tr><th>Task</th><th>Method</th><th>Label</th><th>Verdict</th><th class="score">Correct&shy;ness</th>'
        '<th class="score">Complete&shy;ness</th><th class="evidence">Evidence</th>'
        "</tr></thead>",
        "<tbody>",
    ]
    for r in tasks:
        s = r.score
        cause = f'<div class="muted">{_e(_short(r.cause))}</div>' if r.cause else ""
        row = ' class="disagree"' if id(r) in disagree else ""
        lines.append(
            f"<tr{row}><td class=\"id\">{_e(r.task_id)}</td><td class=\"method\">{_method(r.method)}"
            f"<div class=\"muted file\">{_e(r.file)}</div></td>"
            f"<td class=\"word\">{_e(r.label.value)}</td>"
            f"<td><span class=\"verdict word\">{_e(r.verdict.value)}</span>{cause}</td>"
            f'<td class="n">{pct(s.correctness if s else None)}</td>'
            f'<td class="n">{pct(s.completeness if s else None)}</td><td>{_evidence(r)}</td></tr>'
        )
    if not tasks:
        lines.append('<tr><td colspan="7" class="muted">No task.</td></tr>')
    return [*[line for line in lines if line], "</tbody></table>"]


def report_html(results: Sequence[TaskResult], settings: Mapping[str, object]) -> str:
    tasks = ordered(results)
    body = [*_headline(tasks, settings), *_confusion(tasks), *_histogram(tasks), *_disagreements(tasks),
            *_per_task(tasks)]
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{_e(CSP)}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{_e(TITLE.lstrip('# '))}</title>",
            f"<style>{CSS}</style>",
            "</head>",
            "<body>",
            "<main>",
            *body,
            "</main>",
            "</body>",
            "</html>",
            "",
        ]
    )
