"""The rounds of the pipeline with a scripted engine: which programs are asked, and what each answer means.

No verifier here: the engine answers by reading each program's goal, so these tests show the decision
logic alone (the real-verifier tests are in test_verdicts_real.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from fractions import Fraction

import pytest

from bot.dafny.dialect import Dialect
from bot.dafny.parser import parse_file
from bot.dafny.values import IntV, RealV, SeqV
from bot.symbolic.harness.programs import HarnessOptions
from bot.symbolic.program import RUN_FINISHED, Goal, Outcome, Program, ProgramKind, Result
from bot.symbolic.results import CaseResult, CaseStatus, Determinacy, KillProof, MutantStatus, Undecided
from bot.symbolic.rounds import (
    BUDGET_MESSAGE,
    BUDGET_NOTE,
    CONJOINED_SECONDS,
    DESCRIPTIVE_SECONDS,
    EAGER_PIN_CASES,
    FIRST_ACCEPT_SECONDS,
    PIN_PART_SECONDS,
    SLOW_METHOD_SECONDS,
    SLOW_NOTE,
    MethodJob,
    ScoreOptions,
    Strategy,
    score_methods,
)
from bot.testcases.cases import TestCase
from support.inc_spec import INC_SPEC, case, job, refuted_goal
from support.inc_spec import goal_line as _goal_line
from support.inc_spec import inc_answer as _inc_answer
from support.inc_spec import is_rejection as _is_rejection
from support.inc_spec import vacuity as _vacuity

SPEC = INC_SPEC

Answer = Callable[[Program], Result]


class ScriptedEngine:
    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.rounds: list[list[Program]] = []

    def run(self, programs: Sequence[Program]) -> dict[Program, Result]:
        self.rounds.append([p for p in programs if not p.checks])  # the harness programs these tests count
        # the background check (every scored spec's own well-formedness, helpers or not) verifies here: these tests
        # script the harness programs only
        return {p: Result(Outcome.VERIFIED, RUN_FINISHED) if p.checks else self.answer(p) for p in programs}


# one program per question: the rounds these tests count (the lean strategy's conjoined rejection: test_lean_*)
EACH3 = ScoreOptions(mutants=3, pin=True, strategy=Strategy.EACH)
EACH2 = ScoreOptions(mutants=2, pin=True, strategy=Strategy.EACH)


def vacuity_fails(p: Program) -> Result:
    """The vacuity probe's `assert false` fails on its own line (a sequence output's probe has no goal line)."""
    line = next(k for k, text in enumerate(p.text().splitlines(), 1) if "assert false;" in text)
    return Result(Outcome.REFUTED, f"line {line}: assertion violation")


def score_one(spec: str, name: str, tc: TestCase, answer: Answer,
              options: ScoreOptions) -> tuple[ScriptedEngine, CaseResult]:
    """The one case `tc` of method `name` of `spec`, scored with the scripted `answer`."""
    file = parse_file(spec, "spec.dfy")
    method = file.find(name)
    assert method is not None
    engine = ScriptedEngine(answer)
    (case_result,) = score_methods([MethodJob(file, method, (tc,))], engine, Dialect.DAFNY2, options)[0].cases
    return engine, case_result


def run(answer: Answer, *cases: TestCase, mutants: int = 3,
        strategy: Strategy = Strategy.EACH) -> tuple[list[CaseStatus], ScriptedEngine, list]:  # type: ignore[type-arg]
    engine = ScriptedEngine(answer)
    # the pin check has its own tests (test_pins_real.py): here the rounds of verdicts alone, one program per
    # question (the lean strategy's conjoined rejection: test_lean_*)
    scores = score_methods([job(*cases)], engine, Dialect.DAFNY2,
                           ScoreOptions(mutants=mutants, pin=False, strategy=strategy))
    return [c.status for c in scores[0].cases], engine, list(scores[0].cases)


def test_accepted_case_then_mutants_killed_by_proved_rejection() -> None:
    def answer(p: Program) -> Result:
        if _vacuity(p):
            return refuted_goal(p)
        if "returns" not in p.method:  # the precondition holds
            return refuted_goal(p) if _is_rejection(p) else Result(Outcome.VERIFIED)
        if "r := 6;" in p.method:  # the expected output: accepted, not rejected
            return refuted_goal(p) if _is_rejection(p) else Result(Outcome.VERIFIED)
        return Result(Outcome.VERIFIED) if _is_rejection(p) else refuted_goal(p)

    statuses, engine, cases = run(answer, case("c1", 5, 6))
    assert statuses == [CaseStatus.VERIFIED]
    assert [m.status for m in cases[0].mutants] == [MutantStatus.KILLED] * 3
    # round 1: precondition, vacuity, acceptance; round 2: the mutants' rejections; no third round
    assert [len(r) for r in engine.rounds] == [3, 3]


def test_failing_acceptance_is_not_a_refutation() -> None:
    def answer(p: Program) -> Result:
        if _vacuity(p):
            return refuted_goal(p)
        if "x >= 0" in p.method and "returns" not in p.method:
            return Result(Outcome.VERIFIED)  # the precondition
        return refuted_goal(p)  # neither acceptance nor any rejection is proved

    statuses, engine, cases = run(answer, case("c1", 5, 7))
    assert statuses == [CaseStatus.UNKNOWN]
    assert cases[0].reason is Undecided.STUCK
    assert cases[0].mutants == ()
    # the rejection of the conjunction only: which clause rejects is asked once a rejection is proved
    assert len(engine.rounds[1]) == 1
    assert len(engine.rounds) == 2


def test_proved_rejection_refutes_and_names_the_clause() -> None:
    def answer(p: Program) -> Result:
        if _vacuity(p):
            return refuted_goal(p)
        if "returns" not in p.method:
            return Result(Outcome.VERIFIED)
        if "ensures !((r > x) && (r == x + 1))" in p.method or "ensures !(r == x + 1)" in p.method:
            return Result(Outcome.VERIFIED)
        return refuted_goal(p)

    statuses, engine, cases = run(answer, case("c1", 5, 7))
    assert statuses == [CaseStatus.REFUTED]
    assert cases[0].clause == "ensures r == x + 1"
    # round 2 proves the rejection; round 3 asks each clause, with the short limit of a detail
    assert [len(r) for r in engine.rounds] == [3, 1, 2]
    assert [p.time_limit for p in engine.rounds[2]] == [DESCRIPTIVE_SECONDS] * 2
    assert engine.rounds[1][0].time_limit is None


def test_hint_fault_makes_unknown_never_refuted() -> None:
    def answer(p: Program) -> Result:
        if _vacuity(p):
            return refuted_goal(p)
        if "returns" not in p.method:
            return Result(Outcome.VERIFIED)
        # every program fails on a line that is not its goal: the first body line (an assumption)
        return Result(Outcome.REFUTED, f"line {_goal_line(p) + 1}: assertion violation")

    statuses, _, cases = run(answer, case("c1", 5, 7))
    assert statuses == [CaseStatus.UNKNOWN]
    assert cases[0].reason is Undecided.HINT_FAULT


def test_precondition_violated_only_when_proved() -> None:
    def violated(p: Program) -> Result:
        if "returns" not in p.method and "ensures !(" in p.method:
            return Result(Outcome.VERIFIED)  # the violation is proved
        return refuted_goal(p)

    def undecided(p: Program) -> Result:
        return refuted_goal(p)

    assert run(violated, case("c1", -1, 0))[0] == [CaseStatus.PRECONDITION_VIOLATED]
    statuses, _, cases = run(undecided, case("c1", -1, 0))
    assert statuses == [CaseStatus.UNKNOWN] and cases[0].reason is Undecided.PRECONDITION


def test_mutants_depend_on_content_not_place() -> None:
    def answer(p: Program) -> Result:
        if _vacuity(p):
            return refuted_goal(p)
        return Result(Outcome.VERIFIED)

    def mutants_by_inputs(cases: list) -> dict[str, list[str]]:  # type: ignore[type-arg]
        return {c.inputs: [m.value for m in c.mutants] for c in cases}

    _, _, before = run(answer, case("t#1", 5, 6), case("t#2", 9, 10))
    _, _, after = run(answer, case("t#1", 0, 1), case("t#2", 5, 6), case("t#3", 9, 10))
    assert len(after) == 3
    for inputs, values in mutants_by_inputs(before).items():
        assert mutants_by_inputs(after)[inputs] == values


def _pin_run(pin_answer: Outcome) -> tuple[ScriptedEngine, list]:  # type: ignore[type-arg]
    def answer(p: Program) -> Result:
        if p.want_model:  # the exact pin check
            return Result(Outcome.VERIFIED) if pin_answer is Outcome.VERIFIED else refuted_goal(p)
        if _vacuity(p):
            return refuted_goal(p)
        if "returns" not in p.method or "r := 6;" in p.method:
            return refuted_goal(p) if _is_rejection(p) else Result(Outcome.VERIFIED)
        return Result(Outcome.VERIFIED) if _is_rejection(p) else refuted_goal(p)

    engine = ScriptedEngine(answer)
    scores = score_methods([job(case("c1", 5, 6))], engine, Dialect.DAFNY2, EACH3)
    return engine, list(scores[0].cases)


def test_a_proved_pin_kills_every_mutant_without_their_programs() -> None:
    engine, cases = _pin_run(Outcome.VERIFIED)
    # one round: precondition, vacuity, acceptance and (a small case) the pin check; nothing more
    assert [len(r) for r in engine.rounds] == [4]
    assert [(m.status, m.killed_by) for m in cases[0].mutants] == [(MutantStatus.KILLED, KillProof.PIN)] * 3
    assert cases[0].determinacy is Determinacy.PINNED


def test_an_unproved_pin_leaves_the_mutants_to_their_own_proofs() -> None:
    engine, cases = _pin_run(Outcome.REFUTED)
    # round 3: the mutants' rejections with the candidate output to confirm; every mutant is rejected, so
    # no fourth round
    assert [len(r) for r in engine.rounds] == [4, 4]
    assert [(m.status, m.killed_by) for m in cases[0].mutants] == [(MutantStatus.KILLED, KillProof.REJECTION)] * 3


SEQ_SPEC = """
method Twice(x: int) returns (s: seq<int>)
  ensures |s| == 2 && s[0] == x && s[1] == x
{
  s := [x, x];
}
"""


def _seq_pin_run(pin_answer: Outcome, options: ScoreOptions = EACH2) -> tuple[ScriptedEngine, list]:  # type: ignore[type-arg]
    def answer(p: Program) -> Result:
        if p.want_model:  # the exact pin check
            return Result(Outcome.VERIFIED) if pin_answer is Outcome.VERIFIED else refuted_goal(p)
        if _vacuity(p):
            return vacuity_fails(p)
        if "multiset(" in p.method:  # the order-free pin check
            return Result(Outcome.VERIFIED)
        if "s := [3, 3];" in p.method:
            return refuted_goal(p) if _is_rejection(p) else Result(Outcome.VERIFIED)
        return Result(Outcome.VERIFIED) if _is_rejection(p) else refuted_goal(p)

    tc = TestCase("c1", "Twice", (IntV(3),), (SeqV((IntV(3), IntV(3))),), source="t.dfy", line=1)
    engine, c = score_one(SEQ_SPEC, "Twice", tc, answer, options)
    return engine, [c]


def test_the_order_free_pin_is_asked_only_when_the_exact_pin_is_not_proved() -> None:
    engine, cases = _seq_pin_run(Outcome.VERIFIED)
    # a proved exact pin implies the order-free one: round 2 holds the exact pin check alone
    assert [len(r) for r in engine.rounds] == [3]
    assert not any("multiset(" in p.method for r in engine.rounds for p in r)
    assert cases[0].determinacy is Determinacy.PINNED

    engine, cases = _seq_pin_run(Outcome.REFUTED)
    # not proved: the order-free pin goes with the mutants' round (no round of its own)
    assert len(engine.rounds) == 2
    assert sum("multiset(" in p.method for p in engine.rounds[1]) == 1
    assert sum(p.time_limit == DESCRIPTIVE_SECONDS for p in engine.rounds[1]) >= 1  # the candidates
    assert cases[0].determinacy is Determinacy.PINNED_UP_TO_ORDER


def test_lean_confirms_no_other_output_once_the_case_is_pinned_up_to_order() -> None:
    """Every output the spec accepts then has the expected elements: no candidate can be a witness, so none is
    asked (`each` asks them beside the order-free pin), and the case reads the same."""
    lean_engine, lean = _seq_pin_run(Outcome.REFUTED, ScoreOptions(mutants=2, pin=True, strategy=Strategy.LEAN))
    each_engine, each = _seq_pin_run(Outcome.REFUTED)
    asked = [p for r in lean_engine.rounds for p in r]
    assert any("multiset(" in p.method for p in asked)  # the order-free pin, proved
    assert not any(p.time_limit == DESCRIPTIVE_SECONDS for p in asked)  # no candidate
    assert any(p.time_limit == DESCRIPTIVE_SECONDS for r in each_engine.rounds for p in r)
    assert lean[0].determinacy is each[0].determinacy is Determinacy.PINNED_UP_TO_ORDER
    assert (lean[0].witness, lean[0].accepted_wrong) == (each[0].witness, each[0].accepted_wrong) == ("", ())


def test_without_witnesses_no_other_output_is_confirmed_and_the_pins_read_the_same() -> None:
    engine, cases = _seq_pin_run(Outcome.REFUTED, ScoreOptions(mutants=2, pin=True, strategy=Strategy.EACH,
                                                               witnesses=False))
    assert not any(p.time_limit == DESCRIPTIVE_SECONDS for r in engine.rounds for p in r)
    assert cases[0].determinacy is Determinacy.PINNED_UP_TO_ORDER


def test_an_eager_pin_is_read_only_once_the_acceptance_is_proved() -> None:
    def answer(p: Program) -> Result:
        if p.want_model:
            return Result(Outcome.VERIFIED)  # the pin check "proved": meaningless while the output is rejected
        if _vacuity(p):
            return refuted_goal(p)
        if "returns" not in p.method:
            return Result(Outcome.VERIFIED)
        return Result(Outcome.VERIFIED) if _is_rejection(p) else refuted_goal(p)

    engine = ScriptedEngine(answer)
    scores = score_methods([job(case("c1", 5, 7))], engine, Dialect.DAFNY2, EACH3)
    c = scores[0].cases[0]
    assert c.status is CaseStatus.REFUTED
    assert c.mutants == () and c.determinacy is None
    assert sum(p.want_model for p in engine.rounds[0]) == 1


def test_a_large_case_gets_its_pin_check_after_its_acceptance(monkeypatch: pytest.MonkeyPatch) -> None:
    import bot.symbolic.rounds

    monkeypatch.setattr(bot.symbolic.rounds, "EAGER_PIN_BELOW", 10)  # every case is "large"
    engine, cases = _pin_run(Outcome.VERIFIED)
    assert [len(r) for r in engine.rounds] == [3, 1]
    assert cases[0].determinacy is Determinacy.PINNED


def _ensures_lines(p: Program) -> int:
    return sum(line.strip().startswith("ensures") for line in p.method.splitlines())


def _inc_basics(p: Program) -> Result | None:
    """What the scripts of `Inc` on 5 answer alike: the vacuity probe fails, `requires` holds, and every output
    but the expected 6 is rejected (None for a program about 6)."""
    if _vacuity(p):
        return refuted_goal(p)
    if "returns" not in p.method:
        return Result(Outcome.VERIFIED)  # the precondition
    if "r := 6;" not in p.method:
        return Result(Outcome.VERIFIED) if _is_rejection(p) else refuted_goal(p)
    return None


def _split_answer(clause_two: Outcome) -> Answer:
    """The whole postcondition times out on the expected output 6; its clauses alone: `r > x` is proved,
    `r == x + 1` answers `clause_two`; every mutant's rejection is proved."""

    def answer(p: Program) -> Result:
        basic = _inc_basics(p)
        if basic is not None:
            return basic
        if _is_rejection(p):
            return refuted_goal(p)
        if p.want_model:
            return Result(Outcome.VERIFIED)  # a pin check: would be proved, if asked
        if _ensures_lines(p) == 2:
            return Result(Outcome.TIMEOUT, "timed out after 20 seconds")
        if "ensures r > x" in p.method:
            return Result(Outcome.VERIFIED)
        return Result(clause_two) if clause_two is not Outcome.REFUTED else refuted_goal(p)

    return answer


