"""The inline review comments of a pull-request run: one per finding, on the `ensures` lines it concerns. Pure code.

A finding is a changed method's spec that rejects an expected output, accepts a wrong one, or can no longer be
scored. Its comment says so in one sentence with the smallest witness and its case; for a weak spec with a
verified strengthening it carries a GitHub `suggestion` block that replaces the lines it sits on with the same
lines plus the new clause, and one line saying what was proved. A spec proved weaker than base's on an input
beyond the tests gets the summary comment's sentence; where the pull request deleted or loosened a clause, a
`suggestion` with base's clauses back when that edit was proved (bot/symbolic/suggest/restore.py). Each comment
holds a hidden marker with a key (file, method, kind) so that a later run finds it again:
`bot.github.pr.review_plan` decides what to edit, delete or create. Everything from user files goes through
`code`/`fence`: nothing closes a block or pings.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum

from bot.dafny.spans import EnsuresSpan
from bot.report.comment import NOT_PARSED, TITLE, ErrorKind, InputError, errors_in
from bot.report.fmt import pct, proved_text
from bot.report.markdown import code, esc, fence
from bot.report.sentences import rejecting_clause, short, smallest_wrong, spec_change_sentence
from bot.symbolic.compare import Change, MethodDelta
from bot.symbolic.gate import why_unscored
from bot.symbolic.results import SPEC_ERROR, CaseResult, CaseStatus, MethodScore, SpecChange, Surviving

TAG = "dafny-spec-score-review"
MAX_VALUE = 200  # characters of a value shown in a sentence
# GitHub refuses a body past 65536 characters, and with one such comment the whole review: room to spare
MAX_BODY = 60_000
_TOO_LONG = {
    "rejects": "This method's spec rejects an output its tests expect",
    "accepts": "This method's spec accepts a wrong output",
    "unscored": "This method could not be scored at this commit",
    "error": "This line has an error that keeps methods from being scored",
    "weaker": "This method's spec got weaker than base's",
}
_MARKER = re.compile(rf"<!-- {TAG}:([A-Za-z0-9._-]+):([0-9a-f]{{16}})(:resolved)? -->")


class Kind(Enum):
    REJECTS = "rejects"  # an expected output is proved rejected
    ACCEPTS = "accepts"  # a wrong output is proved accepted
    UNSCORED = "unscored"  # nothing could be decided at head
    ERROR = "error"  # a line of the pull request's files does not resolve, parse or read (not about a spec's strength)
    WEAKER = "weaker"  # head's spec was proved to accept an output base rejected, on an input beyond the tests


@dataclass(frozen=True)
class Finding:
    path: str
    method: str
    kind: Kind
    start_line: int  # == line for a comment on one line
    line: int
    key: str  # stable across runs: file, method and kind
    body: str  # the comment, marker first
    # the same finding on its clause alone, without the suggestion block: for when the block's lines are not all
    # in one hunk of the diff (GitHub takes a comment only there)
    narrow: Finding | None = None
    # the keys of the error findings that are why this one holds (a method unscored because its file does not
    # resolve): when those are placed, this one is not (one comment for one cause)
    causes: tuple[str, ...] = ()
    # further single lines the narrow form may sit on, in order, when neither form fits (a weakening whose clause
    # was only deleted: the method's remaining clause lines, then its declaration's line)
    anchors: tuple[int, ...] = ()


def marker(comment_id: str, key: str, resolved: bool = False) -> str:
    return f"<!-- {TAG}:{comment_id}:{key}{':resolved' if resolved else ''} -->"


def marker_in(body: str, comment_id: str) -> tuple[str, bool] | None:
    """(key, resolved) of the first marker of `comment_id` in a comment's body; None when it has none."""
    for m in _MARKER.finditer(body):
        if m.group(1) == comment_id:
            return m.group(2), m.group(3) is not None
    return None


def finding_key(path: str, method: str, kind: Kind) -> str:
    return hashlib.sha256(f"{path}\0{method}\0{kind.value}".encode()).hexdigest()[:16]


def _value(text: str) -> str:
    return short(text, MAX_VALUE)


def _against_base(d: MethodDelta) -> str:
    """What the change lost against base, as a clause to open the sentence with ("" when nothing)."""
    if d.base is None or not d.regression or d.head is None:
        return ""
    if d.correctness_lost:
        return (f"Against the base branch, correctness fell from {pct(d.base.correctness)} to "
                f"{pct(d.head.correctness)}. ")
    if d.completeness_delta is not None and d.completeness_delta < -1e-9:
        return (f"Against the base branch, this spec got weaker (completeness {pct(d.base.completeness)} → "
                f"{pct(d.head.completeness)}). ")
    return "Against the base branch, this spec accepts outputs it rejected before. " if d.new_survivors else ""


