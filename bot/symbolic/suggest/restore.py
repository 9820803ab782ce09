"""Restoring what a pull request deleted or loosened in a spec: base's `ensures` clauses put back into head's, offered
only when proved as any suggestion is. Pure code (the engine is passed in).

When a changed method was proved weaker than base (a witness: an input, and an output head accepts and base
rejected) and base has `ensures` clauses head lacks, the restoring edit replaces head's `ensures` lines of the
method (its first `ensures` line to its last; its declaration's line when it has none) with the same lines and
base's missing clauses back: a deleted clause where base had it, a changed clause in place of head's version when
the clauses map one to one by position. The edit is applied to head's file and read again: the method must then
have exactly base's `ensures` clauses and head's other clauses and body, or there is no suggestion. It is offered
only when all of these are proved of that very text:
- every test case is verified (its expected output accepted, by proof);
- the helpers the spec reaches still verify, and nothing is trusted that head's spec did not already rest on;
- the witness output is rejected on the witness input (its own rejection program), and the input is admitted;
- the spec is well-formed as the user would write it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from bot.dafny.decls import DafnyFile, Decl
from bot.dafny.dialect import Dialect
from bot.dafny.parser import DafnyParseError, parse_file
from bot.dafny.values import Value
from bot.symbolic.background import own_checking_off
from bot.symbolic.harness.programs import CaseHarness, HarnessError, HarnessOptions, make_prelude
from bot.symbolic.program import Goal, Outcome, Program
from bot.symbolic.results import BackgroundStatus, CaseStatus, MethodScore
from bot.symbolic.rounds import EngineLike, MethodJob, ScoreOptions, score_methods
from bot.symbolic.suggest.search import _well_formed, proved_well_formed
from bot.testcases.cases import TestCase

RESTORE_CASE = "restoring witness"
_INDENT = re.compile(r"[ \t]*")


@dataclass(frozen=True)
class Wanted:
    """One proved weakening to restore: the method at both versions, head's score, and the witness."""

    base: MethodJob
    head: MethodJob
    head_score: MethodScore
    inputs: tuple[Value, ...]
    output: tuple[Value, ...]


def _squash(text: str) -> str:
    return "".join(text.split()).rstrip(";")


def _items(base: list[str], head: list[str]) -> list[tuple[int, str]] | None:
    """Head's clauses with base's back, in base's order: (k, "") keeps head's clause k, (k, text) puts base's `text`
    in place of head's clause k, (-1, text) inserts it; None when nothing is missing or no such edit maps one way
    (clauses changed and deleted at once)."""
    b, h = [_squash(t) for t in base], [_squash(t) for t in head]
    if set(b) <= set(h):
        return None  # every clause of base's is still there (reordered at most): nothing to give back
    out: list[tuple[int, str]] = []
    k = 0
    for text, squashed in zip(base, b, strict=True):  # head's clauses a subsequence of base's: only deletions
        if k < len(h) and h[k] == squashed:
            out.append((k, ""))
            k += 1
        else:
            out.append((-1, text))
    if k == len(h):
        return out
    if len(b) != len(h):
        return None
    return [(k, "" if h[k] == b[k] else base[k]) for k in range(len(b))]  # loosened in place, one to one


def restored_lines(base: Decl, head: Decl, file: DafnyFile) -> tuple[int, int, tuple[str, ...]] | None:
    """(first, last, lines): the lines that replace head's lines first..last to give the method base's `ensures`
    clauses back; None when there is none to give back or the edit is not one of whole lines."""
    clauses = [c for c in head.clauses if c.kind == "ensures"]
    items = _items(base.clause_texts("ensures"), [c.text for c in clauses])
    if items is None:
        return None
    rows = file.source.split("\n")
    spans = [(c.line, file.end_line(c)) for c in clauses]
    # each of head's clauses on lines of its own, its keyword first: a new line goes before or after it
    if any(not rows[a - 1].lstrip().startswith("ensures") for a, _ in spans) or any(
            spans[k][1] >= spans[k + 1][0] for k in range(len(spans) - 1)):
        return None
    if not clauses:
        indent = "  "
        return head.line, head.line, (rows[head.line - 1], *(f"{indent}ensures {_flat(t)}" for _, t in items))
    first, last = spans[0][0], spans[-1][1]
    m = _INDENT.match(rows[first - 1])
    indent = m.group(0) if m else ""
    out: list[str] = []
    row = first
    for k, text in items:
        if k < 0:
            out.append(f"{indent}ensures {_flat(text)}")
            continue
        a, z = spans[k]
        out += rows[row - 1: a - 1]  # what lies between head's clauses stays
        out += [f"{indent}ensures {_flat(text)}"] if text else rows[a - 1: z]
        row = z + 1
    return first, last, tuple(out)