def test_a_timed_out_postcondition_is_accepted_clause_by_clause(monkeypatch: pytest.MonkeyPatch) -> None:
    import bot.symbolic.rounds

    monkeypatch.setattr(bot.symbolic.rounds, "EAGER_PIN_BELOW", 10)  # no pin check with the case's own checks
    engine = ScriptedEngine(_split_answer(Outcome.VERIFIED))
    scores = score_methods([job(case("c1", 5, 6))], engine, Dialect.DAFNY2, EACH3)
    (c,) = scores[0].cases
    assert c.status is CaseStatus.VERIFIED
    assert "accepted clause by clause" in c.note
    # round 2: each clause alone (one `ensures` each), with the full time limit, and no rejection yet;
    # round 3: the mutants, and no pin check: it would ask about every output under the whole postcondition
    assert [len(r) for r in engine.rounds] == [3, 2, 3]
    assert [_ensures_lines(p) for p in engine.rounds[1]] == [1, 1]
    assert all(p.time_limit is None and not _is_rejection(p) for p in engine.rounds[1])
    assert not any(p.want_model for r in engine.rounds for p in r)
    assert c.determinacy is None and "no pin check" in c.note
    assert [m.status for m in c.mutants] == [MutantStatus.KILLED] * 3


@pytest.mark.parametrize("clause_two", [Outcome.REFUTED, Outcome.TIMEOUT])
def test_a_clause_not_proved_leaves_the_rejection_to_decide(clause_two: Outcome) -> None:
    statuses, engine, cases = run(_split_answer(clause_two), case("c1", 5, 6))
    # neither the conjunction's acceptance nor its rejection is proved: unknown, because of the time-out
    assert statuses == [CaseStatus.UNKNOWN]
    assert cases[0].reason is Undecided.TIMEOUT and cases[0].mutants == ()
    # round 3: the conjunction's rejection, and that of the clause not proved accepted, with the full limit
    assert [len(r) for r in engine.rounds] == [3, 2, 2]
    assert all(_is_rejection(p) and p.time_limit is None for p in engine.rounds[2])
    assert sum("ensures !(r == x + 1)" in p.method for p in engine.rounds[2]) == 1
    assert "clause by clause" not in cases[0].note


