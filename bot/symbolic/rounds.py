"""From parsed spec files and their test cases to method scores, through an engine.

No I/O of its own: the engine (which runs the verifier) is passed in. Rounds, each asking only what the
previous left open: first the checks of every case (precondition, vacuity, acceptance of the expected
output, and a small case's pin check); then, when the acceptance timed out, each ensures clause alone (all
proved: accepted, see _Stage.CLAUSES); then the rejection of what was not accepted (after the clauses, also
of each clause not proved accepted; once proved, which clause rejects it), or the pin check of a larger
case; then the rejection of the mutants not already rejected by a proved pin, with the order-free pin and
the candidate outputs; last the acceptance of the mutants whose rejection was not proved. A verdict against
the spec is always a proved rejection; everything else is unknown with its reason. Planned from the
benchmark (bench/RESULTS.md): most pin checks are proved, so they go early and the programs they make
unnecessary are never asked.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from fractions import Fraction
from pathlib import Path
from typing import Protocol, cast

from bot.dafny.decls import DafnyFile, Decl
from bot.dafny.dialect import Dialect
from bot.dafny.includes import included_files
from bot.dafny.types import ArrayT, DafnyType, DatatypeT, RealT, SeqT, TupleT, constructors, unsupported_parts
from bot.dafny.values import ArrayV, RealV, SeqV, Value, show
from bot.progress.lines import MethodTally
from bot.symbolic.allowance import NOT_ASKED, Allowance, over_budget
from bot.symbolic.background import (
    BACKGROUND_METHOD,
    BACKGROUND_NAME,
    CheckReport,
    axioms,
    background_status,
    ill_formed,
    may_trust_statements,
    reached,
    read_check,
    trusted_statements,
    well_formed,
)
from bot.symbolic.counterexamples import decode_all
from bot.symbolic.harness.programs import (
    CaseHarness,
    HarnessError,
    HarnessOptions,
    Planned,
    UnsupportedType,
    make_prelude,
    mutation_target,
    split_mutant,
    split_values,
    target_tolerances,
)
from bot.symbolic.ledger import Ledger
from bot.symbolic.mutants import Mutant, mutate, neighbours, same_elements
from bot.symbolic.program import Goal, Outcome, Program, ProgramKind, Result
from bot.symbolic.proofs import Judged, Proof, judge
from bot.symbolic.results import (
    NO_TEST_CASES,
    Axiom,
    BackgroundStatus,
    CaseResult,
    CaseStatus,
    Determinacy,
    KillProof,
    MethodScore,
    MutantResult,
    MutantStatus,
    Undecided,
    method_score,
)
from bot.symbolic.together import Stoppable, together
from bot.symbolic.verdicts import (
    INCONSISTENT_MESSAGE,
    VACUOUS_MESSAGE,
    Decision,
    case_status,
    decide,
    mutant_status,
    precondition_status,
)
from bot.testcases.cases import UNCHECKED, CaseProblem, ReadResult, TestCase, Tolerance, join_notes
from bot.testcases.dfy_methods import function_target
from bot.testcases.expectations import called_names


class EngineLike(Protocol):
    def run(self, programs: Sequence[Program]) -> dict[Program, Result]: ...


class BudgetedEngine(Protocol):
    """An engine whose `budgeted` attribute is true: its runs take the methods' budgets (bot/symbolic/allowance.py)."""

    def run(self, programs: Sequence[Program], allowance: Allowance | None = None) -> dict[Program, Result]: ...


class Strategy(Enum):
    """How many programs the rounds ask, and with which limits (the verdicts are the same proofs either way)."""

    # every question its own program at the full limit
    EACH = "each"
    # fewer programs: a case not pinned exactly asks its order-free pin before its mutants; when proved, it
    # rejects at once every mutant whose elements differ, and the set-level pin (which it implies) is not asked;
    # the mutants left are first rejected all in one program, and asked one by one only when that is not proved;
    # a case pinned up to order confirms no other output (none can be a witness), and a suggestion's rescoring
    # none at all (it reads the pins only); a postcondition of several clauses gets a short first limit on the
    # expected output (then clause by clause, and the full limit only when the clauses do not decide), and when
    # it is accepted clause by clause its pin checks assume its leading clauses only
    LEAN = "lean"


# first limit of a large acceptance program (over EAGER_PIN_BELOW characters) of a postcondition of several
# clauses (Strategy.LEAN): on the development subset one spec's took 8.9 s or timed out at 20 s depending on the
# solver's luck, while each of its clauses alone took under 1 s. Small ones keep the full limit: a program of
# another limit goes in another batch, and a batch's other programs would then get other counterexamples
FIRST_ACCEPT_SECONDS = 4
SLOW_METHOD_SECONDS = 4  # ScoreOptions.slow_limit (no program of the development subset takes longer and proves)
SLOW_NOTE = ("a program of this method timed out at the full limit: its later pin checks and mutants were asked "
             f"with a {SLOW_METHOD_SECONDS} s limit")
_CUT_SHORT = frozenset({ProgramKind.PIN, ProgramKind.MUTANT})  # what a slow method's later programs cut short are
# the score's default budget (ScoreOptions.budget), in full time limits: six, 120 s at the default 20 s. The
# development subset's costliest method takes 37 s of verification in all; the published suites' slowest took
# 300 s and more, one time-out of 20 s after another
METHOD_BUDGET_LIMITS = 6
BUDGET_NOTE = ("the method's budget of verification ran out: its programs not yet asked were not asked, and what "
               "they would have decided is unknown")
BUDGET_MESSAGE = NOT_ASKED  # what run_out answers: the engine's words for a program it did not ask


@dataclass(frozen=True)
class ScoreOptions:
    mutants: int = 5
    seed: int = 0
    harness: HarnessOptions = field(default_factory=HarnessOptions)
    pin: bool = True  # prove, per accepted case, whether the spec admits only the expected output
    suggest: bool = True  # search weak specs for a verified stronger clause (bot/symbolic/suggest)
    strategy: Strategy = Strategy.LEAN
    # confirm the candidate outputs a failed pin check sends (the witnesses a report shows); a suggestion's
    # rescoring reads only what the pins prove, which no witness changes. The search for values of outputs the test
    # leaves unchecked is not this: an acceptance needs it
    witnesses: bool = True
    # Strategy.LEAN: the first limit of a large acceptance (None: the full limit at once), and the pin checks of the
    # leading clauses of a case accepted clause by clause (a suggestion's rescoring has neither: its new clause is
    # the last, which those pin checks leave out)
    first_limit: int | None = FIRST_ACCEPT_SECONDS
    leading_pins: bool = True
    # once a program of a method timed out, the limit of its later pin checks and mutants (None: the full limit): a
    # method whose proofs time out at the full limit keeps doing so, each time-out costing the whole limit (the slow
    # tail of the published suites); a program cut short is unknown, never a verdict
    slow_limit: int | None = SLOW_METHOD_SECONDS
    # seconds of verification a method's programs may take in all, summed (None: no budget): past it, the programs
    # it has not asked are not asked, each left unknown as a time-out would be, and the method counts as slow. It is
    # looked at between rounds, and inside one by an engine that takes it (bot/symbolic/allowance.py)
    budget: int | None = None


_MOST_STAGES = 64  # a bound on a case's stages (each moves on; a case needs a dozen at most)
EAGER_PIN_BELOW = 4000  # characters of the acceptance program: a case this small gets its pin check in round 1
# ... when its method has a budget and at most this many cases: in the first round each case's acceptance and eager pin
# check may both time out at the full limit, so the eager pins could spend the budget of a method of more cases on
# their own, before its acceptances (HumanEval-Dafny's 033, 8 cases: 7 eager pins timed out beside 8
# acceptances, 158 s of a first round of 321 s, every one of them read only after an acceptance that was never proved)
EAGER_PIN_CASES = METHOD_BUDGET_LIMITS // 2
GUESS_REJECTED = "the spec rejects the guessed expected value, which the test never states: this refutes nothing"
DESCRIPTIVE_SECONDS = 5  # time limit of the programs that only describe (see _descriptive); most take under 1 s
# limit of the one program rejecting every mutant left (Strategy.LEAN): its parts take 0.1 s each on the
# development subset; past it, they are asked one by one
CONJOINED_SECONDS = 2
# a pin check of the leading clauses (Strategy.LEAN): a proof kills at any limit, a time-out loses only the pin
PIN_PART_SECONDS = 5
MAX_CANDIDATES = 4  # other outputs confirmed per case when the pin check fails (the solver's first)
SOLVER, SEARCH, MUTANT = "solver", "search", "mutant"  # where a witness came from


@dataclass(frozen=True)
class MethodJob:
    file: DafnyFile  # the spec file (its declarations are the harness prelude)
    method: Decl
    cases: tuple[TestCase, ...]
    problems: tuple[CaseProblem, ...] = ()
    display_path: str = ""  # path as shown in reports
    # `include`s are followed only to files inside this folder (None: an include is refused);
    # `spec_path` is where the spec lies on disk when `file.path` is not that path
    include_root: Path | None = None
    spec_path: Path | None = None
    # outputs to try as mutants besides the generated ones, by case name (a suggested clause's check: the wrong
    # outputs the original spec accepts)
    extra_outputs: tuple[tuple[str, tuple[tuple[Value, ...], ...]], ...] = ()
    # the method's budget when another run spent some of it already (a suggestion's rescoring: its method's); None:
    # a budget of its own (ScoreOptions.budget)
    ledger: Ledger | None = field(default=None, compare=False, repr=False)


def method_jobs(
    file: DafnyFile,
    read: ReadResult,
    names: Sequence[str] | None = None,
    display_path: str = "",
    include_root: Path | None = None,
) -> list[MethodJob]:
    """One job per tested method of the file (or per given name), with its cases and unreadable cases."""
    if names is None:
        names = sorted({c.method for c in read.cases} | {p.method for p in read.problems if p.method})
    jobs = []
    for name in names:
        decl = file.find(name)
        if decl is not None and decl.kind != "method":
            decl = function_target(decl)  # a function its tests call directly
        if decl is None:
            continue
        # methods are known by their qualified names: `A.Add` and `B.Add` are two jobs
        key = decl.qualified
        cases = tuple(c for c in read.cases if c.method == key)
        problems = tuple(p for p in read.problems if p.method in ("", key))
        jobs.append(MethodJob(file, decl, cases, problems, display_path or file.path, include_root))
    return jobs


