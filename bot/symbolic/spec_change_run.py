"""Asks the verifier how each changed method's postcondition relates to base's (bot/symbolic/spec_change.py says
what each program proves): the four questions for every pair at once, then the concrete programs that prove
each counterexample's difference on its own file (acceptance by one version, rejection by the other)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from bot.dafny.dialect import Dialect
from bot.dafny.types import ArrayT
from bot.dafny.values import ArrayV, SeqV, Value, show
from bot.symbolic import bounded
from bot.symbolic.counterexamples import readings
from bot.symbolic.everywhere_run import unproved_background
from bot.symbolic.harness.programs import (
    CaseHarness,
    HarnessError,
    HarnessOptions,
    make_prelude,
    mutation_target,
    refining_reason,
)
from bot.symbolic.program import Goal, Outcome, Program, Result
from bot.symbolic.results import CaseStatus, MethodScore, MutantStatus, Relation, SpecChange
from bot.symbolic.rounds import SLOW_METHOD_SECONDS, EngineLike, MethodJob, ScoreOptions
from bot.symbolic.spec_change import (
    INCONSISTENT,
    Direction,
    Found,
    comparable,
    consistency,
    program,
    relation,
    shown,
    side_by_side,
    variables,
)
from bot.symbolic.suggest.restore import Wanted, restorations
from bot.symbolic.witness_search import Search, failed_proof, run_searches
from bot.testcases.cases import TestCase

WITNESS_CASE = "spec-change witness"
# the questions whose counterexamples are witnesses: (direction, version that accepts, version that rejects)
_WITNESSED = {Direction.HEAD_WITHIN_BASE: ("head", "base"), Direction.BASE_WITHIN_HEAD: ("base", "head"),
              Direction.DROPPED_INPUTS: ("head", "base")}


@dataclass(frozen=True)
class Pair:
    """One method at base and at head, with its scores."""

    base: MethodJob
    head: MethodJob
    base_score: MethodScore
    head_score: MethodScore


@dataclass
class _Asked:
    pair: Pair
    preludes: dict[str, str]  # "base" / "head" -> that version's spec file, as its harnesses see it
    programs: dict[Direction, Program]
    probe: Program  # the consistency of both versions' declarations (`spec_change.consistency`)
    both: str = ""  # the two versions side by side (`spec_change.side_by_side`)
    time_limit: int | None = None  # the short limit, for a method whose scoring timed out


UNPROVED = "the counterexample was not proved on the concrete values"
Candidate = tuple[tuple[Value, ...], tuple[Value, ...]]  # a witness's inputs and output


def _search(a: _Asked, direction: Direction, dialect: Dialect) -> Search[Candidate]:
    """The search for a proved witness of one direction's question (bot/symbolic/witness_search.py)."""
    m = a.pair.head.method
    short = (lambda: program(a.both, m, direction, dialect, small=True, time_limit=a.time_limit)) \
        if bounded.applies(variables(m, direction)) else None
    return Search(lambda r, small: _read(a, direction, r, small),
                  lambda c: _confirming(a, direction, *c, dialect), short, lambda c: _long((*c[0], *c[1])),
                  eager=any(isinstance(p.type, ArrayT) for p in m.params), unconfirmed=UNPROVED)


def _background(s: MethodScore, version: str) -> str:
    why = unproved_background(s)
    return f"at {version}: {why}" if why else ""


def _confirming(a: _Asked, direction: Direction, inputs: tuple[Value, ...], output: tuple[Value, ...],
                dialect: Dialect) -> tuple[Program, ...] | str:
    """Programs proving on the concrete values that one version accepts `output` on `inputs` and the other
    rejects it there, both `requires` admitting the inputs."""
    accepts, rejects = _WITNESSED[direction]
    jobs = {"base": a.pair.base, "head": a.pair.head}
    out: list[Program] = []
    for version, goal in ((accepts, Goal.ACCEPT), (rejects, Goal.REJECT)):
        job = jobs[version]
        case = TestCase(WITNESS_CASE, job.method.name, inputs, output, source=job.file.path)
        try:
            h = CaseHarness(a.preludes[version], job.file, job.method, case, HarnessOptions(dialect=dialect))
            if direction is Direction.DROPPED_INPUTS and version == accepts:
                # head accepts any output here because its `requires` rejects the input: that is what is proved
                dropped = h.precondition(Goal.REJECT)
                if dropped is None:
                    return "head's requires admits every input"
                out.append(dropped.program)
                continue
            pre = h.precondition(Goal.ACCEPT)
            # the input's assumptions with this version's `requires` consistent, so that no claim holds vacuously
            out += [h.vacuity().program, *([pre.program] if pre is not None else []),
                    h.output(goal, output, ()).program]
        except HarnessError as e:
            return f"the counterexample cannot be checked: {e}"
    return tuple(out)


