"""Asks the verifier whether each scored method's spec determines its outputs on every input
(bot/symbolic/everywhere.py says what each program proves), in engine runs for all methods at once: the
determinacy programs; then the concrete acceptance of each counterexample's two outputs, beside the exact question
asked again with short inputs where its counterexample could not be read or is long (bot/symbolic/bounded.py);
then the acceptance of that question's witness. A method that needs none of the later runs adds nothing to them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from bot.dafny.decls import Decl
from bot.dafny.dialect import Dialect
from bot.dafny.types import ArrayT
from bot.dafny.values import ArrayV, SeqV, Value
from bot.symbolic import bounded
from bot.symbolic.everywhere import (
    Goal,
    Shown,
    Witness,
    goals,
    judged,
    program,
    shown,
    unsupported,
    variables,
    witness,
)
from bot.symbolic.harness.programs import CaseHarness, HarnessError, HarnessOptions, make_prelude
from bot.symbolic.program import Goal as Asked
from bot.symbolic.program import Outcome, Program, Result
from bot.symbolic.results import BackgroundStatus, CaseStatus, Everywhere, EverywhereStatus, MethodScore
from bot.symbolic.rounds import EngineLike, MethodJob
from bot.testcases.cases import TestCase

WITNESS_CASE = "every-input witness"


@dataclass
class _Asked:
    job: MethodJob
    prelude: str
    programs: dict[Goal, Program]
    witness: Witness | None = None
    why_not: str = ""
    confirm: tuple[Program, ...] = ()
    proved: Shown | None = None
    small: Program | None = None  # the exact question with short inputs (bot/symbolic/bounded.py)
    small_witness: Witness | None = None
    small_confirm: tuple[Program, ...] = ()


def unproved_background(s: MethodScore) -> str:
    """Why a proof over every input would not stand on this method's background (not verified, resting on trusted
    axioms, a spec not proved well-formed), or "": the rule for determinacy and for spec changes alike."""
    if s.background is None:
        return "the background was not checked (no case was scored)"
    if s.background is not BackgroundStatus.VERIFIED:
        return f"the background is {s.background.value}"
    if s.axioms:
        return "the background rests on trusted axioms"
    if s.well_formed is not True:
        return "the spec itself is not well-formed" if s.well_formed is False else \
            "the spec's own well-formedness was not proved"
    return ""


def _acceptance(asked: _Asked, dialect: Dialect, w: Witness,
                outputs: Sequence[tuple[Value, ...]]) -> tuple[Program, ...] | str:
    """The programs proving that the spec accepts each of `outputs` on the witness input (its `requires` too)."""
    job = asked.job
    out: list[Program] = []
    for expected in outputs:
        case = TestCase(WITNESS_CASE, job.method.name, w.inputs, tuple(expected), source=job.file.path)
        try:
            h = CaseHarness(asked.prelude, job.file, job.method, case, HarnessOptions(dialect=dialect))
            pre = h.precondition(Asked.ACCEPT)
            out += [*([pre.program] if pre is not None else []), h.output(Asked.ACCEPT, tuple(expected), ()).program]
        except HarnessError as e:
            return f"the witness cannot be checked: {e}"
    return tuple(out)


def with_everywhere(jobs: Sequence[MethodJob], scores: Sequence[MethodScore], engine: EngineLike,
                    dialect: Dialect) -> list[MethodScore]:
    """`scores` (one per job, in order) with `everywhere` set."""
    answers: dict[int, Everywhere] = {}
    asked: dict[int, _Asked] = {}
    for k, (job, s) in enumerate(zip(jobs, scores, strict=True)):
        why = unproved_background(s) or unsupported(job.method)
        if why:
            answers[k] = Everywhere(EverywhereStatus.UNKNOWN, reason=why)
            continue
        try:
            prelude = make_prelude(job.file, dialect, job.include_root, job.spec_path)
        except (ValueError, HarnessError) as e:
            answers[k] = Everywhere(EverywhereStatus.UNKNOWN, reason=str(e))
            continue
        asked[k] = _Asked(job, prelude, {g: program(prelude, job.method, g, dialect, job.method.scope)
                                         for g in goals(job.method, shown_consistent(s))})
    first = engine.run([p for a in asked.values() for p in a.programs.values()]) if asked else {}
    for a in asked.values():
        exact = first[a.programs[Goal.EXACT]]
        found = witness(a.job.method, exact)
        if isinstance(found, Witness):
            a.witness = found
            a.confirm = _confirmed(a, dialect, found)
        else:
            a.why_not = found
        if exact.outcome is Outcome.REFUTED and _ask_small(a.job.method, found):
            a.small = program(a.prelude, a.job.method, Goal.EXACT, dialect, a.job.method.scope, small=True)
    second = _run(engine, [p for a in asked.values() for p in (*a.confirm, *([a.small] if a.small else []))])
    for a in asked.values():
        if a.confirm and all(second[p].outcome is Outcome.VERIFIED for p in a.confirm):
            a.proved = shown(a.job.method, a.witness) if a.witness is not None else None
        elif a.confirm:
            a.why_not = UNCONFIRMED
        if a.small is not None:
            if second[a.small].outcome is Outcome.VERIFIED and a.proved is None:
                a.why_not = bounded.NO_SHORT_WITNESS
            found = witness(a.job.method, second[a.small], small=True)
            # the short witness is said where the first is not proved, or is longer
            if isinstance(found, Witness) and (a.proved is None or a.witness is None or _long(a.witness)):
                a.small_witness, a.small_confirm = found, _confirmed(a, dialect, found)
    third = _run(engine, [p for a in asked.values() for p in a.small_confirm])
    for k, a in asked.items():
        if a.small_witness is not None and a.small_confirm:
            if all(third[p].outcome is Outcome.VERIFIED for p in a.small_confirm):
                a.proved = shown(a.job.method, a.small_witness)
            elif a.proved is None:
                a.why_not = UNCONFIRMED
        results: dict[Goal, Result] = {g: first[p] for g, p in a.programs.items()}
        answers[k] = judged(results, a.proved or from_tests(scores[k]), a.why_not, shown_consistent(scores[k]))
    return [replace(s, everywhere=answers[k]) for k, s in enumerate(scores)]


UNCONFIRMED = "the counterexample's outputs were not both proved accepted"


def _run(engine: EngineLike, programs: Sequence[Program]) -> dict[Program, Result]:
    return engine.run(programs) if programs else {}


def _confirmed(a: _Asked, dialect: Dialect, w: Witness) -> tuple[Program, ...]:
    """The programs confirming witness `w` (none, with the reason in `a.why_not`, when it cannot be checked)."""
    made = _acceptance(a, dialect, w, (w.first, w.second))
    if isinstance(made, str):
        a.why_not = made
        return ()
    return made


def _ask_small(method: Decl, found: Witness | str) -> bool:
    """Whether the exact question is asked again with short values (bot/symbolic/bounded.py): the counterexample
    could not be read, it holds an array (whose contents Dafny 2.3's model seldom gives), or a value longer than
    a short question's."""
    if not bounded.applies(variables(method)):
        return False
    if not isinstance(found, Witness):
        return True
    return any(isinstance(p.type, ArrayT) for p in method.params) or _long(found)


def _long(w: Witness) -> bool:
    return any(isinstance(v, SeqV | ArrayV) and len(v.elems) > bounded.BOUND for v in (*w.inputs, *w.first,
                                                                                        *w.second))


def shown_consistent(s: MethodScore) -> bool:
    """A verified test case shows the spec's assumptions consistent: its output is proved accepted on inputs the
    `requires` admits, in the same declarations, and its vacuity check did not prove `false` from them (as every
    case verdict requires), so the probe of the every-input questions (`Goal.CONSISTENT`) need not be asked."""
    return any(c.status is CaseStatus.VERIFIED for c in s.cases)


def from_tests(s: MethodScore) -> Shown | None:
    """A witness the tests already proved: a plainly verified case (its exact expected output proved accepted; no
    tolerance, unchecked output or property note) with another output proved accepted on its inputs (a surviving
    mutant, or the pin check's confirmed witness). The smallest such other output, first case on a tie."""
    plain = {c.name: c for c in s.cases if c.status is CaseStatus.VERIFIED and not c.note and c.reason is None}
    found = [w for w in (*s.witnesses, *s.surviving) if w.case in plain and w.value != _bare(w.expected)]
    if not found:
        return None
    w = min(found, key=lambda w: len(w.value))
    return Shown(w.inputs, (_bare(w.expected), w.value), w.case)


def _bare(expected: str) -> str:
    """"[4, 5]" for "result = [4, 5]" (one output named); else as it is: the output as the witness is written."""
    name, sep, value = expected.partition(" = ")
    return value if sep and name.isidentifier() and " = " not in value else expected
