"""The pull-request comment (and the step summary, which is the same report untrimmed). Pure code.

Read in ten seconds: one sentence per changed method (what changed and why it matters: sentences.py), the gate's
verdict, the table of methods (methods_table.py), then folded sections a reviewer opens when they care.
Everything from user files goes through `esc`/`code`: no `@` pings, nothing that breaks out of a cell
or a <details> block. GitHub refuses comments over 65,536 characters, so the longest sections are
trimmed with a note pointing at the step summary, which always has the full report.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

from bot.dafny.spans import EnsuresSpan
from bot.report.fmt import proved_text
from bot.report.links import Links
from bot.report.markdown import cell_code, cell_esc, code, esc, link
from bot.report.methods_table import LEGEND as TABLE_LEGEND
from bot.report.methods_table import methods_table
from bot.report.sentences import determinacy_sentence, method_sentence, rejecting_clause, spec_change_sentence
from bot.symbolic.compare import Change, MethodDelta
from bot.symbolic.gate import NOT_GATED
from bot.symbolic.results import (
    AS_MUTANT,
    FOUND_BY,
    SPEC_ERROR,
    CaseResult,
    CaseStatus,
    EverywhereStatus,
    Gate,
    MutantStatus,
    SpecChange,
    Surviving,
)

MAX_COMMENT = 65_536
TITLE = "Dafny Spec Score"
BEYOND = "**Beyond the tests** (proved on every input the `requires` admit, tested or not):"
PASSED = "passed"
FAILED = "failed"
NOTHING = "No Dafny specs with tests were changed in this pull request: nothing to score."
TRIMMED = "Some rows were left out to fit GitHub's comment size limit; the job's step summary has the full report."
FOLD_UNCHANGED = "Methods whose scores did not change"
UNCHANGED = "All scored methods are unchanged against base."
LOST_MEASURE = "a threshold that is not measured is not met"
MAX_SENTENCES = 10  # the opening stays a ten-second read; the table has every changed method


@dataclass(frozen=True)
class CommentInput:
    deltas: tuple[MethodDelta, ...]
    gate: Gate
    failures: tuple[str, ...]  # gate failures (empty: passed)
    verifier: str
    marker: str  # hidden marker identifying the bot's comment for this comment-id
    details_url: str = ""  # link to the workflow run, when known
    warnings: tuple[str, ...] = ()  # unscored methods let through (allow-unscored)
    links: Links | None = None  # the head commit's files: method names, lines and clauses link there
    spans: Mapping[tuple[str, str], EnsuresSpan] = field(default_factory=dict)  # by (file, method)
    changes: tuple[SpecChange, ...] = ()  # each changed method's spec against base's, on every input
    # errors of the files at head no method's score carries, "FILE:LINE[:COL]: REASON": a new spec file that does
    # not parse, a test file of no scored method that cannot be read
    file_errors: tuple[str, ...] = ()

    def url(self, file: str, first: int, last: int = 0) -> str:
        return self.links.blob(file, first, last) if self.links is not None else ""


def _rejected_by(d: MethodDelta, c: CaseResult, inp: CommentInput) -> str:
    """The clause that rejects a failing case, linked to its lines when they are known."""
    text, at = rejecting_clause(c, inp.spans.get((d.file, d.method)))
    return link(cell_code((text or c.message)[:300]), inp.url(d.file, at.first, at.last) if at is not None else "")


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


LEGEND = ("(solver), (search): found by the pin check, in the verifier's counterexample or by a search around the "
          "expected output, then proved accepted (and as a mutant too: \"mutant\"); (new): accepted at head and not "
          "at base. The others are mutants of the expected output, proved accepted.")


def _accepted(s: Surviving, fresh: bool) -> str:
    """A wrong output, with where it was found (a pin-check witness, also a mutant or not) and whether it is new at
    head: each distinct output once (results.MethodScore.wrong_outputs)."""
    found = ""
    if s.description.startswith(FOUND_BY):
        how, _, _ = s.description.removeprefix(FOUND_BY).partition(AS_MUTANT)
        found = f" ({esc(how)}{', mutant' if AS_MUTANT in s.description else ''})"
    return cell_code(s.value) + found + (" (new)" if fresh else "")


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
            [f"| {cell_code(d.method)} | {link(str(g.line), inp.url(d.file, g.line))} "
             f"| {cell_code('ensures ' + g.clause)} | {esc(proved_text(g))} |" for d, g in fixes],
        ))
    # each distinct wrong output once, the pin check's witnesses first: each is one other output the spec accepts
    survivors = [(d, s) for d in heads for s in (d.head.wrong_outputs if d.head else ())]
    if survivors:
        fresh = {(d.file, d.method, s.case, s.value) for d in heads for s in d.new_survivors if d.base is not None}
        # one row per case: its inputs and expected output once, every wrong output it accepts in one cell
        grouped: dict[tuple[str, str, str], list[tuple[MethodDelta, Surviving]]] = {}
        for d, s in survivors:
            grouped.setdefault((d.file, d.method, s.case), []).append((d, s))
        rows = []
        for same in grouped.values():
            d, first = same[0]
            values = ", ".join(_accepted(s, (d.file, d.method, s.case, s.value) in fresh) for _, s in same)
            rows.append(f"| {cell_code(d.method)} | {cell_esc(first.case)} | {cell_code(first.inputs)} "
                        f"| {cell_code(first.expected)} | {values} |")
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
            [f"| {cell_code(d.method)} | {cell_esc(c.name)} | {cell_code(c.inputs)} "
             f"| {cell_code(c.expected)} | {_rejected_by(d, c, inp)} |" for d, c in failing],
        ))
    unknown = []
    for d in heads:
        assert d.head is not None
        for c in d.head.cases:
            if not c.status.scored and c.status is not CaseStatus.PRECONDITION_VIOLATED:
                why = c.reason.value if c.reason else c.status.value
                unknown.append(f"| {cell_code(d.method)} | {cell_esc(c.name)} | {why} | {cell_code(c.message[:300])} |")
            for m in c.mutants:
                if m.status is MutantStatus.UNKNOWN:
                    why = m.reason.value if m.reason else "unknown"
                    unknown.append(f"| {cell_code(d.method)} | {cell_esc(c.name)} "
                                   f"(mutant {cell_code(m.value)}) | {why} | {cell_code(m.message[:300])} |")
        for p in d.head.problems:
            unknown.append(f"| {cell_code(d.method)} | unreadable case | – | {cell_code(p[:300])} |")
    if unknown:
        out.append(_Section(
            f"Unknown ({len(unknown)}): neither acceptance nor rejection proved, not counted either way",
            ["| Method | Case | Reason | Verifier |", "|---|---|---|---|"],
            unknown,
        ))
    unchanged = [d for d in inp.deltas if d.change is Change.UNCHANGED]
    if unchanged:
        table = methods_table(unchanged, inp.links, inp.spans)
        # the legend goes with the first table of methods shown
        legend = [TABLE_LEGEND, ""] if len(unchanged) == len(inp.deltas) else []
        out.append(_Section(f"{FOLD_UNCHANGED} ({len(unchanged)})", [*legend, *table[:2]], table[2:]))
    return out


def _sentences(inp: CommentInput) -> list[str]:
    """The opening: one sentence per changed method, what changed and why it matters."""
    changed = [d for d in inp.deltas if d.change is not Change.UNCHANGED]
    lines = [f"- {method_sentence(d, inp.spans.get((d.file, d.method)), inp.links)}"
             for d in changed[:MAX_SENTENCES]]
    if len(changed) > MAX_SENTENCES:
        lines.append(f"- ... and {len(changed) - MAX_SENTENCES} more changed method(s): see the table.")
    opening = [*lines, ""] if lines else [UNCHANGED, ""]
    # what the pull request changed in the specs on every input, tested or not
    # a method named as another file's is said with its file (one pull request may change several `Abs`)
    files: dict[str, set[str]] = {}
    for name, file in [*((d.method, d.file) for d in inp.deltas), *((c.method, c.file) for c in inp.changes)]:
        files.setdefault(name, set()).add(file)
    shared = {name for name, where in files.items() if len(where) > 1}
    every = [f"- {spec_change_sentence(c, c.method in shared)}" for c in inp.changes[:MAX_SENTENCES]]
    if len(inp.changes) > MAX_SENTENCES:
        every.append(f"- ... and {len(inp.changes) - MAX_SENTENCES} more changed spec(s).")
    # a changed spec that leaves its output open on some input, with the witness (information: no gate uses it
    # unless `require-determined` asks)
    open_ = [(d.method, d.file, d.head.everywhere) for d in changed if d.head is not None
             and d.head.everywhere is not None and d.head.everywhere.status is EverywhereStatus.NOT_DETERMINED]
    every += [f"- {determinacy_sentence(m, e, f if m in shared else '')}" for m, f, e in open_[:MAX_SENTENCES]]
    if len(open_) > MAX_SENTENCES:
        every.append(f"- ... and {len(open_) - MAX_SENTENCES} more spec(s) not determined.")
    return [*opening, *([BEYOND, "", *every, ""] if every else [])]


def _verdict(inp: CommentInput) -> list[str]:
    """The gate's verdict after the sentences: the thresholds, the regressions and every failure."""
    lines = [f"Thresholds: correctness ≥ {inp.gate.min_correctness:.2f}, "
             f"completeness ≥ {inp.gate.min_completeness:.2f}"
             + ("; every judged spec determined on every input." if inp.gate.require_determined else ".")]
    regressions = sum(d.regression for d in inp.deltas)
    unmeasured = sum(bool(d.lost) for d in inp.deltas)
    if regressions:
        lost = (f", {unmeasured} of them a measure the base had and the head lacks ({LOST_MEASURE})"
                if unmeasured else "")
        lines.append(f"**{regressions} regression(s)** against the base branch{lost}.")
    if inp.failures:  # one sentence that counts the list under it
        n = len(inp.failures)
        lines.append(f"**The check fails on {n} finding{'s' if n > 1 else ''}:**")
    lines += [f"- {esc(f)}" for f in inp.failures]
    spared = [w for w in inp.warnings if w.endswith(NOT_GATED)]
    lines += [f"- ⚠️ {esc(w)}" for w in inp.warnings if not w.endswith(NOT_GATED)]
    if spared:
        n = len(spared)
        lines += [f"{n} finding{'s' if n > 1 else ''} on methods this pull request did not change (reported, not "
                  "gated):", *(f"- {esc(w.removesuffix('; ' + NOT_GATED))}" for w in spared)]
    return [*lines, ""]