def _read(a: _Asked, direction: Direction, r: Result, small: bool = False) -> Candidate | str:
    """The input and output of a question's counterexample (`small`: of the question with short inputs)."""
    m = a.pair.head.method
    names = variables(m, direction)
    found = [] if not r.model else bounded.read(r.model, names) if small else readings(r.model, names)
    if not found:
        return "the counterexample could not be read"
    values = found[0]
    return values[: len(m.params)], values[len(m.params):]


def _long(values: Sequence[Value]) -> bool:
    return any(isinstance(v, SeqV | ArrayV) and len(v.elems) > bounded.BOUND for v in values)


def _from_tests(p: Pair, weaker: bool) -> Found | None:
    """A difference the tests already proved: the same case (inputs and expected output) with a mutant one version
    was proved to accept and the other to reject (`weaker`: head accepts it)."""
    cases = {(c.inputs, c.expected): c for c in p.base_score.cases}
    found = []
    for c in p.head_score.cases:
        b = cases.get((c.inputs, c.expected))
        if b is None:
            continue
        at_base = {m.value: m.status for m in b.mutants}
        # weaker: head proved to accept what base was proved to reject; stronger: the other way round
        now, was = ((MutantStatus.SURVIVED, MutantStatus.KILLED) if weaker
                    else (MutantStatus.KILLED, MutantStatus.SURVIVED))
        found += [Found(c.inputs, m.value) for m in c.mutants if m.status is now and at_base.get(m.value) is was]
    return min(found, key=lambda f: (len(f.output), f.output, f.inputs)) if found else None


def _test_values(p: Pair, found: Found) -> tuple[tuple[Value, ...], tuple[Value, ...]] | None:
    """The values of a difference the tests proved (`_from_tests`, head accepting): the case's inputs and, among
    the wrong outputs head was proved to accept there, the one written as the witness; None when none is (an order
    variant, an in-place method's post-state, an output the test leaves unchecked)."""
    cases = {c.name: c for c in p.head.cases}
    m = p.head.method
    for c in p.head_score.cases:
        case = cases.get(c.name)
        if c.inputs != found.inputs or case is None or case.post or case.unchecked:
            continue
        _, types, names = mutation_target(m, case)
        for v in c.accepted_wrong:
            if len(v) == len(m.returns) and len(names) == 1 and show(v[0], types[0]) == found.output:
                return case.inputs, v
    return None


def _fixes_test(p: Pair) -> bool:
    """Head accepts a test case base rejected (the same inputs and expected output)."""
    refuted = {(c.inputs, c.expected) for c in p.base_score.cases if c.status is CaseStatus.REFUTED}
    return any((c.inputs, c.expected) in refuted for c in p.head_score.cases if c.status is CaseStatus.VERIFIED)