def specified_methods(file: DafnyFile) -> list[str]:
    """The qualified names of the file's methods that state something of their outputs or of the heap: non-ghost
    methods with an `ensures` and outputs or a `modifies` (a test method states nothing; a ghost method is a lemma).
    What a spec without tests is scored on: every input (bot/symbolic/everywhere.py)."""
    return sorted({d.qualified for d in file.methods()
                   if not d.ghost and d.clause_texts("ensures")
                   and (d.returns or d.clause_texts("modifies"))})


def show_assignment(names: Sequence[str], values: Sequence[object], types: Sequence[object]) -> str:
    parts = [f"{n} = {show(v, t)}" for n, v, t in zip(names, values, types, strict=True)]  # type: ignore[arg-type]
    return ", ".join(parts)


def _display(job: MethodJob, case: TestCase) -> tuple[str, str]:
    m = job.method
    inputs = show_assignment([p.name for p in m.params], case.inputs, [p.type for p in m.params])
    values, types, names = mutation_target(m, case)
    expected = show_assignment(names, values, types)
    if case.property:  # a property expectation: what the test states of the outputs it does not give
        expected = f"{expected}; {case.property}" if expected else case.property
    return inputs, expected


def _fixed(job: MethodJob, case: TestCase, status: CaseStatus, message: str) -> CaseResult:
    try:
        inputs, expected = _display(job, case)
    except (ValueError, TypeError, AssertionError):
        inputs, expected = "", ""
    return CaseResult(case.name, case.line, inputs, expected, case.text, case.source, status, message, note=case.note)


def _unsupported(job: MethodJob) -> list[CaseResult]:
    """Cases that could not be read because the method has a type without values: one result each."""
    bad = [(p, unsupported_parts(p.type)) for p in (*job.method.params, *job.method.returns)]
    bad = [(p, parts) for p, parts in bad if parts]
    if not bad:
        return []
    p, parts = bad[0]
    reason = f"unsupported type `{p.type_text}` of `{p.name}` (not supported: {', '.join(parts)})"
    return [
        CaseResult(prob.name or f"case#{k}", prob.line, "", "", "", prob.source, CaseStatus.UNSUPPORTED, reason)
        for k, prob in enumerate(job.problems, 1)
    ]


def _mutants_for(job: MethodJob, case: TestCase, options: ScoreOptions) -> list[Mutant]:
    values, types, names = mutation_target(job.method, case)
    if not values or (options.mutants <= 0 and not job.extra_outputs) or case.refs:
        return []  # (an output that *is* an argument has no wrong contents)
    # arrays changed in place keep their length: a shorter expected state has no harness
    fixed = frozenset(range(len(values) - len(case.post), len(values)))
    # seeded by the case's content, not its name or place: adding or reordering other tests
    # changes no case's mutants (the expected output is part of the seed inside `mutate`)
    inputs = "\0".join(repr(v) for v in case.inputs)
    try:
        made = mutate(
            values,
            types,
            names,
            seed=options.seed,
            count=options.mutants,
            salt=f"{job.method.qualified}\0{inputs}",
            real_tolerance=options.harness.real_tolerance,
            fixed_length=fixed,
            real_absolute=target_tolerance_bounds(job, case),
        )
    except ValueError:
        made = []  # a type without mutation operators: the case still counts for correctness
    extra = dict.fromkeys(v for name, outputs in job.extra_outputs if name == case.name for v in outputs)
    out: list[Mutant] = []
    for m in made:  # a generated mutant that is one of them is tagged, once
        if m.values in extra:
            del extra[m.values]
            m = Mutant(m.values, EXTRA_OUTPUT)
        out.append(m)
    return out + [Mutant(v, EXTRA_OUTPUT) for v in extra if v != values]


EXTRA_OUTPUT = "a wrong output the spec without the suggestion accepts"


class Ask(Enum):
    """What a program of a case asks (`Key` adds the clause, value or candidate it is about)."""

    PRE = "pre"  # the inputs satisfy `requires`
    PRE_REJECT = "pre-reject"  # they violate it
    PRE_REJECT_CLAUSE = "pre-reject-clause"  # requires clause k rejects them
    VACUITY = "vacuity"  # the assumptions about the inputs are contradictory
    CONSISTENCY = "consistency"  # the spec assumed of the expected output proves `false`
    WITNESS = "witness"  # the rejection for every value of the unchecked outputs (its model gives them values)
    ACCEPT = "accept"  # the spec accepts the expected output
    ACCEPT_CLAUSE = "accept-clause"  # ensures clause k accepts it
    REJECT = "reject"  # the spec rejects it
    REJECT_CLAUSE = "reject-clause"  # ensures clause k rejects it
    WITHIN = "within"  # real value k within the tolerance is accepted
    WITHIN_REJECT = "within-reject"  # every real within the tolerance is rejected
    PIN = "pin"  # the spec admits the expected output only
    PIN_MULTISET = "pin-multiset"  # ... up to order
    PIN_SET = "pin-set"  # ... as a set
    CANDIDATE = "candidate"  # candidate k, another output the spec may accept
    REJECT_ALL = "reject-all"  # every mutant left is rejected (one program, Strategy.LEAN)
    ACCEPT_FULL = "accept-full"  # the acceptance again at the full limit (its first limit was short)
    PIN_PART = "pin-part"  # the first k ensures clauses admit the expected output only (k: `Key.index`)
    PIN_MULTISET_PART = "pin-multiset-part"  # ... up to order


@dataclass(frozen=True)
class Key:
    """A program of a case: what it asks, and of which clause, value or candidate (-1: of none)."""

    ask: Ask
    index: int = -1


_PRE, _PRE_REJECT, _VACUITY, _CONSISTENCY, _WITNESS = (
    Key(Ask.PRE), Key(Ask.PRE_REJECT), Key(Ask.VACUITY), Key(Ask.CONSISTENCY), Key(Ask.WITNESS))
_ACCEPT, _REJECT, _WITHIN_REJECT = Key(Ask.ACCEPT), Key(Ask.REJECT), Key(Ask.WITHIN_REJECT)
_PIN, _PIN_MULTISET, _PIN_SET = Key(Ask.PIN), Key(Ask.PIN_MULTISET), Key(Ask.PIN_SET)
_REJECT_ALL, _ACCEPT_FULL = Key(Ask.REJECT_ALL), Key(Ask.ACCEPT_FULL)


class _Stage(Enum):
    CHECK = "check"  # precondition, vacuity, acceptance of the expected output
    PRECONDITION = "precondition"  # `requires` not proved: is its violation?
    CLAUSES = "clauses"  # acceptance timed out: each ensures clause alone (all proved: accepted)
    REJECT = "reject"  # acceptance not proved: is the rejection? (and within tolerance?)
    CLAUSE = "clause"  # rejection proved: which ensures clause rejects the output
    PRE_CLAUSE = "pre-clause"  # violation of `requires` proved: which requires clause rejects the inputs
    PIN = "pin"  # the pin check first: when proved, it rejects every mutant at once
    PIN_PARTS = "pin-parts"  # accepted clause by clause (Strategy.LEAN): the pin checks of the leading clauses
    ORDER_FREE = "order-free"  # not pinned exactly (Strategy.LEAN): the order-free pin, before the mutants
    MUTANTS_ALL = "mutants-all"  # rejection of every mutant left in one program (Strategy.LEAN)
    MUTANTS = "mutants"  # rejection of each mutant
    SURVIVORS = "survivors"  # acceptance of the mutants whose rejection was not proved
    DONE = "done"


@dataclass
class _Mutant:
    mutant: Mutant
    reject: Planned
    rejected: Judged | None = None
    accept: Planned | None = None
    result: MutantResult | None = None


# a case's note when a hint the tool wrote did not resolve (its programs were asked again without hints)
HINTS_DROPPED = "a proof hint the tool wrote did not resolve: the case was asked again without hints"