def _rejects(d: MethodDelta, s: MethodScore, case: CaseResult, span: EnsuresSpan | None) -> Finding:
    text, clause = rejecting_clause(case, span)
    first, last = (clause.first, clause.last) if clause else (span.first, span.first) if span else (s.line, s.line)
    refuted = sum(c.status is CaseStatus.REFUTED for c in s.cases)
    others = f" ({refuted - 1} other case(s) too: see the summary comment)" if refuted > 1 else ""
    # <code>, not backticks: inside a backtick span GitHub shows escapes as they are, and a backtick closes it
    by = f"{code(_value(text))} is proved false for it" if text else "its rejection is proved"
    text = (f"{_against_base(d)}{code(s.method)} rejects an output its tests expect: for {code(_value(case.inputs))} "
            f"(case {code(case.name)}) the test expects {code(_value(case.expected))}, and {by}{others}.")
    return _finding(d, Kind.REJECTS, first, last, [text])


def _accepts(d: MethodDelta, s: MethodScore, w: Surviving, span: EnsuresSpan | None) -> Finding:
    weak = span.weak() if span is not None else None
    first, last = (weak.first, weak.last) if weak else (span.first, span.first) if span else (s.line, s.line)
    count = len(s.wrong_outputs)  # each distinct output once, as the summary comment lists them
    others = f" It accepts {count - 1} other wrong output(s) too (see the summary comment)." if count > 1 else ""
    lines = [f"{_against_base(d)}{code(s.method)} accepts a wrong output: for {code(_value(w.inputs))} "
             f"(case {code(w.case)}) the test expects {code(_value(w.expected))}, and the spec also accepts "
             f"{code(_value(w.value))}.{others}"]
    g = s.suggestions[0] if s.suggestions else None
    # the clause goes after the last specification clause (`g.line`), never after a `{` on that line
    after = g.line if g is not None else 0
    kept = span.text(first, after) if span is not None and span.ends_line and g is not None else ()
    if any(len(line.splitlines()) > 1 for line in kept) or sum(len(line) + 1 for line in kept) > MAX_BODY // 2:
        kept = ()  # a form feed, U+2028, ...: the block would show (and commit) one line as two; or too long
    plain = [*lines, "", f"Adding {code('ensures ' + g.clause)} after the specification's last clause (line "
             f"{after}) rejects them ({esc(proved_text(g))})."] if g is not None else lines
    if g is not None and kept:
        indent = re.match(r"\s*", kept[0])
        new = f"{indent.group(0) if indent else ''}ensures {' '.join(g.clause.split())}"
        lines += ["", "This stronger clause rejects them:", "", *fence("\n".join([*kept, new]), "suggestion"), "",
                  f"<sub>{esc(proved_text(g).capitalize())}.</sub>"]
        return replace(_finding(d, Kind.ACCEPTS, first, after, lines),
                       narrow=_finding(d, Kind.ACCEPTS, first, last, plain))
    return _finding(d, Kind.ACCEPTS, first, last, plain)


def _finding(d: MethodDelta, kind: Kind, first: int, last: int, lines: list[str]) -> Finding:
    return Finding(d.file, d.method, kind, first, last, finding_key(d.file, d.method, kind), "\n".join(lines))


RESTORE_SAYS = "Base's clauses back, which reject that output:"
RESTORE_PROVED = ("proved: with them the spec rejects that output on that input, accepts every test case, and is "
                  "well-formed, its helpers verified")