def spec_changes(pairs: Sequence[Pair], engine: EngineLike, dialect: Dialect,
                 options: ScoreOptions | None = None) -> list[SpecChange]:
    """One SpecChange per pair whose spec files differ (an unchanged file relates nothing), in order; with
    `options`, each weakening whose witness came from the solver carries the restoring suggestion when one is
    proved (bot/symbolic/suggest/restore.py)."""
    out: dict[int, SpecChange] = {}
    asked: dict[int, _Asked] = {}
    for k, p in enumerate(pairs):
        file, method = p.head_score.file, p.head_score.method
        try:
            preludes = {"base": make_prelude(p.base.file, dialect, p.base.include_root, p.base.spec_path),
                        "head": make_prelude(p.head.file, dialect, p.head.include_root, p.head.spec_path)}
        except (ValueError, HarnessError) as e:
            out[k] = SpecChange(file, method, Relation.UNKNOWN, reason=str(e))
            continue
        if preludes["base"] == preludes["head"]:
            continue  # the same spec file: nothing changed in what the method's spec says (only its tests did)
        why = (_background(p.base_score, "base") or _background(p.head_score, "head")
               or refining_reason(p.base.file, p.base.method) or refining_reason(p.head.file, p.head.method)
               or comparable(p.base.method, p.head.method))
        if why:
            out[k] = SpecChange(file, method, Relation.UNKNOWN, reason=why)
            continue
        both = side_by_side(preludes["base"], preludes["head"], p.base.method, p.head.method,
                            (p.base.file.opened_in(p.base.method.container),
                             p.head.file.opened_in(p.head.method.container)))
        # either version's scoring timed out at the full limit: its questions get the short one (rounds.py)
        limit = SLOW_METHOD_SECONDS if p.base_score.slow or p.head_score.slow else None
        asked[k] = _Asked(p, preludes, {d: program(both, p.head.method, d, dialect, time_limit=limit)
                                        for d in Direction}, consistency(both, dialect), both, limit)
    first = engine.run([q for a in asked.values() for q in (*a.programs.values(), a.probe)]) if asked else {}
    for k, a in list(asked.items()):
        probed = first[a.probe].outcome
        if probed is not Outcome.REFUTED:  # `false` proved, or not known to be unprovable: nothing is compared
            why = INCONSISTENT if probed is Outcome.VERIFIED else ("whether base's and head's declarations are "
                                                                    "consistent is not known "
                                                                    f"({failed_proof(first[a.probe]) or probed.value})")
            out[k] = SpecChange(a.pair.head_score.file, a.pair.head_score.method, Relation.UNKNOWN, reason=why)
            del asked[k]
    # a difference the tests already proved needs no search of its question: its programs would only find another
    tested = {k: (_from_tests(a.pair, weaker=True), _from_tests(a.pair, weaker=False)) for k, a in asked.items()}
    skip = {Direction.HEAD_WITHIN_BASE: 0, Direction.BASE_WITHIN_HEAD: 1}
    searches = {(k, d): _search(a, d, dialect) for k, a in asked.items() for d in _WITNESSED
                if d not in skip or tested[k][skip[d]] is None}
    run_searches(engine, list(searches.values()), [first[asked[k].programs[d]] for k, d in searches])
    restore: dict[int, Wanted] = {}
    for k, a in asked.items():
        proved = {d: searches[k, d].proved for d in _WITNESSED if (k, d) in searches}
        reasons = {d: searches[k, d].why for d in _WITNESSED if (k, d) in searches and searches[k, d].why}
        values = {d: c for d, c in proved.items() if c is not None}
        found = {d: replace(shown(a.pair.head.method, *c), dropped=d is Direction.DROPPED_INPUTS)
                 for d, c in values.items()}
        weaker = found.get(Direction.HEAD_WITHIN_BASE) or found.get(Direction.DROPPED_INPUTS) or tested[k][0]
        stronger = found.get(Direction.BASE_WITHIN_HEAD) or tested[k][1]
        results = {d: first[q] for d, q in a.programs.items()}
        out[k] = relation(a.pair.head_score.file, a.pair.head_score.method, results, weaker, stronger, reasons,
                          _fixes_test(a.pair))
        # the witness the sentence says, as values: what a restored clause must be proved to reject
        said = found.get(Direction.HEAD_WITHIN_BASE)
        said_values = (values[Direction.HEAD_WITHIN_BASE] if said is not None and said == weaker
                       else _test_values(a.pair, weaker) if weaker is not None and not weaker.dropped else None)
        if said_values is not None and weaker is not None and out[k].weakens and (
                out[k].inputs, out[k].output) == (weaker.inputs, weaker.output):
            restore[k] = Wanted(a.pair.base, a.pair.head, a.pair.head_score, *said_values)
    if options is not None and restore:
        for k, lines in zip(restore, restorations(list(restore.values()), engine, dialect, options), strict=True):
            if lines:
                out[k] = replace(out[k], restore=lines)
    return [out[k] for k in sorted(out)]
