"""Scores: verifier outcomes of planned programs -> case statuses, mutant statuses, method scores.

Pure code. Inconclusive results (timeouts, errors, vacuous assumptions) never count as a pass or a kill.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from bot.outcomes import Outcome, Result


class CaseStatus(Enum):
    VERIFIED = "verified"
    REFUTED = "refuted"
    TIMEOUT = "timeout"
    ERROR = "error"
    PRECONDITION_VIOLATED = "precondition-violated"
    UNSUPPORTED = "unsupported"
    VACUOUS = "vacuous"

    @property
    def scored(self) -> bool:
        return self in (CaseStatus.VERIFIED, CaseStatus.REFUTED)


class MutantStatus(Enum):
    KILLED = "killed"
    SURVIVED = "survived"
    INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True)
class MutantResult:
    value: str  # the wrong output(s), as Dafny literal text
    description: str
    status: MutantStatus
    message: str = ""


@dataclass(frozen=True)
class CaseResult:
    name: str
    line: int
    inputs: str  # "a = [3, 4], b = [5]"
    expected: str  # "result = [4, 5]"
    text: str  # the case as written in its file
    source: str
    status: CaseStatus
    message: str = ""
    mutants: tuple[MutantResult, ...] = ()


@dataclass(frozen=True)
class Surviving:
    case: str
    inputs: str
    expected: str
    value: str
    description: str


@dataclass(frozen=True)
class MethodScore:
    file: str
    method: str
    line: int
    correctness: float | None  # verified / scored cases; None when no case was conclusive
    completeness: float | None  # killed / conclusive mutants; only when correctness is 1.0
    cases: tuple[CaseResult, ...]
    problems: tuple[str, ...] = ()  # cases that could not be read: "file:line: reason"
    note: str = ""  # why the method was not scored at all, when it was not

    @property
    def surviving(self) -> tuple[Surviving, ...]:
        return tuple(
            Surviving(c.name, c.inputs, c.expected, m.value, m.description)
            for c in self.cases
            for m in c.mutants
            if m.status is MutantStatus.SURVIVED
        )

    @property
    def mutant_counts(self) -> dict[str, int]:
        counts = {s.value: 0 for s in MutantStatus}
        for c in self.cases:
            for m in c.mutants:
                counts[m.status.value] += 1
        return counts

    @property
    def inconclusive(self) -> dict[str, int]:
        """Why programs were inconclusive: cause -> count (cases and mutants)."""
        out: dict[str, int] = {}
        for c in self.cases:
            if not c.status.scored:
                out[f"case {c.status.value}"] = out.get(f"case {c.status.value}", 0) + 1
            for m in c.mutants:
                if m.status is MutantStatus.INCONCLUSIVE:
                    cause = "mutant " + (m.message.split(":", 1)[0] if m.message else "inconclusive")
                    out[cause] = out.get(cause, 0) + 1
        return dict(sorted(out.items()))


def case_status(pre: Result | None, vacuity: Result | None, correctness: Result) -> tuple[CaseStatus, str]:
    """Combine the three programs of a case; the first that decides wins."""
    if pre is not None:
        if pre.outcome is Outcome.REFUTED:
            return CaseStatus.PRECONDITION_VIOLATED, pre.message
        if pre.outcome is Outcome.TIMEOUT:
            return CaseStatus.TIMEOUT, "precondition check timed out: " + pre.message
        if pre.outcome is Outcome.ERROR:
            return CaseStatus.ERROR, pre.message
    if vacuity is not None:
        if vacuity.outcome is Outcome.VERIFIED:
            return (
                CaseStatus.VACUOUS,
                "the assumptions about the inputs are contradictory (`assert false` verified)",
            )
        if vacuity.outcome is Outcome.ERROR:
            return CaseStatus.ERROR, vacuity.message
    return {
        Outcome.VERIFIED: CaseStatus.VERIFIED,
        Outcome.REFUTED: CaseStatus.REFUTED,
        Outcome.TIMEOUT: CaseStatus.TIMEOUT,
        Outcome.ERROR: CaseStatus.ERROR,
    }[correctness.outcome], correctness.message


def mutant_status(result: Result) -> MutantStatus:
    # any verification failure kills the mutant; only an undecided run is inconclusive
    if result.outcome is Outcome.REFUTED:
        return MutantStatus.KILLED
    if result.outcome is Outcome.VERIFIED:
        return MutantStatus.SURVIVED
    return MutantStatus.INCONCLUSIVE


def correctness(cases: tuple[CaseResult, ...]) -> float | None:
    scored = [c for c in cases if c.status.scored]
    if not scored:
        return None
    return sum(c.status is CaseStatus.VERIFIED for c in scored) / len(scored)


def completeness(cases: tuple[CaseResult, ...], corr: float | None) -> float | None:
    if corr != 1.0:
        return None
    conclusive = [m for c in cases for m in c.mutants if m.status is not MutantStatus.INCONCLUSIVE]
    if not conclusive:
        return None
    return sum(m.status is MutantStatus.KILLED for m in conclusive) / len(conclusive)


def method_score(
    file: str,
    method: str,
    line: int,
    cases: tuple[CaseResult, ...],
    problems: tuple[str, ...] = (),
    note: str = "",
) -> MethodScore:
    corr = correctness(cases)
    return MethodScore(file, method, line, corr, completeness(cases, corr), cases, problems, note)


@dataclass(frozen=True)
class Gate:
    min_correctness: float = 1.0
    min_completeness: float = 0.0


def gate_failures(scores: list[MethodScore], gate: Gate) -> list[str]:
    """Why the gate fails (empty when it passes). Unscored methods do not fail the gate."""
    out = []
    for s in scores:
        if s.correctness is not None and s.correctness < gate.min_correctness:
            out.append(f"{s.file}: {s.method}: correctness {s.correctness:.2f} < {gate.min_correctness:.2f}")
        elif s.completeness is not None and s.completeness < gate.min_completeness:
            out.append(
                f"{s.file}: {s.method}: completeness {s.completeness:.2f} < {gate.min_completeness:.2f}"
            )
    return out