def test_a_clause_proved_false_refutes_where_the_whole_times_out() -> None:
    inner = _split_answer(Outcome.REFUTED)

    def answer(p: Program) -> Result:
        if "r := 6;" in p.method and "ensures !(r == x + 1)" in p.method:
            return Result(Outcome.VERIFIED)  # the clause is proved false for 6
        if "r := 6;" in p.method and _is_rejection(p):
            return Result(Outcome.TIMEOUT, "timed out after 20 seconds")  # the conjunction's rejection
        return inner(p)

    statuses, engine, cases = run(answer, case("c1", 5, 6))
    assert statuses == [CaseStatus.REFUTED]
    assert cases[0].clause == "ensures r == x + 1"
    assert [len(r) for r in engine.rounds] == [3, 2, 2]  # the clause is known: no round to name it


def test_a_single_clause_spec_is_never_refuted_without_its_rejection() -> None:
    spec = "method Id(x: int) returns (r: int)\n  ensures r == x\n"
    file = parse_file(spec, "id.dfy")
    method = file.find("Id")
    assert method is not None

    def answer(p: Program) -> Result:
        if _vacuity(p):
            return refuted_goal(p)
        return Result(Outcome.TIMEOUT, "timed out after 20 seconds")  # neither acceptance nor rejection

    engine = ScriptedEngine(answer)
    one = TestCase("c1", "Id", (IntV(5),), (IntV(5),), source="t.dfy", line=1)
    options = ScoreOptions(mutants=3, pin=False)
    scores = score_methods([MethodJob(file, method, (one,))], engine, Dialect.DAFNY2, options)
    (c,) = scores[0].cases
    assert c.status is CaseStatus.UNKNOWN and c.reason is Undecided.TIMEOUT
    assert [len(r) for r in engine.rounds] == [2, 1]  # one clause: nothing to ask clause by clause


