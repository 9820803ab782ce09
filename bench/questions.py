"""What each recorded program asks, in words both commits share, and the table of their cost side by side.

The recording run writes each program's kind, goal and time limit (bench/constants.py RECORDER) where the code has
them; the reference commit 7517177 has neither kind nor goal, and spells both in its names instead
(`SpecScore_` + the kind's first letter + the goal's + a digest: `SpecScore_mr...` a mutant's rejection). Pure code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.symbolic.background import BACKGROUND_NAME
from bot.symbolic.rounds import CONJOINED_SECONDS

NAME_PREFIX = "SpecScore_"
ACCEPTANCE = "acceptance of the expected output"
REJECTION = "rejection of the expected output (which clause, too)"
TOGETHER = "mutants rejected together (one program)"
BACKGROUND = "background (the spec's declarations verified)"
EVERY_INPUT = "every input (determinacy, its witnesses), spec changes"
OTHER = "other"
# (kind, goal) as the code spells them (Program.kind.value, Program.goal.value; none for the first two), in the
# table's order
_BY_KIND: dict[tuple[object, object], str] = {
    ("precondition", None): "precondition",
    ("vacuity", None): "vacuity (the case's assumptions)",
    ("correctness", "accept"): ACCEPTANCE,
    ("correctness", "accept-clause"): ACCEPTANCE,
    ("correctness", "accept-within"): ACCEPTANCE,
    ("correctness", "reject"): REJECTION,
    ("correctness", "reject-clause"): REJECTION,
    ("correctness", "reject-within"): REJECTION,
    ("pin", "pin"): "exact pin",
    ("pin", "pin-multiset"): "order-free pin",
    ("pin", "pin-set"): "pin as a set",
    ("mutant", "reject"): "a mutant's rejection",
    ("mutant", "accept"): "a mutant's acceptance (after its rejection failed)",
}
# the reference's name letters (kind, goal): `p` is both a precondition and a pin, told apart by the goal
_BY_LETTERS: dict[tuple[str, str], tuple[str, str | None]] = {
    ("p", "a"): ("precondition", None), ("p", "r"): ("precondition", None), ("v", "a"): ("vacuity", None),
    ("c", "a"): ("correctness", "accept"), ("c", "r"): ("correctness", "reject"), ("m", "r"): ("mutant", "reject"),
    ("m", "a"): ("mutant", "accept"), ("p", "p"): ("pin", "pin"),
}
# the table's rows: the mutants' one program before their own ones
ORDER = (*dict.fromkeys(v for (kind, _), v in _BY_KIND.items() if kind != "mutant"), TOGETHER,
         *dict.fromkeys(v for (kind, _), v in _BY_KIND.items() if kind == "mutant"), BACKGROUND, EVERY_INPUT, OTHER)


def question(item: Mapping[str, Any]) -> str:
    """What one recorded program asks (`item`: a line of the recording run)."""
    name = str(item.get("name", ""))
    if item.get("phase") == "every-input":
        return EVERY_INPUT
    if name == BACKGROUND_NAME or item.get("checks"):
        return BACKGROUND
    kind, goal = item.get("kind"), item.get("goal")
    if kind is None and name.startswith(NAME_PREFIX) and len(name) > len(NAME_PREFIX) + 1:
        letters = (name[len(NAME_PREFIX)], name[len(NAME_PREFIX) + 1])
        kind, goal = _BY_LETTERS.get(letters, (None, None))
    if kind in ("precondition", "vacuity"):
        goal = None
    if (kind, goal) == ("mutant", "reject") and item.get("limit") == CONJOINED_SECONDS:
        return TOGETHER  # the one program of the mutants left (its own short limit; a mutant alone has none)
    return _BY_KIND.get((kind, goal), OTHER)


def tally(programs: Sequence[Mapping[str, Any]]) -> tuple[tuple[str, int, float], ...]:
    """(question, programs, their own verification seconds), in ORDER, the questions asked only."""
    counts: dict[str, tuple[int, float]] = {}
    for p in programs:
        q = str(p.get("question") or OTHER)
        n, s = counts.get(q, (0, 0.0))
        counts[q] = (n + 1, s + float(p["seconds"]))
    return tuple((q, *counts[q]) for q in ORDER if q in counts)


def question_lines(then: Sequence[tuple[str, int, float]], now: Sequence[tuple[str, int, float]],
                   then_label: str, now_label: str) -> list[str]:
    """The table of programs and own verification seconds by question, the reference's and this commit's."""
    old = {q: (n, s) for q, n, s in then}
    new = {q: (n, s) for q, n, s in now}
    lines = [f"| question | {then_label}: programs | own s | {now_label}: programs | own s | own s added |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for q in ORDER:
        if q not in old and q not in new:
            continue
        (a, x), (b, y) = old.get(q, (0, 0.0)), new.get(q, (0, 0.0))
        lines.append(f"| {q} | {a} | {x:.1f} | {b} | {y:.1f} | {y - x:+.1f} |")
    a, b = sum(n for n, _ in old.values()), sum(n for n, _ in new.values())
    x, y = sum(s for _, s in old.values()), sum(s for _, s in new.values())
    lines.append(f"| all | {a} | {x:.1f} | {b} | {y:.1f} | {y - x:+.1f} |")
    return lines
