"""The merge gate of a pull request: thresholds, and the rule that nothing passes unscored. Pure code.

A passing gate means every changed method was scored and met the thresholds. A method that was scored
at base and cannot be scored at head fails, always: otherwise breaking a spec file (a line that does
not resolve, a test file that no longer parses) would be a way to pass. A method with nothing decided
at head (new, or undecided at base too) fails as well, unless `allow-unscored` turns that into a
warning.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.symbolic.compare import Change, MethodDelta
from bot.symbolic.results import Gate, MethodScore, axioms_text, gate_failures, never_passes


@dataclass(frozen=True)
class Verdict:
    failures: tuple[str, ...]
    warnings: tuple[str, ...]  # unscored methods let through by `allow-unscored`

    @property
    def passed(self) -> bool:
        return not self.failures


def why_unscored(s: MethodScore) -> str:
    """Why nothing about the method was decided, in a few words."""
    if s.note:
        return s.note
    if not s.cases:
        first = f": {s.problems[0]}" if s.problems else ""
        return f"no readable test case{first}"
    counts: dict[str, int] = {}
    for c in s.cases:
        key = c.status.value + (f" ({c.reason.value})" if c.reason else "")
        counts[key] = counts.get(key, 0) + 1
    return "no case decided: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))


def pr_gate(deltas: Sequence[MethodDelta], gate: Gate, allow_unscored: bool = False) -> Verdict:
    failures: list[str] = []
    warnings: list[str] = []
    scored = [d.head for d in deltas if d.head is not None and d.head.decided]
    failures += gate_failures(scored, gate)
    if gate.allow_axioms:
        warnings += [f"{s.file}: {s.method}: {axioms_text(s.axioms)}; allowed by allow-axioms"
                     for s in scored if s.axioms]
    # a case the base could read and the head cannot is a check that no longer runs: it fails, always
    failures += [f"{d.file}: {d.method}: {why}" for d in deltas for why in d.unreadable]
    for d in deltas:
        if d.head is None or d.head.decided:
            continue
        if never_passes(d.head):  # allow-unscored or not
            failures += gate_failures([d.head], gate)
            continue
        where = f"{d.file}: {d.method}"
        reason = why_unscored(d.head)
        if d.base is not None and d.base.decided:
            failures.append(f"{where}: scored at base, cannot be scored at head ({reason})")
        elif allow_unscored:
            warnings.append(f"{where}: not scored ({reason}); allowed by allow-unscored")
        else:
            what = "new method" if d.change is Change.NEW else "method"
            failures.append(f"{where}: {what} cannot be scored ({reason})")
    return Verdict(tuple(failures), tuple(warnings))