def test_a_refuted_acceptance_asks_no_clause_alone() -> None:
    def answer(p: Program) -> Result:
        result = _split_answer(Outcome.VERIFIED)(p)
        return refuted_goal(p) if result.outcome is Outcome.TIMEOUT else result

    statuses, engine, _ = run(answer, case("c1", 5, 6))
    assert statuses == [CaseStatus.UNKNOWN]
    assert [len(r) for r in engine.rounds] == [3, 1]  # the rejection only: a failure is not a time-out


TWO_OUTPUTS = """
method DivMod(a: int, b: int) returns (q: int, r: int)
  requires b > 0
  ensures a == q * b + r && 0 <= r < b
"""


def _partial_run(answer: Answer) -> tuple[list, ScriptedEngine]:  # type: ignore[type-arg]
    file = parse_file(TWO_OUTPUTS, "d.dfy")
    method = file.find("DivMod")
    assert method is not None
    # the test checks `q` only: `r` is any value the spec admits (the 0 here is a placeholder, never a claim)
    partial = TestCase("c1", "DivMod", (IntV(7), IntV(2)), (IntV(3), IntV(0)), source="t.dfy", line=1, unchecked=(1,))
    engine = ScriptedEngine(answer)
    scores = score_methods([MethodJob(file, method, (partial,))], engine, Dialect.DAFNY2,
                           ScoreOptions(mutants=2, pin=False))
    return list(scores[0].cases), engine


def test_an_unchecked_output_without_a_witness_is_unknown_and_its_placeholder_never_a_claim() -> None:
    def answer(p: Program) -> Result:
        if _vacuity(p):
            return refuted_goal(p)
        if "returns" not in p.method:
            return refuted_goal(p) if _is_rejection(p) else Result(Outcome.VERIFIED)  # the precondition
        assert "r := 0" not in p.method  # the placeholder is assigned nowhere
        return Result(Outcome.TIMEOUT, "verification timed out")  # the rejection; no model to read a witness from

    cases, engine = _partial_run(answer)
    assert [(c.status, c.reason) for c in cases] == [(CaseStatus.UNKNOWN, Undecided.TIMEOUT)]
    assert "no value of the unchecked outputs" in cases[0].message and "`r` is not checked" in cases[0].note
    assert cases[0].expected == "q = 3" and cases[0].mutants == ()


def test_an_unchecked_output_whose_rejection_is_proved_refutes() -> None:
    def answer(p: Program) -> Result:
        if _vacuity(p):
            return refuted_goal(p)
        if "returns" not in p.method:
            return refuted_goal(p) if _is_rejection(p) else Result(Outcome.VERIFIED)
        return Result(Outcome.VERIFIED)  # `ensures !(...)` with `r` left arbitrary: proved

    cases, _ = _partial_run(answer)
    assert [c.status for c in cases] == [CaseStatus.REFUTED]


@pytest.mark.parametrize(("strict", "op"), [(True, "<"), (False, "<=")])
def test_the_tests_own_tolerance_bounds_every_program_exactly_as_the_check_states_it(strict: bool, op: str) -> None:
    """`expect abs(r - 0.5) < 0.25` admits the open interval (0.25, 0.75), `<= 0.25` the closed one: an acceptance,
    a pin and a rejection each speak of exactly the outputs the test passes (exact bounds, no rounding either
    way), and the tool's relative tolerance (here 0) plays no part."""
    from fractions import Fraction

    from bot.dafny.values import RealV
    from bot.symbolic.harness.programs import CaseHarness, HarnessOptions, make_prelude
    from bot.symbolic.program import Goal
    from bot.testcases.cases import Tolerance

    file = parse_file("method Half(x: real) returns (r: real)\n  ensures r * 2.0 == x\n", "h.dfy")
    method = file.find("Half")
    assert method is not None
    case = TestCase("c1", "Half", (RealV(Fraction(1)),), (RealV(Fraction(1, 2)),),
                    tolerances=(Tolerance(0, Fraction(1, 4), strict),))
    h = CaseHarness(make_prelude(file, Dialect.DAFNY2), file, method, case, HarnessOptions())
    within = f"0.25 {op} r {op} 0.75"
    (reject,) = h.within_tolerance(Goal.REJECT_WITHIN)
    assert within in reject.program.method
    accepts = h.within_tolerance(Goal.ACCEPT_WITHIN)
    assert accepts and within in accepts[-1].program.method
    pin = h.pin(Goal.PIN)
    assert pin is not None and within in pin.program.method