ERRORS = "**Errors in the pull request's files** (each keeps the methods it concerns from being scored):"
MAX_ERRORS = 10


class ErrorKind(Enum):
    """What a line of the pull request's files fails at (the review comment on it words it so)."""

    RESOLVE = "resolve"  # the spec file does not resolve (Dafny's own message, on the user's line)
    PARSE = "parse"  # the spec file does not parse
    TESTS = "tests"  # a test file, or one case of it, cannot be read


@dataclass(frozen=True)
class InputError:
    """One distinct error of a file at head, on one line, with the methods it keeps from being scored."""

    file: str
    line: int  # 0: the whole file (no line to comment on)
    message: str  # without the line: "unresolved identifier: z", "not valid TOML: Expected ..."
    kind: ErrorKind
    quoted: str = ""  # the line's text, as the verifier's message quoted it
    methods: tuple[tuple[str, str], ...] = ()  # the methods it concerns, (spec file, method), in the order met

    @property
    def what(self) -> str:
        """As the comment's list says it: "line 14: unresolved identifier: z (`ensures y == z + 1`)"."""
        at = f"line {self.line}: " if self.line > 0 else ""
        return f"{at}{self.message}" + (f" (`{self.quoted}`)" if self.quoted else "")


# a case's message (proofs.py generated_lines): "line N: MESSAGE (`THE LINE`)"
_SPEC_LINE = re.compile(r"^line (\d+): (.*?)(?: \(`(.*)`\))?$", re.DOTALL)
# a CaseProblem as text, "FILE:LINE: REASON", or a spec file's parse error, "FILE:LINE:COL: MESSAGE"
_PROBLEM = re.compile(r"^(.*?):(\d+)(?::\d+)?: (.*)$", re.DOTALL)
_REASON_LINE = re.compile(r"^line (\d+): (.*)$", re.DOTALL)  # a .dfy test file's reason naming its own line
NOT_PARSED = "the spec file does not parse: "  # a placeholder's note (bot/runner.py build_jobs)


