"""The body of the nightly audit's tracking issue (`audit-issue`). Pure code: no clock, no I/O.

One issue per audit, edited in place every night. Its body, in this order:

1. the hidden marker that finds it again (with the bot's login: see `bot.github.api.GitHubClient.find_issue`);
2. a headline: the dataset, the coverage, the agreement with the human labels and the verdict counts;
3. the "last run" line (date, run, commit): the only line a night without changes rewrites (`update_last_run`);
4. the changes since the baseline (the previous night's results), or why there are none;
5. the completeness histogram (Mermaid);
6. the disagreements between verdicts and labels, with their evidence.

GitHub refuses a body over 65,536 characters. Past that, whole blocks are left out from the end of each
section (a table row, a list item, a task's disagreement; never part of a code fence or of a `<details>`),
and a note says what is missing and that the step summary and the run's artifact hold the full report.
The coverage, agreement and disagreement texts are the report's own (`bot.audit.report`); dataset text is
escaped there and here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bot.audit.charts import histogram_mermaid
from bot.audit.model import VERDICT_ORDER, TaskResult
from bot.audit.report import agreement, disagreeing, disagreement_md, ordered, rate
from bot.report.markdown import code, esc

# GitHub's limit for an issue body, in characters.
ISSUE_BODY_LIMIT = 65_536
# Starts the last-run line; dataset text cannot hold it (esc turns `<` into `&lt;`), and it comes before any.
LAST_RUN_TAG = "<!-- dafny-spec-score:last-run -->"

# user-facing text
HEADING = "**Dafny Spec Score**: nightly audit of {dataset}."
NO_BASELINE = "No baseline: this is the first run, or the previous results could not be read. The next run compares."
NO_CHANGES = "No changes since the baseline."
CHANGES_HEADING = "## Changes since the baseline (run of {when})"
HISTOGRAM_HEADING = "## Completeness per label"
DISAGREEMENTS_HEADING = "## Disagreements"
NO_DISAGREEMENT = "Every labelled and evaluated task got the verdict its label names."
FULL_REPORT = "The full report (every section, every task) is in the step summary of {run} and in its results artifact."
TRIMMED = (
    "_Trimmed to fit GitHub's limit of {limit:,} characters for an issue: {missing} not shown here. "
    "The step summary of {run} and its results artifact (report.md) have the full report._"
)
NOTE_NO_BASELINE = "no baseline to compare with"
NOTE_CHANGED = "changes since the baseline below"
NOTE_UNCHANGED = "no changes since the baseline"
# room kept for the trimmed note (its counts are not known until the end)
NOTE_ROOM = 600


@dataclass(frozen=True)
class LastRun:
    """Where the numbers come from; the caller reads the clock and the GitHub context."""

    when: str  # e.g. "2024-05-02 03:14 UTC"
    run_url: str = ""  # the workflow run's page; "" outside GitHub Actions
    run_id: str = ""
    commit: str = ""  # the commit audited


@dataclass(frozen=True)
class TrackingInput:
    marker: str  # the hidden HTML comment that finds the issue again
    dataset: str  # the dataset as the workflow names it (the audit-root)
    results: Sequence[TaskResult]
    last_run: LastRun
    # the changes since the baseline as markdown lines (`bot.audit.changes.changes_md` without its heading,
    # which says "no changes" itself when there are none); None: no baseline
    changes: Sequence[str] | None
    changed: bool  # False: the baseline and this run agree on everything the changes compare


def size(text: str) -> int:
    """The characters GitHub may count: UTF-16 code units (an emoji is two), and a CR for every LF."""
    return len(text.encode("utf-16-le")) // 2 + text.count("\n")


def _url(url: str) -> str:
    # a markdown link's target must not close the link or hold spaces
    return url.replace(" ", "%20").replace("(", "%28").replace(")", "%29").replace("<", "%3C").replace(">", "%3E")


def _run(run: LastRun) -> str:
    if run.run_url:
        return f"[run {esc(run.run_id)}]({_url(run.run_url)})" if run.run_id else f"[the run]({_url(run.run_url)})"
    return "the run"


def last_run_line(inp: TrackingInput) -> str:
    """The line a night without changes rewrites: when, which run, which commit, and whether anything changed."""
    run = inp.last_run
    parts = [esc(run.when), _run(run) if run.run_url else ""]
    if run.commit:
        parts.append(f"commit {code(run.commit[:12])}")
    note = NOTE_NO_BASELINE if inp.changes is None else NOTE_CHANGED if inp.changed else NOTE_UNCHANGED
    return f"{LAST_RUN_TAG}**Last run:** {', '.join(p for p in parts if p)}: {note}."


def headline(inp: TrackingInput) -> list[str]:
    tasks = ordered(inp.results)
    evaluated = sum(r.evaluated for r in tasks)
    agree, judged = agreement(tasks)
    counts = ", ".join(f"{sum(r.verdict is v for r in tasks)} {v.value}" for v in VERDICT_ORDER)
    agreed = f"{agree} of {judged} labelled tasks ({rate(agree, judged)})" if judged else "no labelled task evaluated"
    return [
        HEADING.format(dataset=code(inp.dataset)),
        "",
        f"**Coverage:** {evaluated} of {len(tasks)} tasks evaluated ({rate(evaluated, len(tasks))}). "
        f"**Agreement:** {agreed}. **Verdicts:** {counts}.",
        "",
    ]


# ---------------------------------------------------------------------------------------------- blocks

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_TABLE_SEPARATOR = re.compile(r"^\|?\s*:?-{3,}")


def blocks(lines: Sequence[str]) -> list[list[str]]:
    """`lines` cut where the markdown may end: never inside a code fence or a `<details>` block, never
    between a table's header and its first row, never right after a heading. Blank lines stay with the
    block before them."""
    out: list[list[str]] = []
    current: list[str] = []
    i = 0
    glue = False  # the next line belongs to the current block (after a heading)
    while i < len(lines):
        line = lines[i]
        start = i
        fence = _FENCE.match(line)
        if fence:
            closer = fence.group(1)[0] * len(fence.group(1))
            i += 1
            while i < len(lines) and not lines[i].lstrip().startswith(closer):
                i += 1
            i += 1
        elif line.lstrip().lower().startswith("<details"):
            depth = 0
            while i < len(lines):
                depth += lines[i].lower().count("<details") - lines[i].lower().count("</details")
                i += 1
                if depth <= 0:
                    break
        elif line.startswith("|") and i + 1 < len(lines) and _TABLE_SEPARATOR.match(lines[i + 1]):
            i += 3 if i + 2 < len(lines) and lines[i + 2].startswith("|") else 2
        else:
            i += 1
        chunk = list(lines[start:i])
        if not line.strip():
            current += chunk  # a blank line ends nothing on its own
            continue
        if current and not glue:
            out.append(current)
            current = []
        current += chunk
        # a heading, or a table's title line, goes with what follows it
        j = i
        while j < len(lines) and not lines[j].strip():
            j += 1
        after = lines[j] if j < len(lines) else ""
        glue = line.startswith("#") or (not line.startswith("|") and after.startswith("|"))
    if current:
        out.append(current)
    return out


@dataclass(frozen=True)
class _Section:
    name: str  # how the trimmed note names what is missing
    head: list[str]  # always kept with the section (its heading)
    items: Iterable[list[str]]  # blocks, kept in order while they fit (made only as far as they are needed)
    count: int  # how many `items` there are
    counted: bool = False  # name the missing items by count ("3 of 10 disagreements")


def _sections(inp: TrackingInput) -> list[_Section]:
    heading = [CHANGES_HEADING.format(when=esc(inp.last_run.when)), ""]
    found = blocks(list(inp.changes)) if inp.changes is not None else []
    found = found or [[NO_BASELINE if inp.changes is None else NO_CHANGES, ""]]
    changes = _Section("the changes", heading, found, len(found))
    chart = blocks(histogram_mermaid(inp.results))
    histogram = _Section("the completeness histogram", [HISTOGRAM_HEADING, ""], chart, len(chart))
    disagree = disagreeing(ordered(inp.results))
    if not disagree:
        return [changes, histogram, _Section("disagreements", [DISAGREEMENTS_HEADING, ""], [[NO_DISAGREEMENT, ""]], 1)]
    items = (disagreement_md(r) for r in disagree)  # a large dataset's are many: render only those shown
    return [changes, histogram, _Section("disagreements", [DISAGREEMENTS_HEADING, ""], items, len(disagree), True)]


def _text(lines: Sequence[str]) -> str:
    return "".join(line + "\n" for line in lines)


def issue_body(inp: TrackingInput, limit: int = ISSUE_BODY_LIMIT) -> str:
    """The whole body: marker, headline, last-run line, changes, histogram, disagreements; under `limit`."""
    run = _run(inp.last_run)
    head = [inp.marker, *headline(inp), last_run_line(inp), ""]
    footer = ["---", FULL_REPORT.format(run=run)]
    body = _text(head)
    room = limit - size(body) - size(_text(footer)) - NOTE_ROOM
    missing: list[str] = []
    for section in _sections(inp):
        pieces = [_text(section.head)]
        used = size(pieces[0])
        for item in section.items:
            piece = _text(item)
            if used + size(piece) > room:
                break
            pieces.append(piece)
            used += size(piece)
        text = "".join(pieces)
        shown = len(pieces) - 1
        if shown < section.count:
            if section.counted:
                missing.append(f"{section.count - shown} of {section.count} {section.name}")
            else:
                missing.append(f"part of {section.name}" if shown else section.name)
        if shown == 0 and section.count:
            continue  # not even its first block: the heading alone would say nothing
        body += text
        room -= used
    if missing:
        listed = ", ".join(missing[:-1]) + (" and " if len(missing) > 1 else "") + missing[-1]
        body += _text([TRIMMED.format(limit=ISSUE_BODY_LIMIT, missing=listed, run=run), ""])
    return body + _text(footer)


def _last_run_index(lines: Sequence[str]) -> int | None:
    # the first one: the header comes before any dataset text (whose code blocks could quote the tag)
    return next((i for i, line in enumerate(lines) if line.startswith(LAST_RUN_TAG)), None)


def update_last_run(old_body: str, new_line: str) -> str | None:
    """`old_body` with its last-run line replaced by `new_line`; None when it has none (write it anew)."""
    lines = old_body.replace("\r\n", "\n").split("\n")
    i = _last_run_index(lines)
    return None if i is None else "\n".join([*lines[:i], new_line, *lines[i + 1 :]])


def edited_body(inp: TrackingInput, old_body: str, limit: int = ISSUE_BODY_LIMIT) -> str:
    """What to write over the issue's `old_body`. A night without changes keeps the old body and rewrites its
    last-run line only, when the old body was written with a baseline too (else its changes section would
    still say there was none); every other night writes the full body."""
    full = issue_body(inp, limit)
    if inp.changes is None or inp.changed:
        return full
    lines = old_body.replace("\r\n", "\n").split("\n")
    i = _last_run_index(lines)
    if i is None or lines[i].endswith(f": {NOTE_NO_BASELINE}."):
        return full
    updated = update_last_run(old_body, last_run_line(inp))
    return updated if updated is not None and size(updated) <= limit else full