def _conjoined(p: Program) -> bool:
    return "SpecScore_k == 0" in p.method  # a branch per mutant, chosen by a parameter


def test_lean_rejects_every_mutant_in_one_program_when_that_is_proved() -> None:
    def answer(p: Program) -> Result:
        if _vacuity(p) or _conjoined(p) and "r := 6;" in p.method:
            return refuted_goal(p)
        if _conjoined(p) or "returns" not in p.method:
            return Result(Outcome.VERIFIED)
        if "r := 6;" in p.method:
            return refuted_goal(p) if _is_rejection(p) else Result(Outcome.VERIFIED)
        return Result(Outcome.VERIFIED) if _is_rejection(p) else refuted_goal(p)

    statuses, engine, cases = run(answer, case("c1", 5, 6), strategy=Strategy.LEAN)
    assert statuses == [CaseStatus.VERIFIED]
    assert [(m.status, m.killed_by) for m in cases[0].mutants] == [(MutantStatus.KILLED, KillProof.REJECTION)] * 3
    # round 2: one program for the three mutants, with the short limit of a question that decides nothing alone
    assert [len(r) for r in engine.rounds] == [3, 1]
    (together,) = engine.rounds[1]
    assert together.time_limit == CONJOINED_SECONDS and together.method.count("==> (!(") == 3


def test_lean_asks_each_mutant_when_the_conjoined_rejection_is_not_proved() -> None:
    def answer(p: Program) -> Result:
        if _vacuity(p) or _conjoined(p):
            return refuted_goal(p)
        if "returns" not in p.method:
            return Result(Outcome.VERIFIED)
        if "r := 6;" in p.method or "r := 7;" in p.method:  # 7: a mutant the spec accepts
            return refuted_goal(p) if _is_rejection(p) else Result(Outcome.VERIFIED)
        return Result(Outcome.VERIFIED) if _is_rejection(p) else refuted_goal(p)

    lean, lean_engine, lean_cases = run(answer, case("c1", 5, 6), strategy=Strategy.LEAN)
    each, _, each_cases = run(answer, case("c1", 5, 6))
    assert lean == each
    assert [(m.value, m.status) for m in lean_cases[0].mutants] == [(m.value, m.status) for m in each_cases[0].mutants]
    # the conjunction, then each mutant's rejection, then the acceptance of the one not rejected
    assert [len(r) for r in lean_engine.rounds][:3] == [3, 1, 3]


# --- lean: a short first limit on a large acceptance, and pin checks of the leading clauses --------------------

LEAN3 = ScoreOptions(mutants=3, pin=True, strategy=Strategy.LEAN)


def _is_pin(p: Program) -> bool:
    return p.kind is ProgramKind.PIN


def _first_limit_answer(full: Outcome, pin_part: Outcome) -> Answer:
    """The whole postcondition times out on 6 at the short first limit and answers `full` at the full limit; each
    clause alone: `r > x` proved, `r == x + 1` timed out (so the clauses decide nothing) unless `full` is proved,
    when both are; a pin check assuming `r > x` alone, or the whole, answers `pin_part`."""

    def answer(p: Program) -> Result:
        if _is_pin(p):
            # the whole's pin check (it wants a model) is proved with the part's
            proved = ("assume {:axiom} (r > x);" in p.method or p.want_model) and pin_part is Outcome.VERIFIED
            return Result(Outcome.VERIFIED) if proved else refuted_goal(p)
        basic = _inc_basics(p)
        if basic is not None:
            return basic
        if _is_rejection(p):
            return Result(Outcome.TIMEOUT, "timed out after 20 seconds")
        if _ensures_lines(p) == 2:
            if p.time_limit == FIRST_ACCEPT_SECONDS:
                return Result(Outcome.TIMEOUT, f"timed out after {FIRST_ACCEPT_SECONDS} seconds")
            return Result(full) if full is not Outcome.REFUTED else refuted_goal(p)
        if "ensures r > x" in p.method or full is Outcome.VERIFIED:
            return Result(Outcome.VERIFIED)
        return Result(Outcome.TIMEOUT, "timed out after 20 seconds")

    return answer


def _lean_large(answer: Answer, monkeypatch: pytest.MonkeyPatch, strategy: Strategy = Strategy.LEAN
                ) -> tuple[ScriptedEngine, list]:  # type: ignore[type-arg]
    import bot.symbolic.rounds

    monkeypatch.setattr(bot.symbolic.rounds, "EAGER_PIN_BELOW", 10)  # every case is large
    engine = ScriptedEngine(answer)
    options = ScoreOptions(mutants=3, pin=True, strategy=strategy)
    scores = score_methods([job(case("c1", 5, 6))], engine, Dialect.DAFNY2, options)
    return engine, list(scores[0].cases)


def test_lean_gives_a_large_acceptance_a_short_first_limit_and_pins_it_by_its_leading_clauses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    engine, cases = _lean_large(_first_limit_answer(Outcome.VERIFIED, Outcome.VERIFIED), monkeypatch)
    (c,) = cases
    assert c.status is CaseStatus.VERIFIED and "took over 4 s, its first limit" in c.note
    accept = [p for p in engine.rounds[0] if "r := 6;" in p.method]
    assert [p.time_limit for p in accept] == [FIRST_ACCEPT_SECONDS]
    # round 3: the pin check of every clause but the last, with the short limit of a detail, and no model
    # wanted (it would satisfy a part of the spec only); proved, it kills every mutant with no program of its own
    (part,) = engine.rounds[2]
    assert _is_pin(part) and part.goal is Goal.PIN and part.time_limit == PIN_PART_SECONDS
    assert "assume {:axiom} (r > x);" in part.method and "r == x + 1" not in part.method and not part.want_model
    assert len(engine.rounds) == 3
    assert [(m.status, m.killed_by) for m in c.mutants] == [(MutantStatus.KILLED, KillProof.PIN)] * 3
    assert c.determinacy is Determinacy.PINNED and "pin checks of its first ensures clause alone (proved)" in c.note


