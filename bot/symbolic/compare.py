"""Head-versus-base comparison of method scores. Pure code."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from bot.symbolic.results import (
    CaseResult,
    CaseStatus,
    Determinacy,
    MethodScore,
    MutantStatus,
    Surviving,
    why_no_completeness,
)


class Change(Enum):
    NEW = "new"
    REMOVED = "removed"
    CHANGED = "changed"
    UNCHANGED = "unchanged"


@dataclass(frozen=True)
class MethodDelta:
    file: str
    method: str
    head: MethodScore | None
    base: MethodScore | None
    change: Change
    correctness_lost: bool  # was 1.0 at base, below 1.0 now
    correctness_regained: bool  # was below 1.0 at base, 1.0 now
    completeness_delta: float | None  # head - base, when both are known
    new_survivors: tuple[Surviving, ...]  # wrong outputs the head spec accepts and the base spec did not
    lost_pins: tuple[Surviving, ...] = ()  # cases pinned at base and not at head, with the head's witness
    # cases read at base that cannot be read at head: "case SharedElementsTest#3 can no longer be read: <why>"
    unreadable: tuple[str, ...] = ()
    # measures the base had and the head lacks (a completeness, a decided case, a pin): a threshold that is not
    # measured is not met, so each fails the gate: "completeness was 1.00 at base and is not measured at head: ..."
    lost: tuple[str, ...] = ()

    @property
    def regression(self) -> bool:
        worse = self.completeness_delta is not None and self.completeness_delta < -1e-9
        lost = self.base is not None and self.base.decided and self.head is not None and not self.head.decided
        fresh = bool(self.new_survivors and self.base is not None)
        return (self.correctness_lost or worse or lost or fresh or bool(self.lost_pins) or bool(self.unreadable)
                or bool(self.lost))


def _survivor_key(s: Surviving) -> tuple[str, str, str]:
    return (s.inputs, s.expected, s.value)


_PINNED = (Determinacy.PINNED, Determinacy.PINNED_UP_TO_ORDER)
_FAILING = (CaseStatus.PRECONDITION_VIOLATED, CaseStatus.INCONSISTENT)  # undecided, and failing the gate already


def _lost_pins(head: MethodScore, base: MethodScore) -> tuple[Surviving, ...]:
    """Cases (by inputs and expected output) pinned at base that are shown not pinned at head."""
    pinned = {(c.inputs, c.expected) for c in base.cases if c.determinacy in _PINNED}
    return tuple(
        Surviving(c.name, c.inputs, c.expected, c.witness, f"found by the {c.witness_source}")
        for c in head.cases
        if c.determinacy in (Determinacy.NOT_PINNED, Determinacy.PINNED_AS_SET) and c.witness
        and (c.inputs, c.expected) in pinned
    )


def _unreadable(head: MethodScore, base: MethodScore) -> tuple[str, ...]:
    """Cases read at base that are gone at head while head has cases it cannot read that base did not have: a
    test broken (or made unreadable) is not a test deleted, and must not pass by vanishing."""
    gone = sorted({c.name for c in base.cases} - {c.name for c in head.cases})
    new_problems = [p for p in head.problems if p not in base.problems]
    if not gone or not new_problems:
        return ()
    why = "; ".join(new_problems)
    return tuple(f"case {name} can no longer be read ({why})" for name in gone)


MAX_NAMED = 5  # cases named in one line of the gate's list; the rest are counted


def _named(cases: Sequence[CaseResult]) -> str:
    """"case T#1 (n = 2)" or "cases T#1 (n = 2), T#2 (n = 3) and 4 more"."""
    shown = [f"{c.name} ({_short(c.inputs, 60)})" if c.inputs else c.name for c in cases[:MAX_NAMED]]
    more = f" and {len(cases) - MAX_NAMED} more" if len(cases) > MAX_NAMED else ""
    return ("case " if len(cases) == 1 else "cases ") + ", ".join(shown) + more


def _test_of(name: str) -> str:
    """The test a case comes from: `CubeTest` for `CubeTest#2` (a TOML or JSON case is its own test)."""
    return name.rsplit("#", 1)[0] if "#" in name else name


def _counterparts(b: CaseResult, head: MethodScore) -> tuple[CaseResult, ...]:
    """The head's cases that are base case `b`, by what identifies a case whatever its test is named: first the same
    inputs and expected output, then the same inputs (the expectation was rewritten), then the same name (the
    inputs changed)."""
    for same in ((lambda c: (c.inputs, c.expected) == (b.inputs, b.expected)),
                 (lambda c: bool(b.inputs) and c.inputs == b.inputs),
                 (lambda c: c.name == b.name)):
        found = tuple(c for c in head.cases if same(c))
        if found:
            return found
    return ()


def _short(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[:limit - 3] + "..."


def _undecided_why(cases: Sequence[CaseResult]) -> str:
    c = cases[0]
    why = c.reason.value if c.reason else c.status.value
    return f"{why}: {_short(c.message, 200)}" if c.message.strip() else why


def _lost_measures(head: MethodScore, base: MethodScore, unreadable: Sequence[str]) -> tuple[str, ...]:
    """What base measured and head does not: its completeness, a decided case, a pinned case. A measured drop (a
    lower completeness, a case refuted, a pin with another output found) is compared against the thresholds; a
    measure that is gone is not, since a threshold that cannot be measured cannot be met. A pull request could
    otherwise pass by deleting, renaming, breaking or rewording the checks that measured a weakened spec."""
    if not head.decided:
        return ()  # the method as a whole cannot be scored: the gate says so once
    out: list[str] = []
    # (below correctness 1.00 there is no completeness to measure: the refuted case is the measured drop, which
    # the correctness threshold judges)
    if base.completeness is not None and head.completeness is None and head.correctness == 1.0:
        out.append(f"completeness was {base.completeness:.2f} at base and is not measured at head: "
                   f"{why_no_completeness(head)}")
    broken = " ".join(unreadable)
    gone: list[CaseResult] = []
    undecided: list[tuple[CaseResult, tuple[CaseResult, ...]]] = []
    unpinned: list[tuple[CaseResult, tuple[CaseResult, ...]]] = []
    unmutated: list[tuple[CaseResult, tuple[CaseResult, ...]]] = []
    for b in base.cases:
        if not b.status.scored or f"case {b.name} " in broken:
            continue
        now = _counterparts(b, head)
        if not now:
            gone.append(b)
        elif not any(c.status.scored or c.status in _FAILING for c in now):
            undecided.append((b, now))
        elif (b.determinacy in _PINNED and any(c.status is CaseStatus.VERIFIED for c in now)
              and not any(_pin_measured(c) for c in now)):
            unpinned.append((b, now))
        elif _decided_mutants(b) and any(c.status is CaseStatus.VERIFIED for c in now) \
                and not any(_decided_mutants(c) for c in now):
            unmutated.append((b, now))  # (the method's completeness may still be measured on its other cases)
    if gone:
        still = sorted({_test_of(c.name) for c in gone} & {_test_of(c.name) for c in head.cases})
        where = (f" (their test {', '.join(still)} still runs)" if still else
                 " (their tests were deleted or renamed)")
        out.append(f"{_named(gone)} decided at base {'is' if len(gone) == 1 else 'are'} gone at head{where}: "
                   "a deleted check cannot show the spec still meets the thresholds")
    if undecided:
        out.append(f"{_named([b for b, _ in undecided])} decided at base "
                   f"{'is' if len(undecided) == 1 else 'are'} not decided at head ({_undecided_why(undecided[0][1])})")
    if unpinned:
        out.append(f"{_named([b for b, _ in unpinned])} pinned at base {'is' if len(unpinned) == 1 else 'are'} "
                   f"not shown pinned at head ({_why_unpinned(unpinned[0][1])})")
    if unmutated and head.completeness is not None:  # (without, the lost completeness says it)
        c = unmutated[0][1][0]
        why = f"its check is now `{c.expected}`" if c.expected != unmutated[0][0].expected else "none was decided"
        out.append(f"{_named([b for b, _ in unmutated])} had wrong outputs tried at base and "
                   f"{'has' if len(unmutated) == 1 else 'have'} none at head ({why})")
    return tuple(out)


def _decided_mutants(c: CaseResult) -> bool:
    return any(m.status is not MutantStatus.UNKNOWN for m in c.mutants)


def _pin_measured(c: CaseResult) -> bool:
    """The pin check answered: pinned, or another output the spec accepts found (a measured weakening)."""
    return c.determinacy in _PINNED or (
        c.determinacy in (Determinacy.NOT_PINNED, Determinacy.PINNED_AS_SET) and bool(c.witness))


def _why_unpinned(cases: Sequence[CaseResult]) -> str:
    c = next((c for c in cases if c.status is CaseStatus.VERIFIED), cases[0])
    if c.determinacy is Determinacy.DETERMINED:
        return f"its check is now a property, `{c.expected}`, which states no output to pin"
    if c.determinacy is None:
        return "no pin check was run"
    return f"the pin check is {c.determinacy.value}: neither proved pinned nor another output found"


def compare(head: Sequence[MethodScore], base: Sequence[MethodScore]) -> list[MethodDelta]:
    """One delta per method present at head or base, sorted by file and method name."""
    heads = {(s.file, s.method): s for s in head}
    bases = {(s.file, s.method): s for s in base}
    out = []
    for key in sorted(heads.keys() | bases.keys()):
        h, b = heads.get(key), bases.get(key)
        if h is None:
            out.append(MethodDelta(key[0], key[1], None, b, Change.REMOVED, False, False, None, ()))
            continue
        if b is None:
            out.append(MethodDelta(key[0], key[1], h, None, Change.NEW, False, False, None, h.surviving))
            continue
        lost = b.correctness == 1.0 and h.correctness is not None and h.correctness < 1.0
        regained = b.correctness is not None and b.correctness < 1.0 and h.correctness == 1.0
        delta = None
        if h.completeness is not None and b.completeness is not None:
            delta = h.completeness - b.completeness
        seen = {_survivor_key(s) for s in b.surviving}
        fresh = tuple(s for s in h.surviving if _survivor_key(s) not in seen)
        pins = _lost_pins(h, b)
        unreadable = _unreadable(h, b)
        gone = _lost_measures(h, b, unreadable)
        same = ((h.correctness, h.completeness) == (b.correctness, b.completeness) and not fresh and not pins
                and not unreadable and not gone)
        change = Change.UNCHANGED if same else Change.CHANGED
        out.append(MethodDelta(key[0], key[1], h, b, change, lost, regained, delta, fresh, pins, unreadable, gone))
    return out