def _problem(text: str, kind: ErrorKind) -> tuple[str, int, str] | None:
    where = _PROBLEM.match(text.split("\n")[0])
    if where is None:
        return None
    file, line, message = where.group(1), int(where.group(2)), where.group(3)
    inner = _REASON_LINE.match(message) if kind is ErrorKind.TESTS else None
    if inner is not None:  # "specs/test/u.dfy:2: line 3: `expect r == 6` has no `;`": the line it names
        line, message = int(inner.group(1)), inner.group(2)
    return file, line, message


def errors_in(deltas: Sequence[MethodDelta], file_errors: Sequence[str] = ()) -> list[InputError]:
    """Each distinct error of the files at head, once, by file and line: a spec line its file's resolution failed
    on (from the cases' messages), a spec file that does not parse, a test file or case that cannot be read (from
    the methods' problems), and `file_errors` ("FILE:LINE[:COL]: REASON") that no method carries."""
    found: dict[tuple[str, int, str], InputError] = {}

    def add(file: str, line: int, message: str, kind: ErrorKind, quoted: str = "", spec: str = "",
            method: str = "") -> None:
        old = found.get((file, line, message))
        methods = old.methods if old is not None else ()
        methods += ((spec, method),) if method and (spec, method) not in methods else ()
        found[(file, line, message)] = InputError(file, line, message, kind, old.quoted if old else quoted, methods)

    for d in deltas:
        s = d.head
        if s is None:
            continue
        for c in s.cases:
            if c.status is CaseStatus.ERROR and c.message.startswith(SPEC_ERROR):
                m = _SPEC_LINE.match(c.message.removeprefix(SPEC_ERROR).split("\n")[0])
                if m is not None:
                    add(s.file, int(m.group(1)), m.group(2), ErrorKind.RESOLVE, m.group(3) or "", s.file, s.method)
                else:
                    add(s.file, 0, c.message.removeprefix(SPEC_ERROR).split("\n")[0], ErrorKind.RESOLVE,
                        spec=s.file, method=s.method)
        parsed = _problem(s.note.removeprefix(NOT_PARSED), ErrorKind.PARSE) if s.note.startswith(NOT_PARSED) else None
        if parsed is not None:
            add(*parsed, ErrorKind.PARSE, spec=s.file, method=s.method)
        for p in s.problems:
            read = _problem(p, ErrorKind.TESTS)
            if read is not None:
                add(*read, ErrorKind.TESTS, spec=s.file, method=s.method)
    for e in file_errors:
        # a spec file's parse error names a column too; a test file's problem does not
        kind = ErrorKind.PARSE if re.match(r"^.*?:\d+:\d+: ", e) else ErrorKind.TESTS
        read = _problem(e, kind)
        if read is not None:
            add(*read, kind)
    return [found[k] for k in sorted(found)]