class _CaseRun:
    """One case through the stages; each stage asks only what the previous left open."""

    def __init__(
        self, job: MethodJob, case: TestCase, prelude: str, options: ScoreOptions, guarded: bool = False,
        declared: frozenset[str] | None = None, slow: list[bool] | None = None,
    ) -> None:
        self.job, self.case, self.options = job, case, options
        self.given = (prelude, guarded, declared, slow)  # to ask the case again without hints (_without_hints)
        # shared by the method's cases: set once a program of the method timed out (ScoreOptions.slow_limit)
        self.slow = slow if slow is not None else [False]
        self.stage = _Stage.CHECK
        self.planned: dict[Key, Planned] = {}
        self.judged: dict[Key, Judged] = {}
        self.over_budget: set[Key] = set()  # keys whose programs the budget left unasked or cut short
        self.mutants: list[_Mutant] = []
        self.candidates: list[tuple[tuple[Value, ...], str]] = []  # other outputs to confirm, and their source
        self.result: CaseResult | None = None
        self.status: tuple[CaseStatus, Undecided | None, str, str] | None = None
        self.note = case.note
        if job.method.tested_function:
            self.note = join_notes(self.note, f"a test of the function `{job.method.name}`: its body is the "
                                              "specification checked")
        if case.unchecked and UNCHECKED not in self.note:
            names = ", ".join(f"`{job.method.returns[k].name}`" for k in case.unchecked)
            verb = "is" if len(case.unchecked) == 1 else "are"
            self.note = join_notes(self.note, f"{names} {verb} {UNCHECKED}")
        for t in case.tolerances:
            name = job.method.returns[t.output].name
            self.note = join_notes(self.note, f"`{name}` compared within the test's own tolerance "
                                              f"{_decimal(t.bound)} (|{name} - expected| {'<' if t.strict else '<='} "
                                              f"{_decimal(t.bound)})")
        self.pin_model = ""
        self.candidates_planned = False
        self.order_free: Planned | None = None  # the order-free pin check, asked only if the exact one is not proved
        self.as_set: Planned | None = None  # the set-level pin check, asked with the order-free one
        # the values the spec admits for the outputs the test does not check, once a witness is found
        self.witness: dict[int, Value] = {}
        missing = _undeclared_calls(case.property, declared) if case.property and declared is not None else []
        try:
            if missing:
                raise UnsupportedType(f"the property `{case.property}` calls `{missing[0]}`, which the spec files "
                                      "do not declare")
            self.harness: CaseHarness | None = CaseHarness(prelude, job.file, job.method, case, options.harness)
            if self.harness.unstated_note:
                self.note = join_notes(self.note, self.harness.unstated_note)
            pre = self.harness.precondition(Goal.ACCEPT)
            if pre is not None:
                self.planned[_PRE] = pre
            self.planned[_VACUITY] = self.harness.vacuity()
            if guarded:  # trusted axioms: the case's context itself must not prove `false`
                self.planned[_CONSISTENCY] = self.harness.consistency()
            if case.unchecked:
                # some outputs unchecked: their rejection for every value first; its counterexample, when it has
                # one, is a witness for them, whose acceptance is then asked (see _advance)
                rejection = self.harness.output(Goal.REJECT, case.expected, case.post)
                self.planned[_WITNESS] = replace(rejection, program=replace(rejection.program, want_model=True))
            else:
                accept = self.harness.output(Goal.ACCEPT, case.expected, case.post)
                if self._clause_by_clause() and options.strategy is Strategy.LEAN \
                        and options.first_limit is not None and len(accept.program.method) > EAGER_PIN_BELOW:
                    accept = _with_limit(accept, options.first_limit)
                self.planned[_ACCEPT] = accept
            first = self.planned.get(_ACCEPT, self.planned.get(_WITNESS))
            if options.pin and first is not None and len(first.program.method) <= EAGER_PIN_BELOW \
                    and (options.budget is None or len(job.cases) <= EAGER_PIN_CASES):
                # a small case's pin check goes with its checks, saving the round it would need after them;
                # its answer is read only once the acceptance is proved (see _start_mutants)
                with contextlib.suppress(HarnessError):  # no pin check then (see _start_mutants)
                    eager = self.harness.pin(Goal.PIN)
                    if eager is not None:
                        self.planned[_PIN] = eager
        except HarnessError as e:
            self.harness = None
            status = CaseStatus.UNSUPPORTED if isinstance(e, UnsupportedType) else CaseStatus.ERROR
            self.result = _fixed(job, case, status, str(e))
            self.stage = _Stage.DONE

    def programs(self) -> list[Planned]:
        """What this stage needs verified (not yet judged)."""
        if self.stage is _Stage.DONE:
            return []
        if self.slow[0] and self.options.slow_limit is not None:
            self._cut_short(self.options.slow_limit)
        return self._pending()

    def _pending(self) -> list[Planned]:
        """The stage's programs not yet judged, as they are."""
        if self.stage is _Stage.DONE:
            return []
        todo = [p for key, p in self.planned.items() if key not in self.judged]
        if self.stage in (_Stage.PIN, _Stage.PIN_PARTS, _Stage.ORDER_FREE, _Stage.MUTANTS_ALL):
            return todo  # the mutants wait: a proved pin check or conjoined rejection makes their programs unnecessary
        for m in self.mutants:
            if m.result is None:
                todo.append(m.reject if self.stage is _Stage.MUTANTS else m.accept)  # type: ignore[arg-type]
        return todo

    def _cut_short(self, limit: int) -> None:
        """The pin checks and mutants not yet asked get `limit` (the method is slow): each a time-out at most that
        long. The programs that decide the case itself (its precondition, vacuity, acceptance and rejection, clause by
        clause too) keep theirs: the case's verdict is what a user reads first."""
        def short(p: Planned) -> Planned:
            if p.kind not in _CUT_SHORT or (p.program.time_limit is not None and p.program.time_limit <= limit):
                return p
            return _with_limit(p, limit)
        cut = False
        for key, p in list(self.planned.items()):
            if key not in self.judged and short(p) is not p:
                self.planned[key], cut = short(p), True
        for m in self.mutants:
            if m.result is None and m.rejected is None and short(m.reject) is not m.reject:
                m.reject, cut = short(m.reject), True
            if m.result is None and m.accept is not None and short(m.accept) is not m.accept:
                m.accept, cut = short(m.accept), True
        if cut and SLOW_NOTE not in self.note:
            self.note = join_notes(self.note, SLOW_NOTE)

    def absorb(self, results: dict[Program, Result]) -> None:
        """Judge this stage's programs and move on."""
        asked = [p.program for p in self._pending()]  # what this round asked (programs() cut them before)
        # at the full limit: the method's later programs get the short one (what a budget left unasked or cut short
        # did not time out)
        if any(results[p].outcome is Outcome.TIMEOUT and p.time_limit is None and not over_budget(results[p])
               for p in asked):
            self.slow[0] = True
        for key, p in self.planned.items():
            if key not in self.judged:
                self.judged[key] = judge(results[p.program], p)
                if over_budget(results[p.program]):
                    self.over_budget.add(key)
                if key == _PIN:
                    self.pin_model = results[p.program].model  # read later, when candidates are planned
        if self.options.harness.hints and any(j.hint_unresolved for j in self.judged.values()):
            return self._without_hints()
        try:
            self._advance(results)
        except HarnessError as e:
            self.result = _fixed(self.job, self.case, CaseStatus.ERROR, str(e))
            self.stage = _Stage.DONE

    def _without_hints(self) -> None:
        """A hint the tool wrote did not resolve (a fault of the tool's, never a verdict): the case is asked again from
        its start with no hints, and says so."""
        prelude, guarded, declared, slow = self.given
        options = replace(self.options, harness=replace(self.options.harness, hints=False))
        self.__init__(self.job, self.case, prelude, options, guarded, declared, slow)  # type: ignore[misc]
        self.note = join_notes(self.note, HINTS_DROPPED)

    def _advance(self, results: dict[Program, Result]) -> None:
        if self.stage is not _Stage.DONE:
            _TRANSITIONS[self.stage](self, results)

    def _on_check(self, results: dict[Program, Result]) -> None:
        """The case's checks: the precondition, vacuity, consistency and acceptance."""
        h = self.harness
        assert h is not None
        j = self.judged
        if _PRE in j and not j[_PRE].proved:
            if j[_PRE].proof is Proof.ERROR:
                return self._finish(CaseStatus.ERROR, None, j[_PRE].message)
            rej = h.precondition(Goal.REJECT)
            assert rej is not None
            self.planned[_PRE_REJECT] = rej
            self.stage = _Stage.PRECONDITION
            return None
        if {_VACUITY, _CONSISTENCY} & self.over_budget:
            # a check the budget left unasked says nothing: the acceptance beside it may rest on contradictory
            # assumptions, so no verdict (a budget splits a round's programs over batches it may stop)
            return self._finish(CaseStatus.UNKNOWN, Undecided.TIMEOUT, BUDGET_MESSAGE)
        if j[_VACUITY].proved:
            return self._finish(CaseStatus.VACUOUS, None, VACUOUS_MESSAGE)
        if self._proved(_CONSISTENCY):
            return self._finish(CaseStatus.INCONSISTENT, None, INCONSISTENT_MESSAGE)
        if _ACCEPT not in self.planned:
            return self._after_witness(results)
        if j[_ACCEPT].proved:
            return self._start_mutants()
        if j[_ACCEPT].proof is Proof.ERROR:
            return self._finish(CaseStatus.ERROR, None, j[_ACCEPT].message)
        if j[_ACCEPT].proof is Proof.TIMEOUT and self._clause_by_clause():
            # smaller questions before the rejection: a postcondition whose clauses are each proved in
            # a second can time out as a whole (bench/RESULTS.md), and then its rejection would too
            for k in range(len(h.ens_texts)):
                self.planned[Key(Ask.ACCEPT_CLAUSE, k)] = h.output(
                    Goal.ACCEPT_CLAUSE, self._with_witness(self.case.expected), self.case.post, clause=k
                )
            self.stage = _Stage.CLAUSES
            return None
        return self._start_rejection()

    def _clause_by_clause(self) -> bool:
        """Whether a time-out of the whole acceptance is followed by each clause's (several clauses, no property)."""
        return self.harness is not None and len(self.harness.ens_texts) > 1 and not self.case.property

    def _on_clauses(self, results: dict[Program, Result]) -> None:
        """Each ensures clause's acceptance, the whole having timed out."""
        h = self.harness
        assert h is not None
        j = self.judged
        limit = self.planned[_ACCEPT].program.time_limit  # the first limit, when it had one
        if all(j[Key(Ask.ACCEPT_CLAUSE, k)].proved for k in range(len(h.ens_texts))):
            took = f"took over {limit} s, its first limit" if limit is not None else "timed out"
            self.note = join_notes(self.note, f"accepted clause by clause (the whole postcondition {took})")
            return self._start_mutants(whole_timed_out=True)
        self._start_rejection()
        if limit is not None:
            # the clauses did not decide: the whole again at the full limit, with the rejection, so that the
            # verdict is the one the full limit gives
            self.planned[_ACCEPT_FULL] = _with_limit(self.planned[_ACCEPT], None)
        if _WITHIN_REJECT not in self.planned:  # with a tolerance, one rejected value proves nothing
            # the rejection of a clause not proved accepted, with the full limit and beside the conjunction's:
            # a proved one is a proof of rejection where the whole may time out again
            for k in range(len(h.ens_texts)):
                if not j[Key(Ask.ACCEPT_CLAUSE, k)].proved:
                    self.planned[Key(Ask.REJECT_CLAUSE, k)] = h.output(
                        Goal.REJECT_CLAUSE, self.case.expected, self.case.post, clause=k
                    )
        return None

    def _on_precondition(self, results: dict[Program, Result]) -> None:
        """The violation of `requires`, the inputs not having been proved to satisfy it."""
        h = self.harness
        assert h is not None
        j = self.judged
        settled = precondition_status(j[_PRE], j[_PRE_REJECT])
        assert settled is not None  # the acceptance was not proved
        status, reason, message = settled
        if status is CaseStatus.PRECONDITION_VIOLATED and len(h.req_texts) > 1:
            for k in range(len(h.req_texts)):
                planned = h.precondition(Goal.REJECT, clause=k)
                assert planned is not None
                self.planned[Key(Ask.PRE_REJECT_CLAUSE, k)] = _descriptive(planned)
            self.stage = _Stage.PRE_CLAUSE
            return None
        violated = status is CaseStatus.PRECONDITION_VIOLATED
        return self._finish(status, reason, message, self._violated_clause() if violated else "")

    def _on_pre_clause(self, results: dict[Program, Result]) -> None:
        """Which requires clause rejects the inputs."""
        j = self.judged
        return self._finish(CaseStatus.PRECONDITION_VIOLATED, None, j[_PRE_REJECT].message,
                            self._violated_clause())

    def _on_reject(self, results: dict[Program, Result]) -> None:
        """The rejection (and within the tolerance), the acceptance not having been proved."""
        j = self.judged
        if _ACCEPT_FULL in j:
            j[_ACCEPT] = j[_ACCEPT_FULL]  # the first, short limit's time-out decides nothing
            if j[_ACCEPT].proved:
                if self._proved(_REJECT) or self._proved(_WITHIN_REJECT) or self._proved_clause():
                    return self._finish(CaseStatus.VACUOUS, None, BOTH_MESSAGE)
                return self._start_mutants()
        if _WITHIN_REJECT in j:
            # a real output: some value within the tolerance accepted, or every one rejected
            tried = [v for key, v in j.items() if key.ask is Ask.WITHIN]
            accepted = next((v for v in tried if v.proved), tried[-1])
            decision, reason, message = decide(accepted, j[_WITHIN_REJECT])
            if decision is Decision.ACCEPTED:
                self.note = join_notes(self.note, "accepted within the real tolerance (not the exact value)")
                return self._start_mutants()
            if decision is Decision.UNDECIDED:
                _, reason, message = decide(j[_ACCEPT], j[_WITHIN_REJECT])
        else:
            decision, reason, message = decide(j[_ACCEPT], j[_REJECT])
        clause_proved = bool(self._proved_clause())
        if clause_proved and decision in (Decision.UNDECIDED, Decision.ERROR):
            # a clause proved false: so is the conjunction (a proved rejection outranks an error, as in `decide`)
            decision = Decision.REJECTED
        if decision is Decision.REJECTED:
            return self._rejected()
        status, reason = case_status(decision, reason)
        return self._finish(status, reason, message, _stuck_clause(message) if reason else "")

    def _on_clause(self, results: dict[Program, Result]) -> None:
        """Which ensures clause rejects the output."""
        return self._finish(CaseStatus.REFUTED, None, self._accept_message(), self._rejecting_clause())

    def _on_pin(self, results: dict[Program, Result]) -> None:
        """The pin check."""
        j = self.judged
        if not j[_PIN].proved and self.order_free is not None and self.options.strategy is Strategy.LEAN \
                and self.mutants and not self._tolerant():
            # first: when proved, it rejects every mutant whose elements differ, with no program of its own
            self.planned[_PIN_MULTISET] = self.order_free
            self.stage = _Stage.ORDER_FREE
            return None
        if not j[_PIN].proved and self.order_free is not None:
            self.planned[_PIN_MULTISET] = self.order_free  # with the mutants' round: no round of its own
            if self.as_set is not None:
                self.planned[_PIN_SET] = self.as_set
        self._kill_by_exact_pin()
        self._to_mutants()

    def _on_order_free(self, results: dict[Program, Result]) -> None:
        """The order-free pin check, the exact one not proved (Strategy.LEAN)."""
        if self.judged[_PIN_MULTISET].proved:
            # the set-level pin follows from it: not asked
            self._kill_by_order_free_pin()
        elif self.as_set is not None:
            self.planned[_PIN_SET] = self.as_set  # with the mutants' round
        self._to_mutants()

    def _to_mutants(self) -> None:
        """After the pin checks: the mutants they left, or straight to the survivors' stage when none is left."""
        self.stage = self._mutants_stage() if any(m.result is None for m in self.mutants) else _Stage.SURVIVORS
        self._after_mutant_round()

    def _mutants_stage(self) -> _Stage:
        """MUTANTS, or first MUTANTS_ALL (Strategy.LEAN, two mutants left or more: one program for them all)."""
        left = [m for m in self.mutants if m.result is None]
        if self.options.strategy is not Strategy.LEAN or len(left) < 2 or self.harness is None:
            return _Stage.MUTANTS
        try:
            together = self.harness.rejections([self._split(m.mutant) for m in left])
        except HarnessError:
            return _Stage.MUTANTS
        # a conjunction that is slow proves nothing more than its parts: a short limit, then one by one
        self.planned[_REJECT_ALL] = _with_limit(together, CONJOINED_SECONDS)
        return _Stage.MUTANTS_ALL

    def _proved(self, key: Key) -> bool:
        """Whether the program asked for `key` was judged, and proved its goal."""
        return key in self.judged and self.judged[key].proved

    def _kill(self, m: _Mutant, proof: KillProof) -> None:
        """`m` rejected, and by which proof."""
        m.result = replace(self._mutant_result(m.mutant, Decision.REJECTED, None, ""), killed_by=proof)

    def _on_mutants_all(self, results: dict[Program, Result]) -> None:
        """Every mutant left rejected in one program: proved, each rejection is (a proof of the conjunction)."""
        if self.judged[_REJECT_ALL].proved:
            for m in self.mutants:
                if m.result is None:
                    self._kill(m, KillProof.REJECTION)
            self.stage = _Stage.SURVIVORS
        else:
            self.stage = _Stage.MUTANTS
        self._after_mutant_round()

    def _on_mutants(self, results: dict[Program, Result]) -> None:
        """Each mutant's rejection."""
        h = self.harness
        assert h is not None
        for m in self.mutants:
            if m.result is not None:
                continue  # rejected by the order-free pin: no program of its own
            m.rejected = judge(results[m.reject.program], m.reject)
            if m.rejected.proved:
                self._kill(m, KillProof.REJECTION)
            else:
                m.accept = h.output(Goal.ACCEPT, *self._split(m.mutant), mutant=m.mutant)
        self.stage = _Stage.SURVIVORS
        self._after_mutant_round()

    def _on_survivors(self, results: dict[Program, Result]) -> None:
        """The acceptance of each mutant whose rejection was not proved."""
        for m in self.mutants:
            if m.result is None:
                assert m.accept is not None and m.rejected is not None
                decision, reason, message = decide(judge(results[m.accept.program], m.accept), m.rejected)
                m.result = self._mutant_result(m.mutant, decision, reason, message)
        self._after_mutant_round()

    def _after_mutant_round(self) -> None:
        """With the mutants' round: the candidate search; the case closes once every program is judged."""
        j = self.judged
        # pinned up to order (proved before the mutants, Strategy.LEAN): every output the spec accepts has the
        # expected elements, so no candidate can be a witness (see _determinacy)
        up_to_order = self._proved(_PIN_MULTISET)
        if self.stage in (_Stage.MUTANTS_ALL, _Stage.MUTANTS, _Stage.SURVIVORS) and _PIN in j and not j[_PIN].proved \
                and not self.candidates_planned and self.options.witnesses and not up_to_order:
            # with the mutants' round: the candidates need the pin's model and the mutants' values, not their
            # verdicts; a case whose mutants are all rejected then needs no further round
            self.candidates_planned = True
            self._plan_candidates()
        if all(m.result is not None for m in self.mutants) and all(k in self.judged for k in self.planned):
            self._close()
        return None


    def _after_witness(self, results: dict[Program, Result]) -> None:
        """Some outputs unchecked: their rejection for every value of them is proved (refuted), or its
        counterexample gives them values whose acceptance is asked, or nothing is known."""
        h = self.harness
        assert h is not None
        judged = self.judged[_WITNESS]
        self.planned[_REJECT], self.judged[_REJECT] = self.planned[_WITNESS], judged
        if judged.proved:
            return self._rejected()
        names = [self.job.method.returns[k].name for k in self.case.unchecked]
        types = [self.job.method.returns[k].type for k in self.case.unchecked]
        decoded = decode_outputs(results[self.planned[_WITNESS].program].model, names, types)
        if decoded is None:
            decision, reason, message = decide(judged, None)
            if decision is Decision.ERROR:
                return self._finish(CaseStatus.ERROR, None, message)
            why = "no value of the unchecked outputs was found to try"
            return self._finish(CaseStatus.UNKNOWN, reason, f"{why}: {message}" if message else why)
        self.witness = dict(zip(self.case.unchecked, decoded, strict=True))
        shown = ", ".join(f"{n} = {show(v, t)}" for n, v, t in zip(names, decoded, types, strict=True))
        self.note = join_notes(self.note, f"acceptance asked with {shown} for the unchecked output(s)")
        self.planned[_ACCEPT] = h.output(Goal.ACCEPT, self._with_witness(self.case.expected), self.case.post)
        return None

    def _with_witness(self, expected: tuple[Value, ...]) -> tuple[Value, ...]:
        return tuple(self.witness.get(k, v) for k, v in enumerate(expected))

    def _accept_message(self) -> str:
        judged = self.judged.get(_ACCEPT) or self.judged.get(_WITNESS)
        return judged.message if judged is not None else ""

    def _rejected(self) -> None:
        """The rejection of the expected output is proved: which clause rejects it, when there are several (asked
        only now, so a case left unknown costs no clause checks)."""
        h = self.harness
        assert h is not None
        if len(h.ens_texts) > 1 and not self._proved_clause():
            for k in range(len(h.ens_texts)):
                self.planned[Key(Ask.REJECT_CLAUSE, k)] = _descriptive(
                    h.output(Goal.REJECT_CLAUSE, self.case.expected, self.case.post, clause=k)
                )
            self.stage = _Stage.CLAUSE
            return None
        return self._finish(CaseStatus.REFUTED, None, self._accept_message(), self._rejecting_clause())

    def _start_rejection(self) -> None:
        """The acceptance was not proved: ask for the rejection (and, for a real output, within the tolerance)."""
        h = self.harness
        assert h is not None
        if _REJECT not in self.planned:
            self.planned[_REJECT] = h.output(Goal.REJECT, self.case.expected, self.case.post)
        for k, p in enumerate(h.within_tolerance(Goal.ACCEPT_WITHIN)):
            self.planned[Key(Ask.WITHIN, k)] = p
        for p in h.within_tolerance(Goal.REJECT_WITHIN):
            self.planned[_WITHIN_REJECT] = p
        self.stage = _Stage.REJECT
        if all(key in self.judged for key in self.planned):
            self._advance({})  # the rejection was asked already (an unchecked output's witness search)

    def _plan_candidates(self) -> None:
        """Other outputs the spec may accept, to confirm: the solver's, then a guided search's."""
        h = self.harness
        assert h is not None
        if self.case.unchecked:
            return  # a candidate's acceptance would need its own witness for the unchecked outputs
        values, types, names = mutation_target(self.job.method, self.case)
        found: list[tuple[tuple[Value, ...], str]] = []
        decoded = decode_outputs(self.pin_model, names, types)
        if decoded is not None and decoded != values:
            found.append((decoded, SOLVER))
        mutants = {m.mutant.values for m in self.mutants}
        # arrays changed in place keep their length: the search does not shorten or grow them
        fixed = range(len(values) - len(self.case.post), len(values))
        for other in neighbours(values, types):
            if any(_length(other[i]) != _length(values[i]) for i in fixed):
                continue
            if other != values and other not in mutants and all(other != f for f, _ in found):
                found.append((other, SEARCH))
        for other, source in found[:MAX_CANDIDATES]:
            try:
                expected, post = split_values(self.job.method, self.case, other)
                planned = _descriptive(h.output(Goal.ACCEPT, expected, post))
            except HarnessError:
                continue  # a candidate the harness cannot state is no evidence either way
            self.planned[Key(Ask.CANDIDATE, len(self.candidates))] = planned
            self.candidates.append((other, source))

    def _determinacy(self) -> tuple[Determinacy | None, str, str]:
        """Whether the spec admits only the expected output here, and another output it accepts."""
        j = self.judged
        if _PIN not in j:
            return None, "", ""
        if j[_PIN].proved:
            return (Determinacy.DETERMINED if self.case.property else Determinacy.PINNED), "", ""
        values, types, names = mutation_target(self.job.method, self.case)
        confirmed = self._confirmed()
        tol, own = self.options.harness.real_tolerance, target_tolerances(self.job.method, self.case)
        # a real output within the tolerance of the expected one is the expected output, not a witness
        beyond = [(v, src) for v, src in confirmed
                  if not same_elements(v, values) and not close(v, values, tol, own)]
        confirmed = [(v, src) for v, src in confirmed if not close(v, values, tol, own)]
        up_to_order = self._proved(_PIN_MULTISET)
        as_set = self._proved(_PIN_SET)
        if as_set and not up_to_order and beyond and all(same_set(v, values, tol, own) for v, _ in beyond):
            # the set is pinned, and the witness has its elements in other numbers: a wrong output still, shown
            witness, source = beyond[0]
            return Determinacy.PINNED_AS_SET, self._shown(witness, types, names), source
        if beyond:
            witness, source = beyond[0]
            return Determinacy.NOT_PINNED, self._shown(witness, types, names), source
        if up_to_order:
            return Determinacy.PINNED_UP_TO_ORDER, "", ""
        if as_set:
            return Determinacy.PINNED_AS_SET, "", ""
        if confirmed and _PIN_MULTISET not in j:  # a scalar output: any other accepted value is a witness
            witness, source = confirmed[0]
            return Determinacy.NOT_PINNED, self._shown(witness, types, names), source
        return Determinacy.UNKNOWN, "", ""

    @staticmethod
    def _shown(values: tuple[Value, ...], types: tuple[DafnyType, ...], names: tuple[str, ...]) -> str:
        return show(values[0], types[0]) if len(names) == 1 else show_assignment(names, values, types)

    def _split(self, m: Mutant) -> tuple[tuple[Value, ...], tuple[tuple[int, Value], ...]]:
        expected, post = split_mutant(self.job.method, self.case, m)
        return self._with_witness(expected), post

    def _start_mutants(self, whole_timed_out: bool = False) -> None:
        h = self.harness
        assert h is not None
        self.status = (CaseStatus.VERIFIED, None, "", "")
        if self.case.refs:
            self.note = join_notes(self.note, "no mutants: the test says which array the output is (`r == a`)")
        parts: dict[Key, Planned] = {}
        if self.options.pin and whole_timed_out and _PIN not in self.planned:
            # a pin check asks about every output under the whole postcondition, which timed out on this one
            # output (measured: both pin checks of such a case timed out, 40 s): its leading clauses' instead
            # (Strategy.LEAN), or none, and the mutants are asked one by one
            parts = self._pin_parts()
            if not parts:
                self.note = join_notes(self.note, "no pin check: the whole postcondition timed out on the expected "
                                                  "output")
        elif self.options.pin:
            try:
                if _PIN not in self.planned:  # not already asked with the case's checks
                    pin = h.pin(Goal.PIN)
                    if pin is not None:
                        self.planned[_PIN] = pin
                # the order-free pin waits for the exact one: a proved exact pin implies it, and most are proved
                self.order_free = h.pin(Goal.PIN_MULTISET)
                self.as_set = h.pin(Goal.PIN_SET)
            except HarnessError:
                pass  # no (further) pin check for this case; the case stands as verified
        for m in _mutants_for(self.job, self.case, self.options):
            self.mutants.append(_Mutant(m, h.output(Goal.REJECT, *self._split(m), mutant=m)))
        self.planned.update(parts)
        self.stage = _Stage.PIN_PARTS if parts else _Stage.PIN if _PIN in self.planned else self._mutants_stage()
        if not self.mutants and _PIN not in self.planned and not parts:
            self._close()
        elif self.stage is _Stage.PIN and _PIN in self.judged:
            self._advance({})  # the pin check was answered with the case's checks: on to the mutants

    def note_budget(self) -> None:
        """The case says, once, that the method's budget left some of its programs unasked."""
        if BUDGET_NOTE not in self.note:
            self.note = join_notes(self.note, BUDGET_NOTE)

    def run_out(self) -> None:
        """The method's budget ran out: every program this case still needs is answered as a time-out without being
        asked (each stage moves on from a time-out, to unknown), until the case is done."""
        for _ in range(_MOST_STAGES):
            todo = self._pending()  # as they are: none is asked, so none is cut short (nor said to be)
            if not todo:
                break
            self.note_budget()
            self.absorb({p.program: Result(Outcome.TIMEOUT, BUDGET_MESSAGE) for p in todo})

    def _pin_parts(self) -> dict[Key, Planned]:
        """Accepted clause by clause (Strategy.LEAN): the pin checks assuming every ensures clause but the last
        (a prefix, so each clause is read where the earlier ones hold), with the short limit. Proved, a pin holds
        of the whole postcondition, which admits no more; failed, it says nothing. Measured on the development
        subset: the spec that times out as a whole has its costly clause last; every clause but it pinned two of
        its three cases up to order in 0.2-1.1 s (the whole's order-free pin: 9 s, when the whole was proved)."""
        h = self.harness
        assert h is not None
        if self.options.strategy is not Strategy.LEAN or not self.options.leading_pins:
            return {}
        k = len(h.ens_texts) - 1
        parts: dict[Key, Planned] = {}
        with contextlib.suppress(HarnessError):  # no pin check then, as for the whole
            for ask, goal in ((Ask.PIN_PART, Goal.PIN), (Ask.PIN_MULTISET_PART, Goal.PIN_MULTISET)):
                planned = h.pin(goal, clauses=k)
                if planned is not None:
                    parts[Key(ask, k)] = _with_limit(planned, PIN_PART_SECONDS)
        return parts

    def _on_pin_parts(self, results: dict[Program, Result]) -> None:
        """The pin checks of every clause but the last: proved, they stand for the whole's."""
        j = self.judged
        exact = next((key for key in self.planned if key.ask is Ask.PIN_PART), None)
        ordered = next((key for key in self.planned if key.ask is Ask.PIN_MULTISET_PART), None)
        if exact is not None and j[exact].proved:
            j[_PIN] = j[exact]
            self._kill_by_exact_pin()
        elif exact is not None and ordered is not None and j[ordered].proved:
            j[_PIN], j[_PIN_MULTISET] = j[exact], j[ordered]
            if not self._tolerant():  # with a real tolerance an order-free pin kills nothing, as in _on_pin
                self._kill_by_order_free_pin()
        k = next(key.index for key in (exact, ordered) if key is not None)
        which = "its first ensures clause" if k == 1 else f"its first {k} ensures clauses"
        proved = "proved" if _PIN in j else "not proved"
        self.note = join_notes(self.note, f"pin checks of {which} alone ({proved})")
        self._to_mutants()

    def _kill_by_exact_pin(self) -> None:
        """The exact pin proved: every mutant rejected by it (not with a real tolerance, see below)."""
        if self._pin_rejects_every_mutant():
            for m in self.mutants:
                self._kill(m, KillProof.PIN)

    def _kill_by_order_free_pin(self) -> None:
        """The order-free pin proved: every mutant whose elements differ rejected by it."""
        values, _, _ = mutation_target(self.job.method, self.case)
        for m in self.mutants:
            if not same_elements(m.mutant.values, values):
                self._kill(m, KillProof.PIN_UP_TO_ORDER)

    def _pin_rejects_every_mutant(self) -> bool:
        """A proved exact pin check says every output other than the expected one is rejected (the case's
        `requires` and acceptance were proved first). With a real tolerance the pin admits an interval,
        so the mutants are checked one by one."""
        pin = self.judged.get(_PIN)
        return pin is not None and pin.proved and not self._tolerant()

    def _tolerant(self) -> bool:
        """A real output compared within a tolerance: a pin admits an interval, so mutants are checked one by one."""
        _, types, _ = mutation_target(self.job.method, self.case)
        relative = self.options.harness.real_tolerance > 0 and any(_has_real(t) for t in types)
        return bool(self.case.tolerances) or relative

    def _confirmed(self) -> list[tuple[tuple[Value, ...], str]]:
        """Other outputs whose acceptance was proved, with where each came from: the pin check's confirmed
        candidates, then the surviving mutants."""
        found = [(v, src) for k, (v, src) in enumerate(self.candidates)
                 if self._proved(Key(Ask.CANDIDATE, k))]
        return found + [(m.mutant.values, MUTANT) for m in self.mutants
                        if m.result is not None and m.result.status is MutantStatus.SURVIVED]

    def _accepted_wrong(self) -> tuple[tuple[Value, ...], ...]:
        """The wrong outputs proved accepted, beyond order and the real tolerance (as `_determinacy` reads them)."""
        values, _, _ = mutation_target(self.job.method, self.case)
        tol, own = self.options.harness.real_tolerance, target_tolerances(self.job.method, self.case)
        return tuple(dict.fromkeys(v for v, _ in self._confirmed()
                                   if not same_elements(v, values) and not close(v, values, tol, own)))

    def _close(self) -> None:
        assert self.status is not None
        status, reason, message, clause = self.status
        mutants = tuple(m.result for m in self.mutants if m.result is not None)
        determinacy, witness, source = self._determinacy()
        self.result = replace(
            self._case_result(status, reason, message, clause, mutants),
            determinacy=determinacy, witness=witness, witness_source=source, accepted_wrong=self._accepted_wrong(),
        )
        self.stage = _Stage.DONE

    def _finish(self, status: CaseStatus, reason: Undecided | None, message: str, clause: str = "") -> None:
        self.result = self._case_result(status, reason, message, clause, ())
        self.stage = _Stage.DONE

    def _case_result(
        self, status: CaseStatus, reason: Undecided | None, message: str, clause: str, mutants: tuple[MutantResult, ...]
    ) -> CaseResult:
        inputs, expected = _display(self.job, self.case)
        c = self.case
        if status is CaseStatus.REFUTED and c.guessed:
            # a guess may confirm a spec, never refute it: the test never said this value is expected
            status, reason, clause = CaseStatus.UNKNOWN, Undecided.GUESSED, ""
            message = join_notes(GUESS_REJECTED, message)
        return CaseResult(
            c.name, c.line, inputs, expected, c.text, c.source, status, message, mutants, reason, clause, self.note
        )

    def _rejecting_clause(self) -> str:
        """The clause that rejects the output ("" when only the conjunction's rejection is proved)."""
        h = self.harness
        assert h is not None
        if len(h.ens_texts) == 1 and not self.case.property:  # with a property, the clause alone may not reject
            return f"ensures {h.ens_texts[0]}"
        return self._proved_clause()

    def _violated_clause(self) -> str:
        """The `requires` clause proved to reject the inputs ("" when only their conjunction's violation is)."""
        h = self.harness
        assert h is not None
        if len(h.req_texts) == 1:
            return f"requires {h.req_texts[0]}"
        for k, text in enumerate(h.req_texts):
            judged = self.judged.get(Key(Ask.PRE_REJECT_CLAUSE, k))
            if judged is not None and judged.proved:
                return f"requires {text}"
        return ""

    def _proved_clause(self) -> str:
        """The first clause whose own rejection program is proved, or ""."""
        h = self.harness
        assert h is not None
        for k, text in enumerate(h.ens_texts):
            judged = self.judged.get(Key(Ask.REJECT_CLAUSE, k))
            if judged is not None and judged.proved:
                return f"ensures {text}"
        return ""

    def _mutant_result(
        self, m: Mutant, decision: Decision, reason: Undecided | None, message: str
    ) -> MutantResult:
        _, types, names = mutation_target(self.job.method, self.case)
        value = show(m.values[0], types[0]) if len(names) == 1 else show_assignment(names, m.values, types)
        status = mutant_status(decision)
        return MutantResult(value, m.description, status, message if status is MutantStatus.UNKNOWN else "",
                            reason if status is MutantStatus.UNKNOWN else None)


