"""SARIF 2.1.0 for code scanning: one result per finding, at the clause it is about. Pure code.

Rule ids are stable (README "SARIF for code scanning"); a result's fingerprint hashes what it is about (rule, file,
method, case), never a line number, so an alert survives edits above it. Text from user files goes into plain-text
messages only, clipped.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote

from bot import __version__
from bot.dafny.spans import ClauseSpan, EnsuresSpan
from bot.report.fmt import proved_text
from bot.report.sentences import rejecting_clause, smallest_wrong
from bot.symbolic.results import (
    AXIOMS_HINT,
    CaseResult,
    CaseStatus,
    Determinacy,
    EverywhereStatus,
    MethodScore,
    MutantStatus,
    SpecChange,
)

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL_NAME = "Dafny Spec Score"
# the project's page (pyproject.toml's Repository); each rule's help is a README section there
INFORMATION_URI = "https://github.com/dafny-spec-score/dafny-spec-score"
FINGERPRINT = "dafnySpecScore/v1"
SRCROOT = "%SRCROOT%"
MAX_PART = 200  # characters of one value from a user file (inputs, an output, a clause)
MAX_MESSAGE = 1000

Spans = Mapping[tuple[str, str], EnsuresSpan]


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    level: str  # the default: "error", "warning" or "note"
    short: str
    full: str
    fix: str  # what to do, for the rule's help
    section: str  # the README section that explains it (its anchor)

    @property
    def help_uri(self) -> str:
        return f"{INFORMATION_URI}#{self.section}"

    @property
    def help_markdown(self) -> str:
        return f"{self.full}\n\n**What to do:** {self.fix}\n\n[More]({self.help_uri})"


REJECTS_EXPECTED = Rule(
    "spec/rejects-expected-output", "RejectsExpectedOutput", "error",
    "The spec rejects a test's expected output",
    "The verifier proved that an ensures clause is false of a test case's expected output: the spec is wrong, or "
    "the test is. The result points at the clause.",
    "Check the test's expected output; if it is right, correct the clause the result points at.", "statuses")
REJECTS_INPUTS = Rule(
    "spec/rejects-test-inputs", "RejectsTestInputs", "error",
    "The precondition rejects a test's inputs",
    "The verifier proved that a requires clause is false of a test case's inputs: the precondition is too strong, "
    "or the test is wrong.",
    "Weaken the requires clause so that it admits the test's inputs, or correct the test.", "statuses")
ACCEPTS_WRONG = Rule(
    "spec/accepts-wrong-output", "AcceptsWrongOutput", "warning",
    "The spec accepts wrong outputs",
    "The verifier proved that the spec accepts outputs other than a test's expected one (surviving mutants, or "
    "outputs the pin check found): the ensures clauses are too weak. A fix is offered when a stronger clause was "
    "proved to accept every test case and reject every such output.",
    "Add or strengthen an ensures clause so that it rejects the wrong outputs shown; the offered fix, when "
    "there is one, is proved to do so and to accept every test case.", "verified-suggestions")
NOT_PINNED = Rule(
    "spec/not-pinned", "NotPinned", "note",
    "A test case's output is not pinned by the spec",
    "The pin check found another output the spec accepts on a test case's inputs, and the verifier proved it "
    "accepted: the spec does not determine the result there.",
    "If the result should be unique, strengthen the ensures clauses until the other output is rejected; if the "
    "spec is meant to leave a choice, nothing.", "statuses")
UNKNOWN = Rule(
    "spec/unknown", "Undecided", "note",
    "Undecided: neither acceptance nor rejection proved",
    "The verifier proved neither that the spec accepts nor that it rejects a test case's expected output (or a "
    "mutant of it), e.g. a time-out. It is counted neither way.",
    "Raise the time limit, or add a proof hint for the concrete case (README \"Proof hints for concrete "
    "cases\").", "statuses")
NO_VERDICT = Rule(
    "spec/no-verdict", "NoVerdict", "note",
    "A method or test case without a verdict",
    "A method was not scored, or a test case has no verdict: the verifier failed, the case is unsupported or "
    "vacuous, or the spec assumed of the expected output proves false (inconsistent, an error).",
    "Read the reason in the message: fix the test or the spec it names, or report a verifier failure.", "statuses")
TRUSTED_AXIOM = Rule(
    "spec/trusted-axiom", "TrustedAxiom", "warning",
    "Verdicts rest on a trusted axiom",
    "A declaration the spec reaches is trusted without a check (a body-less function with ensures, {:axiom}, "
    "{:verify false}, assume): every verdict of the methods that reach it is relative to it.",
    "Give the declaration a body Dafny verifies, or remove the attribute or assume; set allow-axioms only if "
    "the trust is intended.", "what-a-verdict-proves")

NOT_DETERMINED = Rule(
    "spec/not-determined", "NotDetermined", "note",
    "The spec does not determine the output on every input",
    "The verifier proved that on one input the spec accepts two different outputs (each proved accepted on the "
    "concrete values), whether or not a test tries that input. A spec meant to leave a choice is fine.",
    "If the result should be unique, add the ensures clause that tells the two outputs apart.",
    "beyond-the-tests-every-input")
WEAKER_THAN_BASE = Rule(
    "spec/weaker-than-base", "WeakerThanBase", "warning",
    "The pull request made the spec weaker",
    "The verifier proved that on one input the head's spec accepts an output that the base's spec rejected (both "
    "proved on the concrete values), whether or not a test tries that input.",
    "Restore the clause the pull request deleted or loosened, or confirm that the weaker spec is intended.",
    "what-a-pull-request-changes-in-a-spec")

RULES: tuple[Rule, ...] = (REJECTS_EXPECTED, REJECTS_INPUTS, ACCEPTS_WRONG, NOT_PINNED, UNKNOWN, NO_VERDICT,
                           TRUSTED_AXIOM, NOT_DETERMINED, WEAKER_THAN_BASE)


@dataclass(frozen=True)
class Where:
    file: str
    first: int = 0  # 0: no line known (the file alone)
    last: int = 0


@dataclass(frozen=True)
class Finding:
    rule: Rule
    where: Where
    message: str
    key: tuple[str, ...]  # what the finding is about, without line numbers: the fingerprint's input
    method: str = ""
    level: str = ""  # "": the rule's
    case: Where | None = None  # the test case, shown as a related location
    fix: Fix | None = None


@dataclass(frozen=True)
class Fix:
    """Insert `text` as a line of its own before line `before` of `file`."""

    file: str
    before: int
    text: str
    description: str


def clip(text: str, limit: int = MAX_PART) -> str:
    """One line of at most `limit` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def _at_method(s: MethodScore) -> Where:
    return Where(s.file, s.line, s.line)


