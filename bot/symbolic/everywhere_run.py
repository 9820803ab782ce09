"""Asks the verifier whether each scored method's spec determines its outputs on every input
(bot/symbolic/everywhere.py says what each program proves), in engine runs for all methods at once: the
determinacy programs; then, for each exact question that failed, the search for a proved witness
(bot/symbolic/witness_search.py: the concrete acceptance of a counterexample's two outputs, and the question asked
again with short arrays and sequences where that is wanted)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from bot.dafny.dialect import Dialect
from bot.dafny.types import ArrayT
from bot.dafny.values import ArrayV, SeqV
from bot.symbolic import bounded
from bot.symbolic.allowance import Allowance
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
from bot.symbolic.harness.programs import CaseHarness, HarnessError, HarnessOptions, make_prelude, refining_reason
from bot.symbolic.ledger import Ledger
from bot.symbolic.program import Goal as Asked
from bot.symbolic.program import Program, Result
from bot.symbolic.results import BackgroundStatus, CaseStatus, Everywhere, EverywhereStatus, MethodScore
from bot.symbolic.rounds import BUDGET_NOTE, SLOW_METHOD_SECONDS, SLOW_NOTE, EngineLike, MethodJob, run_within
from bot.symbolic.witness_search import Search, run_searches
from bot.testcases.cases import TestCase

WITNESS_CASE = "every-input witness"


@dataclass
class _Asked:
    job: MethodJob
    prelude: str
    programs: dict[Goal, Program]
    time_limit: int | None = None  # the short limit of a method whose scoring timed out (`slow`)


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


def _acceptance(asked: _Asked, dialect: Dialect, w: Witness) -> tuple[Program, ...] | str:
    """The programs proving that the spec accepts each of the witness's two outputs on its input (its `requires`
    too)."""
    job = asked.job
    out: list[Program] = []
    for k, expected in enumerate((w.first, w.second)):
        case = TestCase(WITNESS_CASE, job.method.name, w.inputs, tuple(expected), source=job.file.path)
        try:
            h = CaseHarness(asked.prelude, job.file, job.method, case, HarnessOptions(dialect=dialect))
            pre = h.precondition(Asked.ACCEPT)
            # the input's assumptions consistent (asked once: both outputs stand on the same input)
            out += [*([h.vacuity().program] if k == 0 else []), *([pre.program] if pre is not None else []),
                    h.output(Asked.ACCEPT, tuple(expected), ()).program]
        except HarnessError as e:
            return f"the witness cannot be checked: {e}"
    return tuple(out)


UNCONFIRMED = "the counterexample's outputs were not both proved accepted"


def _search(a: _Asked, dialect: Dialect) -> Search[Witness]:
    """The search for a proved witness of the exact question (bot/symbolic/witness_search.py)."""
    m = a.job.method
    short = (lambda: program(a.prelude, m, Goal.EXACT, dialect, m.scope, small=True,
                             opened=a.job.file.opened_in(m.container), time_limit=a.time_limit)) \
        if bounded.applies(variables(m)) else None
    return Search(lambda r, small: witness(m, r, small), lambda w: _acceptance(a, dialect, w), short, _long,
                  eager=any(isinstance(p.type, ArrayT) for p in m.params), unconfirmed=UNCONFIRMED)


# of what a method's rounds left of its budget (bot/symbolic/ledger.py), the share its questions on every input spend
# (its suggestions' rescorings, asked beside them, spend the rest: bot/symbolic/suggest/search.py SUGGESTION_SHARE).
# On the development subset they take 0.2 s each; a share keeps one that times out from taking the task past its time
EVERYWHERE_SHARE = 1 / 3


def with_everywhere(jobs: Sequence[MethodJob], scores: Sequence[MethodScore], engine: EngineLike,
                    dialect: Dialect) -> list[MethodScore]:
    """`scores` (one per job, in order) with `everywhere` set."""
    answers: dict[int, Everywhere] = {}
    asked: dict[int, _Asked] = {}
    for k, (job, s) in enumerate(zip(jobs, scores, strict=True)):
        why = unproved_background(s) or refining_reason(job.file, job.method) or unsupported(job.method)
        if why:
            answers[k] = Everywhere(EverywhereStatus.UNKNOWN, reason=why)
            continue
        try:
            prelude = make_prelude(job.file, dialect, job.include_root, job.spec_path)
        except (ValueError, HarnessError) as e:
            answers[k] = Everywhere(EverywhereStatus.UNKNOWN, reason=str(e))
            continue
        opened = job.file.opened_in(job.method.container)
        # a method whose scoring timed out at the full limit: its questions, harder than any case's, get the short one
        limit = SLOW_METHOD_SECONDS if s.slow else None
        asked[k] = _Asked(job, prelude, {g: program(prelude, job.method, g, dialect, job.method.scope, opened=opened,
                                                    time_limit=limit)
                                         for g in goals(job.method, shown_consistent(s))}, limit)
    shares = {k: ledger.share(EVERYWHERE_SHARE) for k in asked if (ledger := scores[k].ledger) is not None}
    first = _within(engine, {p: shares.get(k) for k, a in asked.items() for p in a.programs.values()}) \
        if asked else {}
    # a witness the tests already proved needs no search: its programs would only find another
    tested = {k: from_tests(scores[k]) for k in asked}
    searches = {k: _search(a, dialect) for k, a in asked.items() if tested[k] is None}
    run_searches(engine, list(searches.values()), [first[asked[k].programs[Goal.EXACT]] for k in searches])
    for k, a in asked.items():
        search = searches.get(k)
        found = search.proved if search is not None else None
        results: dict[Goal, Result] = {g: first[p] for g, p in a.programs.items()}
        proved = shown(a.job.method, found) if found is not None else tested[k]
        answers[k] = judged(results, proved, search.why if search is not None else "", shown_consistent(scores[k]))
    return [replace(s, everywhere=answers[k]) for k, s in enumerate(scores)]


def _within(engine: EngineLike, ledgers: dict[Program, Ledger | None]) -> dict[Program, Result]:
    """The programs (the keys) verified within their methods' budgets (bot/symbolic/allowance.py), what the rounds
    left of each, when the engine takes budgets: a method whose rounds spent it asks nothing more, its answers on
    every input unknown."""
    groups = {p: (ledger,) for p, ledger in ledgers.items() if ledger is not None}
    return run_within(engine, list(ledgers), Allowance(groups) if groups else None)


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
    plain = {c.name: c for c in s.cases if c.status is CaseStatus.VERIFIED and not _qualified(c.note)
             and c.reason is None}
    found = [w for w in (*s.witnesses, *s.surviving) if w.case in plain and w.value != _bare(w.expected)]
    if not found:
        return None
    w = min(found, key=lambda w: len(w.value))
    return Shown(w.inputs, (_bare(w.expected), w.value), w.case)


def _qualified(note: str) -> bool:
    """Whether a case's note says its verdict is less than a plain acceptance (a tolerance, an unchecked output, a
    property); that its method's later programs had a shorter limit (rounds.SLOW_NOTE) or were not asked
    (rounds.BUDGET_NOTE) qualifies nothing proved."""
    return bool(note.replace(SLOW_NOTE, "").replace(BUDGET_NOTE, "").strip("; "))


def _bare(expected: str) -> str:
    """"[4, 5]" for "result = [4, 5]" (one output named); else as it is: the output as the witness is written."""
    name, sep, value = expected.partition(" = ")
    return value if sep and name.isidentifier() and " = " not in value else expected