def _flat(text: str) -> str:
    return " ".join(text.split())


def restored_job(job: MethodJob, base: Decl) -> tuple[MethodJob, tuple[str, ...]] | None:
    """Head's job with the restoring edit applied to its file, read again, and the edit's lines; None when there is
    no edit or the file read again is not head's method with base's `ensures` clauses (and head's other clauses,
    parameters and body)."""
    made = restored_lines(base, job.method, job.file)
    if made is None:
        return None
    first, last, lines = made
    rows = job.file.source.split("\n")
    text = "\n".join([*rows[: first - 1], *lines, *rows[last:]])
    try:
        file = parse_file(text, job.file.path)
    except (DafnyParseError, ValueError, RecursionError):
        return None
    method = file.find(job.method.qualified)
    if method is None or method.qualified != job.method.qualified:
        return None
    old = job.method
    same = ([_squash(t) for t in method.clause_texts("ensures")] == [_squash(t) for t in base.clause_texts("ensures")]
            and [(c.kind, _squash(c.text)) for c in method.clauses if c.kind != "ensures"]
            == [(c.kind, _squash(c.text)) for c in old.clauses if c.kind != "ensures"]
            and [(p.name, p.type) for p in (*method.params, *method.returns)]
            == [(p.name, p.type) for p in (*old.params, *old.returns)]
            and _body(file, method) == _body(job.file, old) and len(file.decls) == len(job.file.decls))
    return (replace(job, file=file, method=method, extra_outputs=()), lines) if same else None


def _body(file: DafnyFile, d: Decl) -> str | None:
    return None if d.body is None else file.source[d.body[0]: d.body[1]]


def _witness(job: MethodJob, w: Wanted, dialect: Dialect) -> tuple[Program, ...] | None:
    """The programs proving, on the restored spec, that the witness input is admitted and its output rejected."""
    case = TestCase(RESTORE_CASE, job.method.name, w.inputs, w.output, source=job.file.path)
    try:
        prelude = make_prelude(job.file, dialect, job.include_root, job.spec_path)
        h = CaseHarness(prelude, job.file, job.method, case, HarnessOptions(dialect=dialect))
        pre = h.precondition(Goal.ACCEPT)
        return (*([pre.program] if pre is not None else []), h.output(Goal.REJECT, w.output, ()).program)
    except (ValueError, HarnessError):
        return None


def _accepts_every_test(new: MethodScore, old: MethodScore) -> bool:
    return (len(new.cases) == len(old.cases) and all(c.status is CaseStatus.VERIFIED for c in new.cases)
            and new.background is BackgroundStatus.VERIFIED and set(new.axioms) <= set(old.axioms))


def restorations(wanted: Sequence[Wanted], engine: EngineLike, dialect: Dialect,
                 options: ScoreOptions) -> list[tuple[str, ...]]:
    """Per weakening, the restoring lines when every proof above holds of them; () otherwise. All methods are
    rescored in one run, their witnesses' programs in another, their well-formedness in a third where the rescoring
    did not prove it (search.proved_well_formed)."""
    plans: list[tuple[int, MethodJob, tuple[str, ...]]] = []
    for k, w in enumerate(wanted):
        if own_checking_off(w.head.method, w.head.file):
            continue  # a method Dafny does not check as written: no clause claim
        made = restored_job(w.head, w.base.method)
        # base's clause may hold what Dafny does not check (an `assume` in it): no claim rests on it
        if made is not None and not own_checking_off(made[0].method, made[0].file):
            plans.append((k, *made))
    out: list[tuple[str, ...]] = [() for _ in wanted]
    if not plans:
        return out
    rescored = score_methods([job for _, job, _ in plans], engine, dialect, replace(
        options, mutants=0, suggest=False, witnesses=False, pin=False, first_limit=None, leading_pins=False))
    checks: list[tuple[int, MethodJob, tuple[str, ...], tuple[Program, ...], MethodScore]] = []
    for (k, job, lines), new in zip(plans, rescored, strict=True):
        programs = _witness(job, wanted[k], dialect)
        if programs is not None and _accepts_every_test(new, wanted[k].head_score):
            checks.append((k, job, lines, programs, new))
    results = engine.run([q for *_, qs, _ in checks for q in qs]) if checks else {}
    proved = [(k, job, lines, new) for k, job, lines, qs, new in checks
              if all(results[q].outcome is Outcome.VERIFIED for q in qs)]
    formed = _well_formed([job for _, job, _, _ in proved], engine, dialect,
                          [proved_well_formed(new, job) for _, job, _, new in proved]) if proved else []
    for (k, _, lines, _), ok in zip(proved, formed, strict=True):
        if ok:
            out[k] = lines
    return out
