"""Verdicts from scores. Pure code: verdicts never look at labels."""

from __future__ import annotations

from bot.audit.model import Verdict
from bot.symbolic.results import BackgroundStatus, CaseStatus, MethodScore, MutantStatus, background_lines


def verdict(score: MethodScore, weak_below: float) -> tuple[Verdict, str]:
    """The verdict and, when inconclusive, its cause. Only proved outcomes decide: `refuted` is a proved
    rejection, and unknown cases and mutants count for nothing."""
    statuses = [c.status for c in score.cases]
    if CaseStatus.REFUTED in statuses:
        return Verdict.WRONG, ""
    if score.precondition_rejects:
        return Verdict.WRONG, PRECONDITION_CAUSE
    if score.note and not statuses:
        return Verdict.INCONCLUSIVE, score.note
    if not statuses:
        return Verdict.INCONCLUSIVE, "no readable test case" + (f" ({len(score.problems)} unreadable)"
                                                                 if score.problems else "")
    if score.background in (BackgroundStatus.FAILED, BackgroundStatus.UNKNOWN):
        return Verdict.INCONCLUSIVE, background_lines(score)[0]
    if score.correctness is None:
        return Verdict.INCONCLUSIVE, "no case decided: " + _counts(score)
    if score.correctness == 1.0 and score.witnesses:
        return Verdict.WEAK, ""  # a confirmed other output (beyond order) is weakness, proved
    if score.completeness is None:
        mutants = [m for c in score.cases for m in c.mutants]
        if not mutants:
            return Verdict.INCONCLUSIVE, "no mutants could be made"
        unknown = sum(m.status is MutantStatus.UNKNOWN for m in mutants)
        return Verdict.INCONCLUSIVE, f"completeness unknown: all {unknown} mutants unknown"
    if score.completeness < weak_below:
        return Verdict.WEAK, ""
    return Verdict.STRONG, ""


PRECONDITION_CAUSE = "the `requires` rejects the test inputs"


def pin_disagrees(score: MethodScore) -> bool:
    """Mutation completeness says 1.0, but the pin check found another output the spec accepts:
    the mutants missed a weakness."""
    return score.completeness == 1.0 and bool(score.witnesses)


def _counts(score: MethodScore) -> str:
    counts: dict[str, int] = {}
    for c in score.cases:
        key = c.status.value + (f" ({c.reason.value})" if c.reason else "")
        counts[key] = counts.get(key, 0) + 1
    return ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))


def spec_or_test(score: MethodScore) -> list[int]:
    """Indexes of refuted cases whose spec verifies every other case (the test may be the one wrong), and of every
    case whose inputs the `requires` is proved to reject (the precondition or the test is wrong)."""
    refuted = [i for i, c in enumerate(score.cases) if c.status is CaseStatus.REFUTED]
    others = [c for i, c in enumerate(score.cases) if i not in refuted]
    alone = len(refuted) == 1 and others and all(c.status is CaseStatus.VERIFIED for c in others)
    rejected = [i for i, c in enumerate(score.cases) if c.status is CaseStatus.PRECONDITION_VIOLATED]
    return sorted((refuted if alone else []) + rejected)