def test_lean_pin_parts_that_fail_say_nothing_and_the_mutants_are_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    engine, cases = _lean_large(_first_limit_answer(Outcome.VERIFIED, Outcome.REFUTED), monkeypatch)
    (c,) = cases
    assert c.status is CaseStatus.VERIFIED
    assert c.determinacy is None and "(not proved)" in c.note  # not "not pinned": a part proves no witness
    assert [(m.status, m.killed_by) for m in c.mutants] == [(MutantStatus.KILLED, KillProof.REJECTION)] * 3
    # no candidate output to confirm: a failed part gives no model, and the search would ask the whole
    assert not any(p.time_limit == DESCRIPTIVE_SECONDS and not _is_pin(p) for r in engine.rounds for p in r)


@pytest.mark.parametrize("full", [Outcome.VERIFIED, Outcome.TIMEOUT])
def test_lean_asks_the_whole_again_at_the_full_limit_when_the_clauses_do_not_decide(
    full: Outcome, monkeypatch: pytest.MonkeyPatch,
) -> None:
    def answer(p: Program) -> Result:
        if _ensures_lines(p) == 1 and "ensures r == x + 1" in p.method and not _is_rejection(p):
            return Result(Outcome.TIMEOUT, "timed out after 20 seconds")  # the clauses do not decide
        return _first_limit_answer(full, Outcome.VERIFIED)(p)

    engine, cases = _lean_large(answer, monkeypatch)
    (c,) = cases
    # round 3: the whole at the full limit, beside the rejections; its answer is the verdict
    again = [p for p in engine.rounds[2] if "r := 6;" in p.method and not _is_rejection(p)]
    assert [(_ensures_lines(p), p.time_limit) for p in again] == [(2, None)]
    assert "clause by clause" not in c.note
    if full is Outcome.VERIFIED:
        # accepted at the full limit: the whole's pin check follows, as with one limit
        assert c.status is CaseStatus.VERIFIED and c.determinacy is Determinacy.PINNED
        assert any(_is_pin(p) and p.want_model for p in engine.rounds[3])
    else:
        assert c.status is CaseStatus.UNKNOWN and c.reason is Undecided.TIMEOUT
        assert f"{FIRST_ACCEPT_SECONDS} seconds" not in c.message


def test_each_keeps_the_full_limit_and_asks_no_pin_part(monkeypatch: pytest.MonkeyPatch) -> None:
    engine, cases = _lean_large(_split_answer(Outcome.VERIFIED), monkeypatch, Strategy.EACH)
    assert all(p.time_limit is None for p in engine.rounds[0])
    assert not any(_is_pin(p) for r in engine.rounds for p in r)
    assert cases[0].determinacy is None and "no pin check" in cases[0].note