CHOICE_NOTE = ("the spec reaches a `var x :| ...` choice: its ground facts were computed for every choice (all "
               "gave the same value) and each was proved by the verifier")



# One handler per stage: what a stage's judged programs lead to (the next stage's programs, or the case's end).
_TRANSITIONS: dict[_Stage, Callable[[_CaseRun, dict[Program, Result]], None]] = {
    _Stage.CHECK: _CaseRun._on_check,
    _Stage.CLAUSES: _CaseRun._on_clauses,
    _Stage.ORDER_FREE: _CaseRun._on_order_free,
    _Stage.PRECONDITION: _CaseRun._on_precondition,
    _Stage.PRE_CLAUSE: _CaseRun._on_pre_clause,
    _Stage.REJECT: _CaseRun._on_reject,
    _Stage.CLAUSE: _CaseRun._on_clause,
    _Stage.PIN: _CaseRun._on_pin,
    _Stage.PIN_PARTS: _CaseRun._on_pin_parts,
    _Stage.MUTANTS_ALL: _CaseRun._on_mutants_all,
    _Stage.MUTANTS: _CaseRun._on_mutants,
    _Stage.SURVIVORS: _CaseRun._on_survivors,
}

def _chooses(helpers: Sequence[tuple[DafnyFile, Decl]]) -> bool:
    """The helpers a method's spec reaches choose a value with `:|` (see ground.Evaluator.let_such)."""
    return any(d.body is not None and ":|" in f.source[d.body[0]:d.body[1]] for f, d in helpers)


