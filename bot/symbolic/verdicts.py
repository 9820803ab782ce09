"""Verdicts from proofs: acceptance and rejection programs of one output decide a case's or a mutant's status.

Pure code. Only proofs count: a case is refuted and a mutant killed when the rejection of the output
is proved, accepted when its acceptance is proved; anything else is unknown, with its reason.
"""

from __future__ import annotations

from enum import Enum

from bot.symbolic.proofs import Judged, Proof
from bot.symbolic.results import CaseStatus, MutantStatus, Undecided


class Decision(Enum):
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    BOTH = "both"  # acceptance and rejection proved: the assumptions are contradictory
    UNDECIDED = "undecided"
    ERROR = "error"


def decide(accept: Judged, reject: Judged | None) -> tuple[Decision, Undecided | None, str]:
    """Acceptance and rejection programs of one output -> what is proved, and why not when nothing is."""
    if accept.proved and reject is not None and reject.proved:
        return Decision.BOTH, None, ""
    if accept.proved:
        return Decision.ACCEPTED, None, ""
    if reject is not None and reject.proved:
        return Decision.REJECTED, None, ""
    judged = [accept] + ([reject] if reject is not None else [])
    if accept.proof is Proof.ERROR:
        return Decision.ERROR, Undecided.VERIFIER, accept.message
    proofs = {j.proof for j in judged}
    reason = (
        Undecided.HINT_FAULT if Proof.HINT_FAULT in proofs
        else Undecided.TIMEOUT if Proof.TIMEOUT in proofs
        else Undecided.VERIFIER if Proof.ERROR in proofs
        else Undecided.STUCK
    )
    # the acceptance program's failure names the clause the verifier got stuck on
    culprit = next((j for j in judged if j.proof is _PROOF_OF[reason]), accept)
    limits = sorted({lim for j in judged for lim in j.limits})
    message = culprit.message + ("".join(f" [{lim}]" for lim in limits) if limits else "")
    return Decision.UNDECIDED, reason, message.strip()


_PROOF_OF = {
    Undecided.HINT_FAULT: Proof.HINT_FAULT,
    Undecided.TIMEOUT: Proof.TIMEOUT,
    Undecided.VERIFIER: Proof.ERROR,
    Undecided.STUCK: Proof.NOT_PROVED,
    Undecided.PRECONDITION: Proof.NOT_PROVED,
}


def precondition_status(accept: Judged, reject: Judged | None) -> tuple[CaseStatus, Undecided | None, str] | None:
    """None when the inputs are proved to satisfy `requires`; else the case's status."""
    decision, reason, message = decide(accept, reject)
    if decision is Decision.ACCEPTED:
        return None
    if decision is Decision.REJECTED:
        return CaseStatus.PRECONDITION_VIOLATED, None, reject.message if reject else ""
    if decision is Decision.BOTH:
        return CaseStatus.VACUOUS, None, VACUOUS_MESSAGE
    if decision is Decision.ERROR:
        return CaseStatus.ERROR, None, message
    why = "neither `requires` nor its violation was proved for these inputs"
    return CaseStatus.UNKNOWN, Undecided.PRECONDITION, f"{why}: {message}" if message else why


VACUOUS_MESSAGE = "the assumptions about the inputs are contradictory (`assert false` verified)"
INCONSISTENT_MESSAGE = ("the spec assumed of the expected output proves `false` (its trusted axioms contradict "
                        "each other there): every claim about this case would be provable")


def case_status(decision: Decision, reason: Undecided | None) -> tuple[CaseStatus, Undecided | None]:
    return {
        Decision.ACCEPTED: (CaseStatus.VERIFIED, None),
        Decision.REJECTED: (CaseStatus.REFUTED, None),
        Decision.BOTH: (CaseStatus.VACUOUS, None),
        Decision.ERROR: (CaseStatus.ERROR, None),
        Decision.UNDECIDED: (CaseStatus.UNKNOWN, reason),
    }[decision]


def mutant_status(decision: Decision) -> MutantStatus:
    if decision is Decision.REJECTED:
        return MutantStatus.KILLED
    if decision is Decision.ACCEPTED:
        return MutantStatus.SURVIVED
    return MutantStatus.UNKNOWN
