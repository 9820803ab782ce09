"""One sentence per method: what changed against base and why it matters, with the smallest concrete evidence (a
wrong output the spec accepts, or the expected output it rejects and the clause that does). Pure code.

Values, case names and clauses come from user files: each goes through `code`/`esc`, shortened when long, so a
sentence stays one line of a summary and cannot break out of a list item or a table cell.
"""

from __future__ import annotations

import re

from bot.dafny.spans import ClauseSpan, EnsuresSpan
from bot.report.fmt import pct
from bot.report.links import Links
from bot.report.markdown import code, code_exact, esc, link
from bot.symbolic.compare import Change, MethodDelta
from bot.symbolic.gate import why_unscored
from bot.symbolic.results import (
    FIXES_TEST,
    CaseResult,
    CaseStatus,
    Everywhere,
    MethodScore,
    Relation,
    SpecChange,
    Surviving,
)

UNTESTED_WORDS = "what its spec says is asked on every input only (under Beyond the tests, when that says something)"
# longest user text a sentence quotes whole (characters); longer text ends with an ellipsis
VALUE, INPUTS, NAME, CLAUSE, WHY, PATH = 40, 60, 40, 80, 160, 80
EVERY_REJECTED = "it rejects every wrong output tried"

_ASSIGN = re.compile(r"[A-Za-z_][\w'?]* = ")