def _at_clause(s: MethodScore, clause: ClauseSpan | None) -> Where:
    return Where(s.file, clause.first, clause.last) if clause else _at_method(s)


def _case_where(c: CaseResult) -> Where | None:
    return Where(c.source, c.line, c.line) if c.source and c.line > 0 else None


def _case_text(c: CaseResult) -> str:
    return f"test case {clip(c.name)} (inputs {clip(c.inputs)}; expected {clip(c.expected)})"


def _refuted(s: MethodScore, span: EnsuresSpan | None) -> list[Finding]:
    out = []
    for c in s.cases:
        if c.status is CaseStatus.REFUTED:
            clause, at = rejecting_clause(c, span)  # as the comment and the review name it
            by = f"`{clip(clause)}` is proved false of it" if clause else clip(_first_line(c.message))
            where = _at_clause(s, at)
            out.append(Finding(REJECTS_EXPECTED, where, f"{s.method}: the spec rejects the expected output of "
                               f"{_case_text(c)}: {by}.", (s.file, s.method, c.name), s.method, case=_case_where(c)))
    return out


def _precondition(s: MethodScore, span: EnsuresSpan | None) -> list[Finding]:
    return [Finding(REJECTS_INPUTS, _at_method(s),
                    f"{s.method}: the precondition rejects the inputs of {_case_text(c)}"
                    + (f": `{clip(c.clause)}` is proved false of them" if c.clause else "")
                    + ". The requires is too strong, or the test is wrong.",
                    (s.file, s.method, c.name), s.method, case=_case_where(c))
            for c in s.precondition_rejects]


