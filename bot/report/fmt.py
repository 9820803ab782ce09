"""Small formatting helpers shared by the renderers. Pure code."""

from __future__ import annotations

from bot.symbolic.results import Suggestion


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}"


def proved_text(s: Suggestion) -> str:
    """What was proved of a suggested clause, in one line."""
    pins = [(s.pinned, "pinned"), (s.pinned_up_to_order, "pinned up to order"), (s.pinned_as_set, "pinned as a set")]
    pinned = ", ".join(f"{n} of {s.pin_checked} {what}" for n, what in pins if n)
    return (f"proved: it accepts all {_n(s.cases, 'test case')}, rejects the {_n(s.rejected, 'wrong output')} the "
            f"spec accepted, and kills {s.killed} of {_n(s.mutants, 'mutant')}" + (f"; {pinned}" if pinned else ""))


def _n(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