def short(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _bare(expected: str) -> str:
    """"[4, 5]" for "result = [4, 5]": the value alone when the test names one output; else as it is."""
    head = _ASSIGN.match(expected)
    if head is None or re.search(r", [A-Za-z_][\w'?]* = ", expected):
        return expected
    return expected[head.end():]


def smallest_wrong(s: MethodScore) -> Surviving | None:
    """The wrong output with the shortest text among the pin check's witnesses and the surviving mutants (the
    first in report order on a tie): the one a reader takes in at once."""
    found = (*s.witnesses, *s.surviving)
    return min(found, key=lambda w: len(w.value)) if found else None


def accepts_sentence(s: MethodScore) -> str:
    """"it accepts `[]` where the test expects `[4, 5]` (case `T#1`, `a = [3, 4]`)"; "" when it accepts none."""
    w = smallest_wrong(s)
    if w is None:
        return ""
    expected = w.expected if _ASSIGN.match(w.value) else _bare(w.expected)
    return (f"it accepts {code(short(w.value, VALUE))} where the test expects {code(short(expected, VALUE))} "
            f"(case {code(short(w.case, NAME))}, {code(short(w.inputs, INPUTS))})")


def _first(s: MethodScore, status: CaseStatus) -> tuple[CaseResult | None, int]:
    found = [c for c in s.cases if c.status is status]
    return (found[0] if found else None), len(found)


def rejecting_clause(case: CaseResult, span: EnsuresSpan | None = None) -> tuple[str, ClauseSpan | None]:
    """The clause that rejects a refuted case (or its inputs: a `requires`), as written when its span is found,
    with that span; ("", None) when only the conjunction's rejection is proved."""
    kind, _, text = case.clause.partition(" ")
    at = span.rejecting(text) if span is not None and kind == "ensures" else None
    return (f"ensures {at.text}" if at is not None else case.clause), at


def finding_clause(s: MethodScore, span: EnsuresSpan | None = None) -> tuple[str, ClauseSpan | None]:
    """The clause a method's finding is about, with its span when known: the one that rejects its first refuted
    case (or a case's inputs), else, when the spec accepts a wrong output, the clause such a finding sits on (the
    first about an output). ("", None) when there is none."""
    for status in (CaseStatus.REFUTED, CaseStatus.PRECONDITION_VIOLATED):
        case, _ = _first(s, status)
        if case is not None:
            return rejecting_clause(case, span)
    weak = span.weak() if span is not None and smallest_wrong(s) is not None else None
    return (f"ensures {weak.text}", weak) if weak is not None else ("", None)


def _others(n: int) -> str:
    return f" (and for {n - 1} other case{'s' if n > 2 else ''})" if n > 1 else ""


def rejects_sentence(s: MethodScore, spans: EnsuresSpan | None = None) -> str:
    """"it rejects `[4, 5]`, the expected output of case `T#1` (`a = [3, 4]`): `ensures ...` is proved false for
    it"; "" when no case is refuted."""
    case, n = _first(s, CaseStatus.REFUTED)
    if case is None:
        return ""
    clause, _ = finding_clause(s, spans)
    why = f"{code(short(clause, CLAUSE))} is" if clause else "its <code>ensures</code> clauses together are"
    return (f"it rejects {code(short(_bare(case.expected), VALUE))}, the expected output of case "
            f"{code(short(case.name, NAME))} ({code(short(case.inputs, INPUTS))}): {why} proved false for it"
            + _others(n))


def _requires_sentence(s: MethodScore) -> str:
    case, n = _first(s, CaseStatus.PRECONDITION_VIOLATED)
    if case is None:
        return ""
    why = f"{code(short(case.clause, CLAUSE))} is" if case.clause else "its <code>requires</code> clauses together are"
    return (f"its precondition rejects the inputs of case {code(short(case.name, NAME))} "
            f"({code(short(case.inputs, INPUTS))}): {why} proved false for them" + _others(n))


def _evidence(s: MethodScore, span: EnsuresSpan | None) -> str:
    """The finding that matters most: a rejected test, then rejected inputs, then an accepted wrong output."""
    return rejects_sentence(s, span) or _requires_sentence(s) or accepts_sentence(s)


def _now(s: MethodScore) -> str:
    return f"correctness {pct(s.correctness)}, completeness {pct(s.completeness)}"


def _trend(what: str, was: float | None, now: float | None) -> str:
    return f"{what} {pct(was)} → {pct(now)}"


def _scored(name: str, d: MethodDelta, span: EnsuresSpan | None) -> str:
    """A method decided at head: the change that matters most, with its evidence."""
    h, b = d.head, d.base
    assert h is not None
    evidence = _evidence(h, span)
    if b is None or not b.decided:
        what = "is new" if d.change is Change.NEW else "is scored now"
        tail = evidence or (EVERY_REJECTED if h.completeness == 1.0 else "")
        return f"{name} {what} ({_now(h)})" + (f": {tail}" if tail else "")
    if d.unreadable:
        return f"{name} lost a check: {esc(short(d.unreadable[0], WHY))}"
    if d.lost:
        return f"{name} lost a measure: {esc(short(d.lost[0], WHY))}"
    corr = _trend("correctness", b.correctness, h.correctness)
    comp = _trend("completeness", b.completeness, h.completeness)
    if h.precondition_rejects and not b.precondition_rejects:
        return f"{name} now rejects a test's inputs: {_requires_sentence(h)}"
    if (h.correctness or 0.0) < (b.correctness or 0.0):
        what = "now rejects a test" if b.correctness == 1.0 else "rejects more tests"
        return f"{name} {what} ({corr}): {evidence}"
    if (h.correctness or 0.0) > (b.correctness or 0.0):
        what = "accepts all its tests again" if h.correctness == 1.0 else "rejects fewer tests"
        return f"{name} {what} ({corr})" + (f"; still, {evidence}" if evidence else "")
    delta = d.completeness_delta or 0.0
    if delta < -1e-9:
        return f"{name} got weaker ({comp}): {evidence}"
    if delta > 1e-9:
        tail = f"; still, {evidence}" if evidence else f": {EVERY_REJECTED}" if h.completeness == 1.0 else ""
        return f"{name} got stronger ({comp}){tail}"
    if d.lost_pins or d.new_survivors:
        n, what = (len(d.lost_pins), "no longer pinned") if d.lost_pins else (len(d.new_survivors), "newly accepted")
        noun = "case" if d.lost_pins else "wrong output"
        comp = comp if b.completeness != h.completeness else f"completeness {pct(h.completeness)}"
        return f"{name} got weaker ({n} {noun}{'s' if n > 1 else ''} {what}, {comp}): {evidence}"
    if d.change is Change.UNCHANGED:
        still = f" and still weak: {evidence}" if evidence else ""
        return f"{name} is unchanged ({_now(h)}){still}"
    return f"{name} changed ({corr}, {comp})" + (f": {evidence}" if evidence else "")


def method_sentence(d: MethodDelta, span: EnsuresSpan | None = None, links: Links | None = None) -> str:
    """The summary's opening sentence for a method: what changed against base and why it matters, with numbers
    ("`SharedElements` got weaker (completeness 1.00 → 0.60): it accepts `[]` where the test expects `[4, 5]`
    (...)."). The method's name links to its line at the head commit when `links` is given."""
    h, b = d.head, d.base
    line = span.line if span is not None else h.line if h is not None else 0
    name = link(code(short(d.method, NAME * 2)), links.blob(d.file, line) if links and h is not None else "")
    if h is None:
        was = f" (at base: {_now(b)})" if b is not None and b.decided else ""
        return f"{name} is no longer scored: the method or its tests were removed{was}."
    if h.untested and not (b is not None and b.decided):
        return f"{name} has no test cases: {UNTESTED_WORDS}."
    if not h.decided:
        why = esc(short(why_unscored(h), WHY))
        if b is not None and b.decided:
            return f"{name} can no longer be scored (at base: {_now(b)}): {why}."
        what = "is new and could not be scored" if d.change is Change.NEW else "could not be scored"
        return f"{name} {what}: {why}."
    return _scored(name, d, span) + "."


def short_path(path: str, limit: int = PATH) -> str:
    """A path kept whole when short, else its end (where two files' paths differ: their names)."""
    return path if len(path) <= limit else "…" + path[len(path) - limit + 1:]


def _named(method: str, file: str) -> str:
    """The method as a sentence names it: with its file where another file's method has the same name."""
    return code(short(method, NAME)) + (f" in {code_exact(short_path(file))}" if file else "")


def _two(first: str, second: str) -> tuple[str, str]:
    """Two different values as code that look different: shortened as any value, unless that makes them look
    alike (a shared beginning, runs of spaces), then each exactly as it is."""
    a, b = code(short(first, VALUE)), code(short(second, VALUE))
    return (a, b) if a != b or first == second else (code_exact(first), code_exact(second))


def determinacy_sentence(method: str, e: Everywhere, file: str = "") -> str:
    """A changed spec that a witness shows not determined, in one sentence (user text as escaped code): "`Abs` is
    not determined on every input: for `x = -1` the spec accepts both `12` and `14`."; `file` named after the
    method when given (another file's method has the same name)."""
    name, inputs = _named(method, file), code(short(e.inputs, INPUTS))
    first, second = _two(*e.outputs)
    said = f" ({esc(short(e.reason, WHY))})" if e.reason else ""
    return f"{name} is not determined on every input: for {inputs} the spec accepts both {first} and {second}{said}."


def spec_change_sentence(c: SpecChange, named_with_file: bool = False) -> str:
    """A changed method's relation to base on every input, in one sentence (user text as escaped code):
    "`Abs` got weaker beyond the tests: for `x = -1` it now accepts `r = 2`, which base rejected."; with its file
    after the method's name when `named_with_file` (another file's method has the same name)."""
    name = _named(c.method, c.file if named_with_file else "")
    inputs, output = code(short(c.inputs, INPUTS)), code(short(c.output, VALUE))
    if c.weakens:
        how = "got weaker" if c.relation is Relation.WEAKER else "changed (neither weaker nor stronger)"
        fixed = f" ({FIXES_TEST})" if c.fixes_test else ""
        fixed += f" ({esc(c.reason)})" if c.reason and c.relation is Relation.WEAKER else ""
        return f"{name} {how} beyond the tests: for {inputs} it now accepts {output}, which base rejected{fixed}."
    if c.relation is Relation.STRONGER:
        return f"{name} got stronger: for {inputs} it now rejects {output}, which base accepted."
    if c.relation is Relation.EQUIVALENT:
        return f"{name}: its postcondition is proved equivalent to base's on every input{c.compared_on}."
    return f"{name}: how its postcondition relates to base's is unknown ({esc(short(c.reason, WHY))})."
