"""What an audit produces per task. Pure data."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from bot.symbolic.results import MethodScore


class Label(Enum):
    """The human label of a spec, from review tags (DATASET.md)."""

    STRONG = "strong"
    WEAK = "weak"
    WRONG = "wrong"
    UNLABELED = "unlabeled"


class Verdict(Enum):
    WRONG = "wrong"  # some case refuted
    WEAK = "weak"  # correct, completeness below the threshold
    STRONG = "strong"  # correct, completeness at or above the threshold
    INCONCLUSIVE = "inconclusive"  # not evaluated, or nothing decided: `cause` says why


# the order reports list them in (rows and columns of the label × verdict table, chart series)
LABEL_ORDER = (Label.STRONG, Label.WEAK, Label.WRONG, Label.UNLABELED)
VERDICT_ORDER = (Verdict.STRONG, Verdict.WEAK, Verdict.WRONG, Verdict.INCONCLUSIVE)


@dataclass(frozen=True)
class TaskResult:
    task_id: str
    file: str  # the spec file, relative to the dataset root
    method: str  # "" when no method could be chosen
    label: Label
    tags: tuple[str, ...]  # every review tag found, e.g. ("[STRONG-POST]", "[CONFIRMED-WITH-TESTS]")
    verdict: Verdict
    cause: str  # why the verdict is inconclusive ("" otherwise)
    score: MethodScore | None  # None when the task could not be scored at all
    tolerance: float  # relative tolerance used for real outputs (0: exact)
    tolerance_applied: bool  # some output is real and the tolerance was > 0

    @property
    def evaluated(self) -> bool:
        return self.verdict is not Verdict.INCONCLUSIVE


def task_order(task_id: str) -> tuple[int, str]:
    """Numeric ids in numeric order ("2" before "10"), others after them."""
    return (int(task_id), "") if task_id.isdigit() else (10**9, task_id)
