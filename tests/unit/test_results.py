from __future__ import annotations

from bot.dafny.values import IntV
from bot.symbolic.harness.programs import Planned
from bot.symbolic.program import Goal, Outcome, Program, ProgramKind, Result
from bot.symbolic.proofs import Judged, Proof, failure_lines, judge
from bot.symbolic.results import (
    CaseResult,
    CaseStatus,
    Gate,
    MutantResult,
    MutantStatus,
    Undecided,
    gate_failures,
    method_score,
)
from bot.symbolic.verdicts import (
    Decision,
    decide,
    mutant_status,
    precondition_status,
)
from bot.testcases.cases import TestCase

PROVED = Judged(Proof.PROVED)
NOT = Judged(Proof.NOT_PROVED, "`ensures r == 2`")
HINT = Judged(Proof.HINT_FAULT, "`hint assert f(3) == 4`")
TIME = Judged(Proof.TIMEOUT, "timed out")
ERR = Judged(Proof.ERROR, "resolution error")


def case(status: CaseStatus, *mutants: MutantStatus, reason: Undecided | None = None) -> CaseResult:
    return CaseResult("c", 1, "x = 1", "r = 2", "", "f.dfy", status, "",
                      tuple(MutantResult(str(i), "d", m) for i, m in enumerate(mutants)), reason)


def test_only_a_proof_decides() -> None:
    assert decide(PROVED, None)[0] is Decision.ACCEPTED
    assert decide(NOT, PROVED)[0] is Decision.REJECTED
    assert decide(PROVED, PROVED)[0] is Decision.BOTH
    # failing to prove acceptance is not a rejection
    assert decide(NOT, None) == (Decision.UNDECIDED, Undecided.STUCK, "`ensures r == 2`")
    assert decide(NOT, NOT)[:2] == (Decision.UNDECIDED, Undecided.STUCK)
    assert decide(NOT, TIME)[:2] == (Decision.UNDECIDED, Undecided.TIMEOUT)
    # a hint's failure is the tool's: it outranks the other reasons, so it gets seen and fixed
    assert decide(TIME, HINT)[:2] == (Decision.UNDECIDED, Undecided.HINT_FAULT)
    assert decide(ERR, NOT)[0] is Decision.ERROR


def test_limits_are_said() -> None:
    capped = Judged(Proof.NOT_PROVED, "stuck", ("ground evaluation stopped at 10000 steps",))
    assert "10000 steps" in decide(capped, NOT)[2]


def test_mutants_are_killed_only_by_proved_rejection() -> None:
    assert mutant_status(Decision.REJECTED) is MutantStatus.KILLED
    assert mutant_status(Decision.ACCEPTED) is MutantStatus.SURVIVED
    assert mutant_status(Decision.UNDECIDED) is MutantStatus.UNKNOWN
    assert mutant_status(Decision.ERROR) is MutantStatus.UNKNOWN
    assert mutant_status(Decision.BOTH) is MutantStatus.UNKNOWN


def test_precondition_violated_only_when_proved() -> None:
    assert precondition_status(PROVED, None) is None
    assert precondition_status(NOT, PROVED) == (CaseStatus.PRECONDITION_VIOLATED, None, "")
    status, reason, _ = precondition_status(NOT, NOT) or (None, None, "")
    assert status is CaseStatus.UNKNOWN and reason is Undecided.PRECONDITION
    assert (precondition_status(ERR, NOT) or (None,))[0] is CaseStatus.ERROR


def _planned(hints: frozenset[int], goals: frozenset[int]) -> Planned:
    case_ = TestCase("t", "M", (IntV(1),), (IntV(2),))
    text = "\n".join(f"  line {n}" for n in range(1, 8))
    return Planned(Program("", "P", text), ProgramKind.CORRECTNESS, case_, None, Goal.ACCEPT, None, hints, goals)


def test_judge_reads_the_failing_line() -> None:
    p = _planned(frozenset({4}), frozenset({2, 3}))
    assert failure_lines("line 4: assertion violation\nline 3: postcondition violation") == [4, 3]
    assert judge(Result(Outcome.VERIFIED), p).proof is Proof.PROVED
    assert judge(Result(Outcome.REFUTED, "line 3: postcondition violation"), p).proof is Proof.NOT_PROVED
    assert judge(Result(Outcome.REFUTED, "line 4: assertion violation"), p).proof is Proof.HINT_FAULT
    # a failure on a line that is neither a hint nor the goal (an input assumption) is the tool's too
    assert judge(Result(Outcome.REFUTED, "line 6: index out of range"), p).proof is Proof.HINT_FAULT
    assert judge(Result(Outcome.TIMEOUT, "timed out"), p).proof is Proof.TIMEOUT
    assert judge(Result(Outcome.ERROR, "unresolved identifier: i"), p).proof is Proof.ERROR


def test_scores_count_proofs_only() -> None:
    s = method_score("f", "M", 1, (
        case(CaseStatus.VERIFIED, MutantStatus.KILLED, MutantStatus.SURVIVED, MutantStatus.UNKNOWN),
        case(CaseStatus.VERIFIED, MutantStatus.KILLED),
        case(CaseStatus.PRECONDITION_VIOLATED),
        case(CaseStatus.UNKNOWN, reason=Undecided.TIMEOUT),
    ))
    assert s.correctness == 1.0
    assert s.completeness == 2 / 3  # the unknown mutant is on neither side
    assert len(s.surviving) == 1
    assert s.unknown == {"case timeout": 1, "mutant unknown": 1}
    assert s.unscored == {"precondition-violated": 1}


def test_completeness_only_when_correct() -> None:
    s = method_score("f", "M", 1, (case(CaseStatus.VERIFIED, MutantStatus.SURVIVED), case(CaseStatus.REFUTED)))
    assert s.correctness == 0.5
    assert s.completeness is None


def test_nothing_conclusive() -> None:
    s = method_score("f", "M", 1, (case(CaseStatus.UNKNOWN, reason=Undecided.STUCK), case(CaseStatus.UNSUPPORTED)))
    assert s.correctness is None and s.completeness is None


def test_gate() -> None:
    good = method_score("f", "A", 1, (case(CaseStatus.VERIFIED, MutantStatus.KILLED),))
    weak = method_score("f", "B", 1, (case(CaseStatus.VERIFIED, MutantStatus.SURVIVED),))
    wrong = method_score("f", "C", 1, (case(CaseStatus.REFUTED),))
    undecided = method_score("f", "D", 1, (case(CaseStatus.VERIFIED, MutantStatus.KILLED, MutantStatus.UNKNOWN),
                                           case(CaseStatus.UNKNOWN, reason=Undecided.STUCK)))
    assert gate_failures([good, weak], Gate(1.0, 0.0)) == []
    assert len(gate_failures([good, weak], Gate(1.0, 0.5))) == 1
    assert "correctness" in gate_failures([wrong], Gate())[0]
    # unknowns count neither way unless the gate is strict
    assert gate_failures([undecided], Gate(1.0, 1.0)) == []
    strict = gate_failures([undecided], Gate(1.0, 1.0, fail_on_unknown=True))
    assert len(strict) == 1 and "case stuck" in strict[0] and "mutant unknown" in strict[0]