def _weaker(c: SpecChange, span: EnsuresSpan | None, line: int) -> Finding:
    """A proved weakening, on head's `ensures` lines of the method (its declaration's line when it has none),
    with the summary comment's sentence; with base's deleted or loosened clauses back as a suggestion when that
    edit was proved (`SpecChange.restore`)."""
    first, last = (span.first, span.last) if span is not None else (line, line)
    text = [spec_change_sentence(c)]
    anchors = (*range(first + 1, last + 1), *([span.line] if span is not None and span.line < first else []))
    key = finding_key(c.file, c.method, Kind.WEAKER)
    plain = Finding(c.file, c.method, Kind.WEAKER, first, first, key, "\n".join(text), anchors=anchors)
    lines = c.restore
    if (span is None or not lines or any(len(t.splitlines()) != 1 for t in lines)
            or sum(len(t) + 1 for t in lines) > MAX_BODY // 2):
        return plain  # a form feed, U+2028, ...: the block would show (and commit) one line as two; or too long
    body = [*text, "", RESTORE_SAYS, "", *fence("\n".join(lines), "suggestion"), "",
            f"<sub>{esc(RESTORE_PROVED.capitalize())}.</sub>"]
    return Finding(c.file, c.method, Kind.WEAKER, first, last, key, "\n".join(body), narrow=plain, anchors=anchors)


MAX_NAMED = 5  # methods an error comment names; the summary comment has them all


def _error(e: InputError) -> Finding:
    """The comment on a line that does not resolve, parse or read: the error, what it stops and what to fix."""
    names = [code(m) for _, m in e.methods[:MAX_NAMED]]
    more = f" and {len(e.methods) - MAX_NAMED} more" if len(e.methods) > MAX_NAMED else ""
    stops = f" ({', '.join(names)}{more})" if names else ""
    message = esc(_value(e.message))
    if e.kind is ErrorKind.RESOLVE:
        text = (f"This line does not resolve: {message}. Dafny checks nothing in {code(e.file)} until it does, so no "
                f"method of the file can be scored{stops}: fix this line, or the declaration it refers to.")
    elif e.kind is ErrorKind.PARSE:
        text = (f"This line does not parse: {message}. No method of {code(e.file)} can be scored until it does"
                f"{stops}: fix the Dafny syntax here.")
    elif e.file.endswith(".toml"):
        text = (f"This TOML line cannot be read: {message}. The test cases it holds are not scored until it is fixed"
                f"{stops}.")
    else:
        text = (f"This line of the test file cannot be read: {message}. The test cases it holds are not scored "
                f"until it is fixed{stops}.")
    key = finding_key(e.file, f"line {e.line}: {e.message}", Kind.ERROR)
    return Finding(e.file, "", Kind.ERROR, e.line, e.line, key, text)


def _only_errors(s: MethodScore) -> bool:
    """Whether nothing but errors of its files keeps `s` from being scored: its file does not parse, or every case
    it has stopped at its file's resolution and no other reason (a time-out, ...) is among them."""
    if s.note:
        return s.note.startswith(NOT_PARSED)
    return all(c.status is CaseStatus.ERROR and c.message.startswith(SPEC_ERROR) for c in s.cases) and bool(
        s.cases or s.problems)


def findings(deltas: Sequence[MethodDelta], spans: Mapping[tuple[str, str], EnsuresSpan], comment_id: str,
             head_sha: str, file_errors: Sequence[str] = (),
             changes: Sequence[SpecChange] = ()) -> tuple[Finding, ...]:
    """The findings at head: first each distinct error on a line of the pull request's files (as the summary
    comment lists them, `file_errors` included), then the changed methods', each with its comment (marker,
    sentence, suggestion), then each proved weakening against base (`changes`)."""
    errors = [e for e in errors_in(deltas, file_errors) if e.line > 0]  # a whole file's error has no line
    out = [_error(e) for e in errors]
    causes: dict[tuple[str, str], tuple[str, ...]] = {}
    for e, f in zip(errors, out, strict=True):
        for m in e.methods:
            causes[m] = (*causes.get(m, ()), f.key)
    for d in deltas:
        s = d.head
        if s is None or d.change is Change.REMOVED:
            continue
        span = spans.get((d.file, d.method))
        found: list[Finding] = []
        if not s.decided and not (s.untested and not (d.base is not None and d.base.decided)):
            was = " (it was scored at base)" if d.base is not None and d.base.decided else ""
            first = span.first if span else s.line
            found.append(replace(_finding(d, Kind.UNSCORED, first, first, [
                f"{code(s.method)} could not be scored at this commit{was}: {esc(_value(why_unscored(s)))}."]),
                causes=causes.get((d.file, d.method), ()) if _only_errors(s) else ()))
        refuted = [c for c in s.cases if c.status is CaseStatus.REFUTED]
        if refuted:
            found.append(_rejects(d, s, refuted[0], span))
        w = smallest_wrong(s)
        if w is not None:
            found.append(_accepts(d, s, w, span))
        out += found
    lines = {(d.file, d.method): d.head.line for d in deltas if d.head is not None}
    out += [_weaker(c, spans.get((c.file, c.method)), lines.get((c.file, c.method), 0)) for c in changes
            if c.weakens and (c.file, c.method) in lines]
    at = f"<sub>{TITLE}, at {code(head_sha[:12])}.</sub>" if head_sha else f"<sub>{TITLE}.</sub>"
    return tuple(_marked(f, comment_id, at) for f in out)


def _marked(f: Finding, comment_id: str, at: str) -> Finding:
    """`f` (and its narrow form) with the marker first and the commit last."""
    narrow = _marked(f.narrow, comment_id, at) if f.narrow is not None else None
    return replace(f, body=_body(comment_id, f, at), narrow=narrow)


def _body(comment_id: str, f: Finding, at: str) -> str:
    body = f"{marker(comment_id, f.key)}\n{f.body}\n\n{at}"
    if len(body) <= MAX_BODY:
        return body
    return (f"{marker(comment_id, f.key)}\n{_TOO_LONG[f.kind.value]} (its text is too long to show here: see the "
            f"summary comment).\n\n{at}")


def resolved_body(old: str, comment_id: str, key: str, head_sha: str, still_found: bool = False) -> str:
    """An earlier finding someone replied to, kept for the thread and marked resolved at `head_sha`; when the
    finding `still_found` (it moved, or lies outside the diff or past the cap now) it says so instead."""
    # its suggestion no longer applies: shown as code, without GitHub's "commit suggestion" button
    earlier = re.sub(r"^(`{3,})suggestion$", r"\1dafny", _MARKER.sub("", old).strip(), flags=re.MULTILINE)
    if len(earlier) > MAX_BODY:
        earlier = "(too long to repeat here)"
    status = (f"Moved at {code(head_sha[:12])}: {TITLE} still finds this; it is now in a newer comment or in the "
              "summary comment." if still_found else
              f"✅ Resolved at {code(head_sha[:12])}: {TITLE} no longer finds this.")
    return "\n".join([marker(comment_id, key, resolved=True), status, "",
                      "<details><summary>The earlier finding</summary>", "", earlier, "", "</details>"])
