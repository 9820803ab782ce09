"""Small formatting helpers shared by the renderers. Pure code."""

from __future__ import annotations

from bot.symbolic.results import Suggestion


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}"


def proved_text(s: Suggestion) -> str:
    """What was proved of a suggested clause, in one line."""
    pins = [(s.pinned, "pinned"), (s.pinned_up_to_order, "pinned up to order"), (s.pinned_as_set, "pinned as a set")]
    pinned = ", ".join(f"{n} of {s.pin_checked} {what}" for n, what in pins if n)
    return (f"proved: it accepts all {s.cases} test case(s), rejects the {s.rejected} wrong output(s) the spec "
            f"accepted, and kills {s.killed} of {s.mutants} mutant(s)" + (f"; {pinned}" if pinned else ""))