def _weak(s: MethodScore, span: EnsuresSpan | None) -> list[Finding]:
    wrong = s.wrong_outputs  # each distinct output once, as every report counts them
    least = smallest_wrong(s)  # the comment's and the review's example too
    if least is None:
        return []
    cases = len({w.case for w in wrong})
    clause = span.weak() if span else None
    message = (f"{s.method}: the spec accepts {len(wrong)} wrong output(s) in {cases} test case(s); the smallest: "
               f"in test case {clip(least.case)} (inputs {clip(least.inputs)}) it accepts {clip(least.value)} where "
               f"the test expects {clip(least.expected)} ({clip(least.description)}). Strengthen the ensures clauses.")
    g = s.suggestions[0] if s.suggestions else None
    fix = None
    # the clause goes after the method's last specification clause, indented like its ensures; as a fix only when
    # the body does not open on that line (a line inserted after it would be in the body)
    if g is not None and (span is None or span.ends_line):
        message += f" A verified clause is offered as a fix: ensures {clip(g.clause)}"
        fix = Fix(s.file, g.line + 1, f"{_indent(span, clause)}ensures {g.clause}\n", proved_text(g))
    elif g is not None:
        message += f" A verified clause goes after line {g.line}: ensures {clip(g.clause)}"
    return [Finding(ACCEPTS_WRONG, _at_clause(s, clause), message, (s.file, s.method), s.method, fix=fix)]


def _indent(span: EnsuresSpan | None, clause: ClauseSpan | None) -> str:
    """The indentation of the method's ensures clauses (two spaces when unknown)."""
    if span is None or clause is None or not span.lines:
        return "  "
    row = span.lines[clause.first - span.first]
    return row[: len(row) - len(row.lstrip())]


def _not_pinned(s: MethodScore, span: EnsuresSpan | None) -> list[Finding]:
    out = []
    where = _at_clause(s, span.weak() if span else None)
    named = smallest_wrong(s)  # the weak result's example: said once, there
    for c in s.cases:
        if named is not None and (c.name, c.witness) == (named.case, named.value):
            continue
        if c.determinacy in (Determinacy.NOT_PINNED, Determinacy.PINNED_AS_SET) and c.witness:
            how = "is pinned only as a set" if c.determinacy is Determinacy.PINNED_AS_SET else "is not pinned"
            out.append(Finding(NOT_PINNED, where, f"{s.method}: test case {clip(c.name)} {how}: on inputs "
                               f"{clip(c.inputs)} the spec also accepts {clip(c.witness)} where the test expects "
                               f"{clip(c.expected)} (found by the {c.witness_source or 'pin check'}, proved accepted).",
                               (s.file, s.method, c.name), s.method, case=_case_where(c)))
    return out