def _declared_names(files: Sequence[DafnyFile]) -> frozenset[str]:
    """What a property may call: the spec files' functions and their datatypes' constructors (`r == Some(3)`)."""
    ctors = [(dt.name, c.name) for f in files for dt in f.datatypes.decls for c in dt.ctors]
    return frozenset(d.name for f in files for d in f.decls) | {n for dt, c in ctors for n in (c, f"{dt}.{c}")}


def _undeclared_calls(text: str, declared: frozenset[str]) -> list[str]:
    """The functions a property expectation calls that the spec files do not declare (a harness is the spec's
    program, not the test's: a helper of the test file is not there)."""
    return sorted(called_names(text) - declared)


def target_tolerance_bounds(job: MethodJob, case: TestCase) -> tuple[Fraction | None, ...]:
    """The test's own tolerance of each value a mutant changes (mutation_target), None where it states none: each
    output's mutants lie beyond its own tolerance, no other output's."""
    return tuple(t.bound if t is not None else None for t in target_tolerances(job.method, case))


def _decimal(f: Fraction) -> str:
    return f"{float(f):g}"


def _descriptive(planned: Planned) -> Planned:
    """`planned` with the short time limit of a program whose answer adds a detail to the report (which clause
    rejects, another output the spec accepts) and never decides a verdict: a spec that makes it time out
    costs DESCRIPTIVE_SECONDS, not the full limit, and only that detail stays unknown."""
    return _with_limit(planned, DESCRIPTIVE_SECONDS)