def input_errors(inp: CommentInput) -> list[tuple[str, str]]:
    """Each distinct error of the files at head, once: (file, what), e.g. ("specs/m.dfy", "line 14: unresolved
    identifier: z (`ensures y == z + 1`)") from a case its spec file's resolution failed, and ("specs/m.tests.toml",
    "line 2: not valid TOML: ...") from a case that could not be read; many methods may share one."""
    return [(e.file, e.what) for e in errors_in(inp.deltas, inp.file_errors)]


def _errors(inp: CommentInput) -> list[str]:
    found = input_errors(inp)
    if not found:
        return []
    rows = [f"- {code(file)} {esc(what)}" for file, what in found[:MAX_ERRORS]]
    if len(found) > MAX_ERRORS:
        rows.append(f"- ... and {len(found) - MAX_ERRORS} more (see the sections below).")
    return [ERRORS, "", *rows, ""]


def _headline(inp: CommentInput) -> list[str]:
    icon, word = ("✅", PASSED) if not inp.failures else ("❌", FAILED)
    changed = [d for d in inp.deltas if d.change is not Change.UNCHANGED]
    table = [*methods_table(changed, inp.links, inp.spans), "", TABLE_LEGEND, ""] if changed else []
    return [inp.marker, f"## {icon} {TITLE}: {word}", "", *_errors(inp), *_sentences(inp), *_verdict(inp), *table]


def render_comment(inp: CommentInput, limit: int | None = MAX_COMMENT) -> str:
    """The comment body; with limit=None the untrimmed report (for the step summary)."""
    if not inp.deltas and not inp.failures:  # an error of a file no method is scored from is still said (and
        # commented on its line)
        return "\n".join([inp.marker, f"## {TITLE}", "", *_errors(inp), NOTHING, ""])
    if not inp.deltas:  # nothing scored, and the check fails all the same (a test case that cannot be read)
        return "\n".join([inp.marker, f"## ❌ {TITLE}: {FAILED}", "", *_errors(inp), NOTHING, "",
                          *_verdict(inp), ""])
    top = _headline(inp)
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
