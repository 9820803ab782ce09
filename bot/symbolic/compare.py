"""Head-versus-base comparison of method scores. Pure code."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from bot.symbolic.results import Determinacy, MethodScore, Surviving


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

    @property
    def regression(self) -> bool:
        worse = self.completeness_delta is not None and self.completeness_delta < -1e-9
        lost = self.base is not None and self.base.decided and self.head is not None and not self.head.decided
        fresh = bool(self.new_survivors and self.base is not None)
        return self.correctness_lost or worse or lost or fresh or bool(self.lost_pins) or bool(self.unreadable)


def _survivor_key(s: Surviving) -> tuple[str, str, str]:
    return (s.inputs, s.expected, s.value)


_PINNED = (Determinacy.PINNED, Determinacy.PINNED_UP_TO_ORDER)


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
        same = ((h.correctness, h.completeness) == (b.correctness, b.completeness) and not fresh and not pins
                and not unreadable)
        change = Change.UNCHANGED if same else Change.CHANGED
        out.append(MethodDelta(key[0], key[1], h, b, change, lost, regained, delta, fresh, pins, unreadable))
    return out