BOTH_MESSAGE = ("the acceptance and a rejection of the expected output are both proved: the assumptions are "
                "contradictory")


def _with_limit(planned: Planned, seconds: int | None) -> Planned:
    """`planned` with its own time limit (None: the engine's)."""
    return replace(planned, program=replace(planned.program, time_limit=seconds))


def _has_real(t: DafnyType, seen: frozenset[DatatypeT] = frozenset()) -> bool:
    if isinstance(t, RealT):
        return True
    if isinstance(t, SeqT | ArrayT):
        return _has_real(t.elem, seen)
    if isinstance(t, DatatypeT):
        return t not in seen and any(_has_real(f, seen | {t}) for c in constructors(t) for f in c.types)
    return isinstance(t, TupleT) and any(_has_real(e, seen) for e in t.elems)


def decode_outputs(model: str, names: Sequence[str], types: Sequence[DafnyType]) -> tuple[Value, ...] | None:
    """The outputs the solver's counterexample model gives (None when it cannot be read)."""
    if not model:
        return None
    # every output from one model: mixing models could give outputs no single run of the spec allows
    return decode_all(model, list(zip(names, types, strict=True)))


def same_set(
    a: tuple[Value, ...], b: tuple[Value, ...], rel: float = 0.0, own: Sequence[Tolerance | None] = ()
) -> bool:
    """Outputs equal but for the order and number of elements of their sequences and arrays, and for real outputs
    within the tolerance (which the set-level pin admits too): the test's own of each output (`own`), else the
    relative one."""
    if len(a) != len(b):
        return False
    for k, (x, y) in enumerate(zip(a, b, strict=True)):
        if isinstance(x, SeqV | ArrayV) and isinstance(y, SeqV | ArrayV):
            if set(x.elems) != set(y.elems):
                return False
        elif not close((x,), (y,), rel, own[k : k + 1]):
            return False
    return True


def _length(v: Value) -> int:
    return len(v.elems) if isinstance(v, SeqV | ArrayV) else -1