def _unknown(s: MethodScore, span: EnsuresSpan | None) -> list[Finding]:
    out = []
    for c in s.cases:
        if c.status is CaseStatus.UNKNOWN:
            why = c.reason.value if c.reason else "unknown"
            said = clip(_first_line(c.message))
            where = _at_clause(s, rejecting_clause(c, span)[1])
            out.append(Finding(UNKNOWN, where, f"{s.method}: {_case_text(c)} is undecided ({why}): neither "
                               "acceptance nor rejection of the expected output was proved; it is counted neither way."
                               + (f" {said}" if said else ""), (s.file, s.method, c.name), s.method,
                               case=_case_where(c)))
        undecided = [m for m in c.mutants if m.status is MutantStatus.UNKNOWN]
        if undecided:
            reasons = ", ".join(sorted({m.reason.value for m in undecided if m.reason})) or "unknown"
            out.append(Finding(UNKNOWN, _at_method(s), f"{s.method}: {len(undecided)} mutant(s) of test case "
                               f"{clip(c.name)} undecided ({reasons}): not counted either way.",
                               (s.file, s.method, c.name, "mutants"), s.method, case=_case_where(c)))
    return out


_NO_VERDICT = {
    CaseStatus.ERROR: "the verifier failed on it (a defect to report)",
    CaseStatus.UNSUPPORTED: "it uses something the scoring does not support",
    CaseStatus.VACUOUS: "it is vacuous: nothing about the output is checked",
    CaseStatus.INCONSISTENT: "the spec assumed of the expected output proves false",
}


def _no_verdict(s: MethodScore, span: EnsuresSpan | None) -> list[Finding]:
    out = []
    if s.note and not s.untested:  # a spec without tests is no defect: what every input says is its result
        out.append(Finding(NO_VERDICT, _at_method(s), f"{s.method}: not scored: {clip(s.note, 500)}",
                           (s.file, s.method), s.method))
    for c in s.cases:
        if c.status in _NO_VERDICT:
            said = clip(_first_line(c.message))
            out.append(Finding(NO_VERDICT, _at_method(s), f"{s.method}: {_case_text(c)} has no verdict: "
                               f"{_NO_VERDICT[c.status]}." + (f" {said}" if said else ""),
                               (s.file, s.method, c.name), s.method,
                               level="error" if c.status is CaseStatus.INCONSISTENT else "", case=_case_where(c)))
    return out


def _not_determined(s: MethodScore, span: EnsuresSpan | None) -> list[Finding]:
    e = s.everywhere
    if e is None or e.status is not EverywhereStatus.NOT_DETERMINED:
        return []
    return [Finding(NOT_DETERMINED, _at_clause(s, span.weak() if span else None),
                    f"{s.method}: {clip(e.sentence, 500)}.", (s.file, s.method), s.method)]


_PER_METHOD: tuple[Callable[[MethodScore, EnsuresSpan | None], list[Finding]], ...] = (
    _refuted, _precondition, _weak, _not_pinned, _unknown, _no_verdict, _not_determined)


def _weaker(changes: Sequence[SpecChange], scores: Sequence[MethodScore]) -> list[Finding]:
    """One result per method the pull request was proved to make weaker, at the method's line at head."""
    lines = {(s.file, s.method): s.line for s in scores}
    return [Finding(WEAKER_THAN_BASE, Where(c.file, lines.get((c.file, c.method), 0), lines.get((c.file, c.method), 0)),
                    clip(c.sentence.replace("`", ""), 500), (c.file, c.method), c.method)
            for c in sorted(changes, key=lambda c: (c.file, c.method)) if c.weakens]


def _axioms(scores: Sequence[MethodScore]) -> list[Finding]:
    """One result per trusted declaration, naming every method whose verdicts rest on it."""
    methods: dict[tuple[str, int, str, str], list[str]] = {}
    for s in scores:
        for a in s.axioms:
            methods.setdefault((a.file, a.line, a.name, a.why), []).append(s.method)
    out = []
    for (file, line, name, why), names in sorted(methods.items()):
        listed = ", ".join(sorted(set(names)))
        out.append(Finding(TRUSTED_AXIOM, Where(file, line, line), f"{clip(name)} is trusted without a check "
                           f"({clip(why)}): the verdicts of {clip(listed, 500)} are relative to it; {AXIOMS_HINT}.",
                           (file, name, why)))
    return out


