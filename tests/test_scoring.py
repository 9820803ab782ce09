from __future__ import annotations

from bot.outcomes import Outcome, Result
from bot.scoring import (
    CaseResult,
    CaseStatus,
    Gate,
    MutantResult,
    MutantStatus,
    case_status,
    gate_failures,
    method_score,
    mutant_status,
)

V = Result(Outcome.VERIFIED)
R = Result(Outcome.REFUTED, "postcondition")
T = Result(Outcome.TIMEOUT, "timed out")
E = Result(Outcome.ERROR, "resolution error")


def case(status: CaseStatus, *mutants: MutantStatus) -> CaseResult:
    return CaseResult("c", 1, "x = 1", "r = 2", "", "f.dfy", status, "",
                      tuple(MutantResult(str(i), "d", m) for i, m in enumerate(mutants)))


def test_case_status_precedence() -> None:
    assert case_status(R, V, V)[0] is CaseStatus.PRECONDITION_VIOLATED
    assert case_status(T, R, V)[0] is CaseStatus.TIMEOUT
    assert case_status(E, R, V)[0] is CaseStatus.ERROR
    assert case_status(V, V, V)[0] is CaseStatus.VACUOUS
    assert case_status(None, R, V)[0] is CaseStatus.VERIFIED
    assert case_status(None, R, R) == (CaseStatus.REFUTED, "postcondition")
    # a vacuity probe that times out proves nothing either way: the case is still decided
    assert case_status(None, T, V)[0] is CaseStatus.VERIFIED
    assert case_status(None, R, T)[0] is CaseStatus.TIMEOUT


def test_any_failure_kills_and_undecided_is_inconclusive() -> None:
    assert mutant_status(R) is MutantStatus.KILLED
    assert mutant_status(V) is MutantStatus.SURVIVED
    assert mutant_status(T) is MutantStatus.INCONCLUSIVE
    assert mutant_status(E) is MutantStatus.INCONCLUSIVE


def test_scores() -> None:
    s = method_score("f", "M", 1, (
        case(CaseStatus.VERIFIED, MutantStatus.KILLED, MutantStatus.SURVIVED, MutantStatus.INCONCLUSIVE),
        case(CaseStatus.VERIFIED, MutantStatus.KILLED),
        case(CaseStatus.PRECONDITION_VIOLATED),
        case(CaseStatus.TIMEOUT),
    ))
    assert s.correctness == 1.0
    assert s.completeness == 2 / 3
    assert len(s.surviving) == 1
    assert s.inconclusive == {"case precondition-violated": 1, "case timeout": 1, "mutant inconclusive": 1}


def test_completeness_only_when_correct() -> None:
    s = method_score("f", "M", 1, (case(CaseStatus.VERIFIED, MutantStatus.SURVIVED), case(CaseStatus.REFUTED)))
    assert s.correctness == 0.5
    assert s.completeness is None


def test_nothing_conclusive() -> None:
    s = method_score("f", "M", 1, (case(CaseStatus.TIMEOUT), case(CaseStatus.UNSUPPORTED)))
    assert s.correctness is None and s.completeness is None


def test_gate() -> None:
    good = method_score("f", "A", 1, (case(CaseStatus.VERIFIED, MutantStatus.KILLED),))
    weak = method_score("f", "B", 1, (case(CaseStatus.VERIFIED, MutantStatus.SURVIVED),))
    wrong = method_score("f", "C", 1, (case(CaseStatus.REFUTED),))
    assert gate_failures([good, weak], Gate(1.0, 0.0)) == []
    assert len(gate_failures([good, weak], Gate(1.0, 0.5))) == 1
    assert "correctness" in gate_failures([wrong], Gate())[0]
