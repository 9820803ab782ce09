"""Questions asked after the scoring rounds, apart from each other and from the same scores (the suggestions, what
each spec says on every input, what a pull request changed): at once on an engine that takes runs side by side
(Engine.concurrent), so that no run of one waits for another's slowest program; else one after the other. Each
stage's answer is its own, so they are the same either way."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from bot.symbolic.together import together
from bot.symbolic.urgency import URGENCY

# its phase name (progress), and the call that asks through the engine it is given and keeps its answers
Stage = tuple[str, Callable[[Any], None]]


def run_stages(engine: Any, stages: Sequence[Stage], on_phase: Callable[[str], None] | None = None) -> None:
    """Each stage's call with the engine to ask through; `on_phase` gets each stage's name before it, or, at once,
    their names joined. Side by side, the first failure stops the other stages (bot/symbolic/together.py)."""
    if len(stages) > 1 and getattr(engine, "concurrent", False):
        if on_phase:
            on_phase(", ".join(name for name, _ in stages))
        together(engine, [functools.partial(_urgent, rank, call) for rank, (_, call) in enumerate(stages)],
                 len(stages))
        return
    for name, call in stages:
        if on_phase:
            on_phase(name)
        call(engine)


def _urgent(rank: int, call: Callable[[Any], None], engine: Any) -> None:
    """`call`, its batches waiting for a verifier slot behind those of the stages before it (bot/symbolic/urgency.py);
    in its own context (together), so the rank is its alone."""
    URGENCY.set(max(URGENCY.get(), rank))
    call(engine)