def close(a: tuple[Value, ...], b: tuple[Value, ...], rel: float, own: Sequence[Tolerance | None] = ()) -> bool:
    """Equal but for real outputs within their tolerance: the test's own of output k (`own[k]`, exactly as its check
    states it: an output inside it passes the test, so it is never a wrong one), else the relative one (see
    harness._tolerance_bounds)."""
    if len(a) != len(b) or (rel <= 0 and not any(t is not None for t in own)):
        return a == b
    for k, (x, y) in enumerate(zip(a, b, strict=True)):
        t = own[k] if k < len(own) else None
        if isinstance(x, RealV) and isinstance(y, RealV) and t is not None:
            if not t.admits(abs(x.v - y.v)):
                return False
        elif isinstance(x, RealV) and isinstance(y, RealV) and rel > 0:
            if abs(x.v - y.v) > Fraction(rel) * max(Fraction(1), abs(y.v)):
                return False
        elif x != y:
            return False
    return True


_CLAUSE = re.compile(r"`((?:ensures|requires) [^`]*)`")


def _stuck_clause(message: str) -> str:
    m = _CLAUSE.search(message)
    return m.group(1) if m else ""


# what follows a spec file's rounds (score_methods `then`): its jobs, their scores and the engine to ask through, to
# their scores with its answers
Then = Callable[[Sequence["MethodJob"], Sequence[MethodScore], EngineLike], Sequence[MethodScore]]


def score_methods(
    jobs: Sequence[MethodJob],
    engine: EngineLike,
    dialect: Dialect,
    options: ScoreOptions = ScoreOptions(),
    on_phase: Callable[[str], None] | None = None,
    on_round: Callable[[list[MethodTally]], None] | None = None,
    then: Then | None = None,
) -> list[MethodScore]:
    """`on_phase`: each round's name, before it; `on_round`: each method's cases done so far, before the first
    round and after each (progress for a person to follow: it changes nothing scored).

    `then`: what follows a spec file's rounds (the questions asked from its scores: bot/symbolic/stages.py), given
    its jobs, their scores and the engine to ask through; it returns their scores with its answers. Side by side, a
    file's follow each file's rounds as soon as they are over, so that they fill the verifier slots the slowest
    files' last rounds leave idle (the development audit: 20 worker-seconds of one slot idle, before 43 batches on
    every input that waited for the last file); else they follow every file's rounds, once, with all the jobs. Each
    question's programs and answers are the same either way: only which batch carries them differs."""
    options = replace(options, harness=replace(options.harness, dialect=dialect))
    preludes: dict[int, str] = {}
    prelude_errors: dict[int, str] = {}
    for job in jobs:
        key = id(job.file)
        if key not in preludes and key not in prelude_errors:
            try:
                preludes[key] = make_prelude(job.file, dialect, job.include_root, job.spec_path)
            except (ValueError, HarnessError) as e:
                prelude_errors[key] = str(e)

    # each spec file with the files it includes, read once per run
    files: dict[int, list[DafnyFile]] = {}
    for job in jobs:
        if id(job.file) not in files:
            files[id(job.file)] = _files(job)
    declared = {key: _declared_names(fs) for key, fs in files.items()}
    runs: list[list[_CaseRun]] = []
    trusted: dict[int, tuple[Axiom, ...]] = {}  # per job: what its verdicts rest on unchecked, from the source
    helpers: dict[int, list[tuple[DafnyFile, Decl]]] = {}  # per job: the declarations its spec reaches
    slowness: dict[int, list[bool]] = {}  # per job: whether a program of it timed out at the full limit
    for job in jobs:
        prelude = preludes.get(id(job.file))
        trusted[id(job)] = axioms(job.method, files[id(job.file)])
        helpers[id(job)] = reached(job.method, files[id(job.file)])
        guarded = bool(trusted[id(job)]) or may_trust_statements(job.method, files[id(job.file)])
        read = job.cases
        if _chooses(helpers[id(job)]):
            read = tuple(replace(c, note=join_notes(c.note, CHOICE_NOTE)) for c in read)
        slow = [False]  # one for the method's cases (ScoreOptions.slow_limit)
        slowness[id(job)] = slow
        runs.append([] if prelude is None else [_CaseRun(job, c, prelude, options, guarded, declared[id(job.file)],
                                                         slow) for c in read])
    # per spec file, the check of the helpers its scored methods reach; it goes with the first round
    # a method without test cases (or none readable) is still scored on every input, which needs its background
    # checked
    asked = [bool(row) or (not job.cases and id(job.file) in preludes) for job, row in zip(jobs, runs, strict=True)]
    backgrounds = _background_checks([job for job, a in zip(jobs, asked, strict=True) if a], dialect, helpers)
    checked = list(dict.fromkeys(p for p in backgrounds.values() if isinstance(p, Program)))
    checks: dict[Program, Result] = {}
    if on_round:
        on_round(_tally(jobs, runs))
    # per job, its method's budget (ScoreOptions.budget): a rescored candidate spends its method's (MethodJob.ledger)
    ledgers = [None if options.budget is None else job.ledger or Ledger(options.budget) for job in jobs]
    rounds = _Rounds(engine, options, runs, ledgers, checked, checks, on_phase,
                     (lambda: on_round(_tally(jobs, runs))) if on_round else None)
    # an engine that takes runs side by side (Engine.concurrent) gets each spec file's rounds on their own: a
    # file's next round does not wait for every other file's slowest program, and both verifier processes stay
    # busy until the last one. Each file's rounds ask what they asked in step with the others: the same programs,
    # so the same verdicts (a program's result is its own, whichever batch carries it)
    scores: dict[int, MethodScore] = {}

    def finish(group: Sequence[int], through: EngineLike) -> None:
        """The scores of `group`'s jobs once their rounds are over, and what `then` adds to them."""
        if options.budget is not None:
            for k in group:
                if rounds.ran_out(k):  # no suggestion search, short questions on every input
                    slowness[id(jobs[k])][0] = True
        theirs = [backgrounds.get(id(jobs[k].file)) for k in group]
        unasked = list(dict.fromkeys(p for p in theirs if isinstance(p, Program) and p in checked and p not in checks))
        if unasked:  # no case at all (specs without tests): the checks go alone
            checks.update(through.run(unasked))
        mine = [score_of(k) for k in group]
        if then is not None:
            mine = list(then([jobs[k] for k in group], mine, through))
        scores.update(zip(group, mine, strict=True))

    def score_of(k: int) -> MethodScore:
        job, row, checked_here = jobs[k], runs[k], asked[k]
        cases = [r.result for r in row if r.result is not None] + _unsupported(job)
        note = prelude_errors.get(id(job.file), "")
        if untested(job) and not note:
            note = NO_TEST_CASES
        problems = () if _unsupported(job) else tuple(str(p) for p in job.problems)
        made = backgrounds.get(id(job.file))
        check = checks.get(made) if isinstance(made, Program) else None
        status, message, rests_on = _background(job, files[id(job.file)], trusted[id(job)], check, checked_here,
                                                made if isinstance(made, str) else "")
        cases = _ill_formed(job, check, cases)
        report = read_check(check.message) if check is not None else None
        proved = well_formed(job.method, report) if report is not None else None
        untied = _untied(job, [d for _, d in helpers[id(job)]], report) if report is not None else []
        if untied:  # the method's own clauses or a helper it rests on may be what failed: neither is proved
            proved = proved and None  # a failure read stays one
            if status is BackgroundStatus.VERIFIED:
                status, message = BackgroundStatus.UNKNOWN, (f"the check of `{untied[0]}` did not pass, and it may be "
                                                             "this spec's own or a helper's")
        return replace(
            method_score(
                job.display_path or job.file.path,
                job.method.qualified,
                job.method.line,
                tuple(cases),
                problems,
                note,
                status,
                message,
                rests_on,
            ), well_formed=proved, slow=slowness.get(id(job), [False])[0], ledger=ledgers[k])

    by_file: dict[int, list[int]] = {}
    for k, job in enumerate(jobs):
        by_file.setdefault(id(job.file), []).append(k)
    if getattr(engine, "concurrent", False) and len(by_file) > 1:
        theirs = [backgrounds.get(id(jobs[group[0]].file)) for group in by_file.values()]
        rounds.side_by_side(list(by_file.values()), [[m] if isinstance(m, Program) and m in checked else []
                                                     for m in theirs], finish)
    else:
        rounds.in_step(list(range(len(jobs))))
        finish(list(range(len(jobs))), engine)
    return [scores[k] for k in range(len(jobs))]


PHASES = ("cases", "rejections", "mutants", "survivors")  # the rounds' names, then "last" for every later one
SIDE_BY_SIDE_PER_JOB = 4  # files whose rounds run at once, per verifier process (Rounds.side_by_side)


