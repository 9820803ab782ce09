"""Small formatting helpers shared by the renderers. Pure code."""

from __future__ import annotations

from bot.symbolic.results import Suggestion


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}"


def proved_text(s: Suggestion) -> str:
    """What was proved of a suggested clause, in one line."""
    pins = [(s.pinned, "pinned"), (s.pinned_up_to_order, "pinned up to order"), (s.pinned_as_set, "pinned as a set")]
    pinned = ", ".join(f"{n} of {s.pin_checked} {what}" for n, what in pins if n)
    code = implementation_text(s)
    return (f"proved: it accepts every test case ({s.cases}) and rejects every wrong output the spec accepted "
            f"({s.rejected})" + (f"; {pinned}" if pinned else "") + (f"; {code}" if code else ""))


def implementation_text(s: Suggestion) -> str:
    """What the method's own body says of the clause ("" when it was not checked or there is no body)."""
    # only a verifying body shows the strengthened spec satisfiable beyond the tests' inputs
    tested_only = "; it is shown satisfiable on the tested inputs only"
    if s.implementation == "verifies":
        return "the implementation still verifies with this clause"
    if s.implementation.startswith("fails"):
        return ("the implementation does not verify with this clause" + s.implementation.removeprefix("fails")
                + tested_only)
    if s.implementation.startswith("unknown"):
        return "whether the implementation verifies with it is " + s.implementation + tested_only
    if s.implementation == "no body":
        return "there is no implementation to check it against" + tested_only
    return ""