def findings(scores: Sequence[MethodScore], spans: Spans, changes: Sequence[SpecChange] = ()) -> list[Finding]:
    ordered = sorted(scores, key=lambda s: (s.file, s.line, s.method))
    out = [f for s in ordered for handler in _PER_METHOD for f in handler(s, spans.get((s.file, s.method)))]
    return out + _axioms(ordered) + _weaker(changes, ordered)


def _artifact(file: str) -> dict[str, str]:
    """A path relative to the checkout (the current folder for the command line) under %SRCROOT%; an absolute path
    (a file the command line named outside the current folder) as a file URI."""
    path = PurePosixPath(file)
    if path.is_absolute():
        return {"uri": path.as_uri()}
    return {"uri": quote(str(path), safe="/"), "uriBaseId": SRCROOT}


def _location(where: Where) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": _artifact(where.file)}
    if where.first > 0:
        physical["region"] = {"startLine": where.first, "endLine": max(where.first, where.last)}
    return {"physicalLocation": physical}


def _fingerprint(f: Finding) -> str:
    return hashlib.sha256("\x1f".join((f.rule.id, *f.key)).encode("utf-8")).hexdigest()[:32]


def _result(f: Finding) -> dict[str, Any]:
    location = _location(f.where)
    if f.method:
        location["logicalLocations"] = [{"name": f.method, "kind": "function"}]
    out: dict[str, Any] = {
        "ruleId": f.rule.id,
        "ruleIndex": RULES.index(f.rule),
        "level": f.level or f.rule.level,
        "message": {"text": clip(f.message, MAX_MESSAGE)},
        "locations": [location],
        "partialFingerprints": {FINGERPRINT: _fingerprint(f)},
    }
    if f.case is not None:
        out["relatedLocations"] = [{"id": 1, "message": {"text": "the test case"}, **_location(f.case)}]
    if f.fix is not None:
        out["fixes"] = [_fix(f.fix)]
    return out


def _fix(fix: Fix) -> dict[str, Any]:
    empty = {"startLine": fix.before, "startColumn": 1, "endLine": fix.before, "endColumn": 1}  # deletes nothing
    return {
        "description": {"text": clip(fix.description, MAX_MESSAGE)},
        "artifactChanges": [{"artifactLocation": _artifact(fix.file),
                             "replacements": [{"deletedRegion": empty, "insertedContent": {"text": fix.text}}]}],
    }


def _rule(r: Rule) -> dict[str, Any]:
    return {"id": r.id, "name": r.name, "shortDescription": {"text": r.short}, "fullDescription": {"text": r.full},
            "help": {"text": f"{r.full} What to do: {r.fix}", "markdown": r.help_markdown}, "helpUri": r.help_uri,
            "defaultConfiguration": {"level": r.level}}


def sarif_log(scores: Sequence[MethodScore], spans: Spans, verifier_version: str,
              settings: Mapping[str, Any] | None = None, changes: Sequence[SpecChange] = ()) -> dict[str, Any]:
    run: dict[str, Any] = {
        "tool": {
            "driver": {"name": TOOL_NAME, "version": __version__, "informationUri": INFORMATION_URI,
                       "rules": [_rule(r) for r in RULES]},
            "extensions": [{"name": "Dafny", "version": verifier_version}],
        },
        "columnKind": "unicodeCodePoints",
        "results": [_result(f) for f in findings(scores, spans, changes)],
    }
    if settings is not None:
        run["properties"] = {"settings": dict(settings)}
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def render_sarif(scores: Sequence[MethodScore], spans: Spans, verifier_version: str,
                 settings: Mapping[str, Any] | None = None, changes: Sequence[SpecChange] = ()) -> str:
    """The SARIF log as JSON text: the same inputs give the same bytes."""
    return json.dumps(sarif_log(scores, spans, verifier_version, settings, changes), indent=2,
                      sort_keys=True) + "\n"