class _Rounds:
    """The rounds of `runs` (per job, its cases), through `engine`: every job in step (`in_step`), or each spec
    file's jobs on their own, side by side (`side_by_side`). A case needs at most five rounds, and every stage
    moves on, so each loop ends."""

    def __init__(self, engine: EngineLike, options: ScoreOptions, runs: list[list[_CaseRun]],
                 ledgers: list[Ledger | None],
                 checked: list[Program], checks: dict[Program, Result], on_phase: Callable[[str], None] | None,
                 on_round: Callable[[], None] | None) -> None:
        self.engine = engine
        self.options = options
        self.runs = runs
        self.ledgers = ledgers
        self.checked = checked
        self.checks = checks
        self.on_phase = on_phase
        self.on_round = on_round
        self.lock = threading.Lock()  # the hooks and `checks`, from the threads of `side_by_side`
        self.shown = -1  # the latest phase shown (side by side, a phase is shown when the first file reaches it)

    def in_step(self, jobs: Sequence[int], extra: Sequence[Program] | None = None,
                engine: EngineLike | None = None) -> None:
        """The rounds of `jobs` (indices into `runs`): each round verifies what every case's current stage needs,
        with `extra` (the background checks, default: all not yet asked) in the first, through `engine` (default:
        the rounds' own). Side by side, everything but the verifier's answer is done holding the lock: the groups
        share the hooks, and the only wait worth overlapping is the verifier's."""
        engine = self.engine if engine is None else engine
        for number, phase in enumerate(itertools.chain(PHASES, itertools.repeat("last"))):
            with self.lock:
                if self.options.budget is not None:
                    for k in jobs:
                        if self.ran_out(k):  # the method counts as slow once its rounds are over
                            for r in self.runs[k]:
                                r.run_out()
                todo_of = {k: self._ordered([r.programs() for r in self.runs[k]], engine) for k in jobs}
                todo = [p for k in jobs for p in todo_of[k]]
                if not todo:
                    break
                if self.on_phase and number > self.shown:
                    self.on_phase(phase)
                self.shown = max(self.shown, number)
                asked = [p for p in (self.checked if extra is None else extra) if p not in self.checks] \
                    if number == 0 else []
            allowance = self._allowance(todo_of, engine)  # None unless the engine takes budgets
            results = run_within(engine, [p.program for p in todo] + asked, allowance)
            with self.lock:
                self.checks.update({p: results[p] for p in asked})
                for k in jobs:
                    row = self.runs[k]
                    ledger = self.ledgers[k]
                    if ledger is not None and allowance is None:  # else the engine charged it, answer by answer
                        # each program once: the engine answers a program two cases share once
                        answered = {p.program for r in row for p in r._pending() if p.program in results}
                        ledger.charge(sum(results[p].seconds for p in answered))
                    for r in row:
                        if r.stage is not _Stage.DONE:
                            if any(over_budget(results[p.program]) for p in r._pending() if p.program in results):
                                r.note_budget()
                            r.absorb(results)
                if self.on_round:
                    self.on_round()

    def _ordered(self, per_case: list[list[Planned]], engine: EngineLike) -> list[Planned]:
        """A method's programs of this round, case by case. Within a budget the engine asks them in this order
        (Engine.run's allowance), so the cheapest cases (the shortest harnesses: the smallest inputs) go first: on
        HumanEval-Dafny's `094-skjkasdkd`, in the order of its tests, the three largest cases' checks timed out one
        after the other and spent the budget before any small case, each under a second, was asked. A case's own
        programs stay together, in the order it asks them (what decides it first): z3 keeps what consecutive checks
        share, and ordering the programs one by one instead made the development audit 1.6 times slower."""
        if self.options.budget is not None and getattr(engine, "budgeted", False):
            per_case = sorted(per_case, key=lambda planned: sum(len(p.program.method) for p in planned))
        return [p for planned in per_case for p in planned]

    def ran_out(self, k: int) -> bool:
        """Whether job `k`'s method has used up its budget: its programs' seconds passed it, or the engine stopped
        asking them inside a round (bot/symbolic/allowance.py)."""
        ledger = self.ledgers[k]
        return ledger is not None and ledger.spent()

    def _allowance(self, todo_of: Mapping[int, Sequence[Planned]], engine: EngineLike) -> Allowance | None:
        """The round's budgets for the engine, per job the seconds its method has left; None without a budget, or
        with an engine that takes none (the budget is then looked at between rounds only)."""
        if not getattr(engine, "budgeted", False):
            return None
        groups: dict[Program, dict[int, Ledger]] = {}
        for k, planned in todo_of.items():
            ledger = self.ledgers[k]
            if ledger is not None:
                for p in planned:
                    groups.setdefault(p.program, {})[id(ledger)] = ledger
        return Allowance({p: tuple(g.values()) for p, g in groups.items()}) if groups else None

    def side_by_side(self, groups: Sequence[Sequence[int]], checks_of: Sequence[Sequence[Program]],
                     after: Callable[[Sequence[int], EngineLike], None]) -> None:
        """The rounds of each group of jobs on their own, at most SIDE_BY_SIDE_PER_JOB groups per verifier
        process at once; `checks_of`: per group, the background checks that go with its first round; `after`: what
        follows a group's rounds, in its place."""
        width = max(1, SIDE_BY_SIDE_PER_JOB * int(getattr(self.engine, "jobs", 1)))
        # a failure in a group's rounds is the run's: it stops the others (bot/symbolic/together.py)
        together(self.engine, [functools.partial(self._group, group, checks, after)
                               for group, checks in zip(groups, checks_of, strict=True)], width)

    def _group(self, group: Sequence[int], checks: Sequence[Program],
               after: Callable[[Sequence[int], EngineLike], None], engine: Stoppable) -> None:
        self.in_step(group, checks, engine)
        after(group, engine)


def run_within(engine: EngineLike, programs: Sequence[Program], allowance: Allowance | None) -> dict[Program, Result]:
    """`engine.run(programs)`, within the methods' budgets of `allowance` when the engine takes them."""
    if allowance is None or not getattr(engine, "budgeted", False):
        return engine.run(programs)
    return cast(BudgetedEngine, engine).run(programs, allowance)


def untested(job: MethodJob) -> bool:
    """A job without test cases, readable or not: scored on every input only."""
    return not job.cases and not job.problems


def _untied(job: MethodJob, reached: Sequence[Decl], report: CheckReport) -> list[str]:
    """The declarations whose background check failed or did not conclude under a module's name, which no
    declaration's qualified name matches, and that may be the method's own clauses or a helper its spec reaches.
    Dafny 2.3 names a module `_<height>_<Module>`, a nested one by its innermost name only: `_0_Lib.F` is `Lib.F`,
    or `Outer.Lib.F`. A function there that does not terminate, read as nothing to prove, was an inconsistent axiom."""
    mine = [job.method, *reached]
    out = []
    for key, whys in report.checks.items():
        name = key.removesuffix("#")
        found = re.fullmatch(r"_\d+(_|['?#])(.+)", name)  # `_0_k` is read back as `_0'`: `_k` spells `'`
        if all(why == "" for why in whys) or found is None or any(name == d.qualified for d in mine):
            continue
        name = {"_": "", "'": "k", "?": "q", "#": "h"}[found.group(1)] + found.group(2)
        if any(d.qualified == name or d.qualified.endswith("." + name) for d in mine):
            out.append(name)
    return sorted(set(out))


def _tally(jobs: Sequence[MethodJob], runs: list[list[_CaseRun]]) -> list[MethodTally]:
    """Per method, its cases and what the rounds so far decided of them (a case's result is final once done)."""
    out = []
    for job, row in zip(jobs, runs, strict=True):
        done = [r.result for r in row if r.stage is _Stage.DONE and r.result is not None]
        mutants = [m.status for c in done for m in c.mutants]
        out.append(MethodTally(job.display_path or job.file.path, len(row), len(done),
                               sum(c.status in (CaseStatus.REFUTED, CaseStatus.PRECONDITION_VIOLATED) for c in done),
                               mutants.count(MutantStatus.KILLED), mutants.count(MutantStatus.SURVIVED)))
    return out


def _files(job: MethodJob) -> list[DafnyFile]:
    """The spec file and the files it includes (those the prelude holds)."""
    try:
        return [job.file, *included_files(job.file, job.include_root, job.spec_path)]
    except ValueError:
        return [job.file]  # the prelude failed the same way: nothing is scored


def _background_checks(
    jobs: Sequence[MethodJob], dialect: Dialect, helpers: dict[int, list[tuple[DafnyFile, Decl]]]
) -> dict[int, Program | str]:
    """Per spec file (by id), the program that verifies the helpers its methods' specs reach (`helpers`, per job),
    with their bodies and proofs and the scored methods' own specs (their well-formedness), or why it cannot be
    made."""
    names: dict[int, set[str]] = {}
    for job in jobs:
        names.setdefault(id(job.file), set()).update(d.name for _, d in helpers[id(job)])
    for job in jobs:  # every scored spec's own well-formedness is checked, helpers or not (what a harness skips)
        names.setdefault(id(job.file), set()).add(job.method.name)
    found: dict[int, Program | str] = {}
    for job in jobs:
        key = id(job.file)
        if names.get(key) and key not in found:
            try:
                text = make_prelude(job.file, dialect, job.include_root, job.spec_path, keep_proofs=True)
            except (ValueError, HarnessError) as e:
                # the proofs it keeps may hold what the harnesses' text does not (`expect` in a lemma)
                found[key] = str(e)
                continue
            found[key] = Program(text, BACKGROUND_NAME, BACKGROUND_METHOD, checks=tuple(sorted(names[key])))
    return found


def _ill_formed(job: MethodJob, check: Result | None, cases: list[CaseResult]) -> list[CaseResult]:
    """The unknown cases of a spec the background check found not well-formed (a helper called outside its
    `requires`, an index out of range), with that failure and its line: the likely reason nothing was proved."""
    why = ill_formed(job.method, read_check(check.message)) if check is not None else ""
    if not why:
        return cases
    said = f"the spec itself is not well-formed: {why}"
    return [replace(c, message=join_notes(c.message, said)) if c.status is CaseStatus.UNKNOWN else c for c in cases]


def _background(
    job: MethodJob, files: list[DafnyFile], trusted: tuple[Axiom, ...], check: Result | None, scored: bool,
    unmade: str = "",
) -> tuple[BackgroundStatus | None, str, tuple[Axiom, ...]]:
    """The method's background: whether what its spec reaches verifies (None: not checked, nothing was scored),
    the failing declarations or why it is not known, and the trusted axioms its verdicts are relative to (those
    of the source, `trusted`, and the statements the check warned of)."""
    status: BackgroundStatus | None = None
    message = ""
    if scored and unmade:  # the check could not be made (`unmade` says why): nothing was checked
        status, message = BackgroundStatus.UNKNOWN, f"the check could not be made: {unmade}"
    elif scored and check is None:
        status = BackgroundStatus.VERIFIED  # its spec reaches no helper: nothing to check
    elif scored and check is not None:
        report = read_check(check.message)
        if report.checks or report.finished:
            status, message = background_status(job.method, files, report)
            trusted += trusted_statements(job.method, files, report)
        else:  # the run said nothing of the declarations: a crash, a resolution error, a time-out
            first = check.message.splitlines()[0] if check.message else check.outcome.value
            status, message = BackgroundStatus.UNKNOWN, f"{check.outcome.value}: {first}"
    shown = job.display_path or job.file.path
    trusted = tuple(replace(a, file=shown) if a.file == job.file.path else a for a in trusted)
    return status, message, trusted