def test_lean_keeps_the_full_limit_for_a_small_acceptance_a_single_clause_or_a_property(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import bot.symbolic.rounds

    def limits(spec: str, name: str, tc: TestCase) -> list[int | None]:
        engine, _ = score_one(spec, name, tc, refuted_goal, LEAN3)
        return [p.time_limit for p in engine.rounds[0] if p.kind is ProgramKind.CORRECTNESS]

    assert limits(SPEC, "Inc", case("c1", 5, 6)) == [None]  # small: the full limit (and the first batch's mates)
    monkeypatch.setattr(bot.symbolic.rounds, "EAGER_PIN_BELOW", 10)  # every case is large from here on
    assert limits(SPEC, "Inc", case("c1", 5, 6)) == [FIRST_ACCEPT_SECONDS]
    # one clause: no clause to fall back on, so a time-out would decide `unknown`
    one = "method Id(x: int) returns (r: int)\n  ensures r == x\n"
    assert limits(one, "Id", TestCase("c1", "Id", (IntV(5),), (IntV(5),), source="t.dfy", line=1)) == [None]
    # a property expectation is one more clause, never asked alone
    prop = TestCase("c1", "Inc", (IntV(5),), (IntV(6),), source="t.dfy", line=1, property="r > 0")
    assert limits(SPEC, "Inc", prop) == [None]
    # the limit at or under the first one: a single limit
    from bot.settings import Settings

    assert Settings(time_limit=FIRST_ACCEPT_SECONDS).score_options().first_limit is None
    assert Settings().score_options().first_limit == FIRST_ACCEPT_SECONDS


def test_lean_reads_an_acceptance_at_the_full_limit_beside_a_proved_clause_rejection_as_vacuous(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def answer(p: Program) -> Result:
        if "r := 6;" in p.method and "ensures !(r == x + 1)" in p.method:
            return Result(Outcome.VERIFIED)  # clause 2 proved false of 6 ...
        if "r := 6;" in p.method and _ensures_lines(p) == 1 and "ensures r == x + 1" in p.method:
            return Result(Outcome.TIMEOUT, "timed out after 20 seconds")
        return _first_limit_answer(Outcome.VERIFIED, Outcome.VERIFIED)(p)  # ... and the whole proved true of it

    _, cases = _lean_large(answer, monkeypatch)
    (c,) = cases
    # both proved: the assumptions are contradictory, and nothing about this case is evidence
    assert c.status is CaseStatus.VACUOUS and c.mutants == () and c.determinacy is None


def test_lean_refutes_by_a_proved_clause_where_the_whole_at_the_full_limit_fails_with_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def answer(p: Program) -> Result:
        if "r := 6;" in p.method and "ensures !(r == x + 1)" in p.method:
            return Result(Outcome.VERIFIED)  # clause 2 proved false of 6
        if "r := 6;" in p.method and _ensures_lines(p) == 1 and "ensures r == x + 1" in p.method:
            return Result(Outcome.TIMEOUT, "timed out after 20 seconds")
        return _first_limit_answer(Outcome.ERROR, Outcome.VERIFIED)(p)

    _, cases = _lean_large(answer, monkeypatch)
    (c,) = cases
    # a proved rejection outranks the verifier's error, as for the rejection of the whole
    assert c.status is CaseStatus.REFUTED and c.clause == "ensures r == x + 1"


SEQ_TWO = """
method Pair(x: int) returns (s: seq<int>)
  ensures multiset(s) == multiset([x, x + 1])
  ensures |s| == 2
{
  s := [x, x + 1];
}
"""


def test_lean_pins_up_to_order_by_its_leading_clauses_and_asks_no_program_for_mutants_that_change_elements(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import bot.symbolic.rounds

    monkeypatch.setattr(bot.symbolic.rounds, "EAGER_PIN_BELOW", 10)

    def answer(p: Program) -> Result:
        if _vacuity(p):
            return vacuity_fails(p)
        if _is_pin(p):  # the part's order-free pin is proved, its exact pin is not
            return Result(Outcome.VERIFIED) if "ensures multiset(s)" in p.method else refuted_goal(p)
        if "s := [3, 4];" in p.method:
            if p.time_limit == FIRST_ACCEPT_SECONDS:
                return Result(Outcome.TIMEOUT, "timed out after 4 seconds")
            return refuted_goal(p) if _is_rejection(p) else Result(Outcome.VERIFIED)
        return Result(Outcome.VERIFIED) if _is_rejection(p) else refuted_goal(p)

    tc = TestCase("c1", "Pair", (IntV(3),), (SeqV((IntV(3), IntV(4))),), source="t.dfy", line=1)
    engine, c = score_one(SEQ_TWO, "Pair", tc, answer, ScoreOptions(mutants=4, pin=True, strategy=Strategy.LEAN))
    assert c.status is CaseStatus.VERIFIED and c.determinacy is Determinacy.PINNED_UP_TO_ORDER
    by_pin = [m for m in c.mutants if m.killed_by is KillProof.PIN_UP_TO_ORDER]
    assert by_pin and all(m.status is MutantStatus.KILLED for m in c.mutants)
    # a program only for the mutants that keep the elements (a swap); none for the others
    asked = [p for r in engine.rounds for p in r if p.kind is ProgramKind.MUTANT]
    assert len(asked) <= len(c.mutants) - len(by_pin)
    assert not any(_is_pin(p) and p.want_model for r in engine.rounds for p in r)  # the whole's: never asked


REAL_PAIR = """
method Halves(x: real) returns (s: seq<real>)
  ensures multiset(s) == multiset([x / 2.0, x])
  ensures |s| == 2
{
  s := [x / 2.0, x];
}
"""


def test_lean_pin_parts_with_a_real_tolerance_pin_up_to_order_but_kill_no_mutant(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Within a tolerance the order-free pin admits other reals in the interval: it is reported, as the whole's
    would be, and each mutant still needs its own rejection."""
    import bot.symbolic.rounds

    monkeypatch.setattr(bot.symbolic.rounds, "EAGER_PIN_BELOW", 10)

    def answer(p: Program) -> Result:
        if _vacuity(p):
            return vacuity_fails(p)
        if _is_pin(p):
            return Result(Outcome.VERIFIED) if "ensures multiset(s)" in p.method else refuted_goal(p)
        if p.time_limit == FIRST_ACCEPT_SECONDS:
            return Result(Outcome.TIMEOUT, "timed out after 4 seconds")
        expected = p.kind is ProgramKind.CORRECTNESS
        return (refuted_goal(p) if _is_rejection(p) else Result(Outcome.VERIFIED)) if expected else \
            (Result(Outcome.VERIFIED) if _is_rejection(p) else refuted_goal(p))

    tc = TestCase("c1", "Halves", (RealV(Fraction(4)),), (SeqV((RealV(Fraction(2)), RealV(Fraction(4)))),),
                  source="t.dfy", line=1)
    options = ScoreOptions(mutants=3, pin=True, strategy=Strategy.LEAN,
                           harness=HarnessOptions(real_tolerance=0.001))
    _, c = score_one(REAL_PAIR, "Halves", tc, answer, options)
    assert c.status is CaseStatus.VERIFIED and "accepted clause by clause" in c.note
    assert c.determinacy is Determinacy.PINNED_UP_TO_ORDER
    assert c.mutants and all(m.killed_by is KillProof.REJECTION for m in c.mutants)


def test_a_method_whose_pin_times_out_asks_its_later_pins_and_mutants_with_the_short_limit() -> None:
    """The eager pin check of case c1 times out at the full limit: every later pin check and mutant of the method
    (c1's and c2's, in later rounds) gets the short limit; the programs deciding each case keep the full one, and
    the method is marked slow (its questions over every input get the short limit too)."""
    def answer(p: Program) -> Result:
        if p.want_model:  # an exact pin check
            return Result(Outcome.TIMEOUT, "timed out after 20 seconds") if p.time_limit is None else \
                refuted_goal(p)
        if _vacuity(p):
            return refuted_goal(p)
        if "returns" not in p.method or "r := 6;" in p.method or "r := 10;" in p.method:
            return refuted_goal(p) if _is_rejection(p) else Result(Outcome.VERIFIED)
        return Result(Outcome.VERIFIED) if _is_rejection(p) else refuted_goal(p)

    engine = ScriptedEngine(answer)
    (score,) = score_methods([job(case("c1", 5, 6), case("c2", 9, 10))], engine, Dialect.DAFNY2, EACH3)
    assert score.slow
    first, *later = engine.rounds
    assert all(p.time_limit is None for p in first)  # nothing is known to be slow before the first round
    cut = [p for r in later for p in r if p.kind in (ProgramKind.PIN, ProgramKind.MUTANT)]
    assert cut and all(p.time_limit == SLOW_METHOD_SECONDS for p in cut), [(p.kind, p.time_limit) for p in cut]
    kept = [p for r in later for p in r if p.kind not in (ProgramKind.PIN, ProgramKind.MUTANT)]
    assert kept and all(p.time_limit != SLOW_METHOD_SECONDS for p in kept)  # each its own limit (a descriptive 5 s)
    assert [c.status for c in score.cases] == [CaseStatus.VERIFIED, CaseStatus.VERIFIED]
    assert all(m.status is MutantStatus.KILLED for c in score.cases for m in c.mutants)  # proofs stay proofs
    assert any(SLOW_NOTE in c.note for c in score.cases)
    # a method none of whose programs timed out keeps every limit
    plain = ScriptedEngine(lambda p: refuted_goal(p) if p.want_model else answer(p))
    (fast,) = score_methods([job(case("c1", 5, 6))], plain, Dialect.DAFNY2, EACH3)
    assert not fast.slow and all(p.time_limit != SLOW_METHOD_SECONDS for r in plain.rounds for p in r)


def test_a_method_past_its_budget_asks_nothing_more_and_keeps_what_it_decided() -> None:
    """Each program takes 30 s: after the first round (the cases' checks, 120 s and more) the budget of 60 s has run
    out. The verified cases stay verified; their mutants and pin checks are not asked (unknown, never killed or
    surviving), the cases say why, and the method counts as slow (no suggestion, short questions on every input)."""
    engine = ScriptedEngine(_inc_answer(30.0))
    options = replace(EACH3, budget=60)
    (score,) = score_methods([job(case("c1", 5, 6), case("c2", 9, 10))], engine, Dialect.DAFNY2, options)
    assert len(engine.rounds) == 1
    assert [c.status for c in score.cases] == [CaseStatus.VERIFIED, CaseStatus.VERIFIED]
    assert all(BUDGET_NOTE in c.note for c in score.cases)
    assert all(m.status is MutantStatus.UNKNOWN for c in score.cases for m in c.mutants)
    assert all(c.determinacy is not Determinacy.PINNED for c in score.cases)
    assert score.slow
    # within the budget, the same method is scored in full: every mutant killed
    engine = ScriptedEngine(_inc_answer(1.0))
    (full,) = score_methods([job(case("c1", 5, 6), case("c2", 9, 10))], engine, Dialect.DAFNY2,
                            replace(EACH3, budget=60))
    assert not full.slow and len(engine.rounds) > 1
    assert all(m.status is MutantStatus.KILLED for c in full.cases for m in c.mutants)
    assert not any(BUDGET_NOTE in c.note for c in full.cases)


def test_a_case_the_budget_leaves_undecided_is_unknown() -> None:
    """The acceptance times out (60 s, past the budget): its rejection is not asked, and the case is unknown, not
    refuted; nothing the budget cut short is a verdict."""
    def answer(p: Program) -> Result:
        if p.kind is ProgramKind.CORRECTNESS and not _is_rejection(p):
            return Result(Outcome.TIMEOUT, "timed out after 20 seconds", seconds=60.0)
        return _inc_answer(1.0)(p)

    engine = ScriptedEngine(answer)
    (score,) = score_methods([job(case("c1", 5, 6))], engine, Dialect.DAFNY2, replace(EACH3, budget=30))
    (c,) = score.cases
    assert c.status is CaseStatus.UNKNOWN and BUDGET_NOTE in c.note
    assert not any(_is_rejection(p) for r in engine.rounds for p in r)
    assert BUDGET_MESSAGE  # the message the unasked programs carry (a time-out's words are not theirs)


def test_the_budget_says_nothing_timed_out_counts_a_shared_program_once_and_marks_a_method_over_it_slow() -> None:
    """From the hostile review: the cut-short note is not added where nothing timed out (nothing was asked); two
    cases with the same programs spend their time once; a method that ends over its budget in its last round counts
    as slow (no suggestion search, short questions on every input)."""
    engine = ScriptedEngine(_inc_answer(30.0))
    (score,) = score_methods([job(case("c1", 5, 6))], engine, Dialect.DAFNY2, replace(EACH3, budget=60))
    assert not any(SLOW_NOTE in c.note for c in score.cases)
    # two cases, the same four programs in round 1 (40 s once, 80 s counted twice): within a budget of 45
    engine = ScriptedEngine(_inc_answer(10.0))
    (twice,) = score_methods([job(case("a", 5, 6), case("b", 5, 6))], engine, Dialect.DAFNY2,
                             replace(EACH3, budget=45))
    engine = ScriptedEngine(_inc_answer(10.0))
    (once,) = score_methods([job(case("a", 5, 6))], engine, Dialect.DAFNY2, replace(EACH3, budget=45))
    assert [c.note for c in twice.cases] == [once.cases[0].note] * 2
    # one case at 1 s a program, a budget of 2: the last round passes it, and the method is slow
    engine = ScriptedEngine(_inc_answer(1.0))
    (over,) = score_methods([job(case("c1", 5, 6))], engine, Dialect.DAFNY2, replace(EACH3, budget=2))
    assert over.slow


def test_a_method_of_many_cases_with_a_budget_asks_no_pin_check_in_its_first_round() -> None:
    """With a budget, the eager pin checks (a small case's pin check beside its acceptance) are asked for a method of
    at most EAGER_PIN_CASES cases only: in the first round each may time out beside its acceptance before the budget
    is looked at. A method of more cases gets its pin checks once its acceptances are proved, and the same verdicts."""
    few = [case(f"c{k}", *((5, 6), (9, 10))[k % 2]) for k in range(EAGER_PIN_CASES)]
    many = [case(f"c{k}", *((5, 6), (9, 10))[k % 2]) for k in range(EAGER_PIN_CASES + 1)]
    for cases, eager in ((few, True), (many, False)):
        for budget in (None, 10_000):
            engine = ScriptedEngine(_inc_answer(1.0, pin=Outcome.VERIFIED))
            (score,) = score_methods([job(*cases)], engine, Dialect.DAFNY2, replace(EACH3, budget=budget))
            pins = [p for p in engine.rounds[0] if p.kind is ProgramKind.PIN]
            assert bool(pins) is (eager or budget is None), (len(cases), budget)
            assert all(c.status is CaseStatus.VERIFIED and c.determinacy is Determinacy.PINNED for c in score.cases)
