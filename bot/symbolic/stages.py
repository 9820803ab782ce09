"""Questions asked after the scoring rounds, apart from each other and from the same scores (the suggestions, what
each spec says on every input, what a pull request changed): at once on an engine that takes runs side by side
(Engine.concurrent), so that no run of one waits for another's slowest program; else one after the other. Each
stage's answer is its own, so they are the same either way."""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

Stage = tuple[str, Callable[[], None]]  # its phase name (progress), and the call that asks and keeps its answers


def run_stages(engine: object, stages: Sequence[Stage], on_phase: Callable[[str], None] | None = None) -> None:
    """Each stage's call; `on_phase` gets each stage's name before it, or, at once, their names joined."""
    if len(stages) > 1 and getattr(engine, "concurrent", False):
        if on_phase:
            on_phase(", ".join(name for name, _ in stages))
        with ThreadPoolExecutor(max_workers=len(stages), thread_name_prefix="stage") as pool:
            # each in the caller's context (what a caller keeps in context variables follows the stage)
            futures = [pool.submit(contextvars.copy_context().run, call) for _, call in stages]
            for future in futures:
                future.result()  # a stage's failure is the run's
        return
    for name, call in stages:
        if on_phase:
            on_phase(name)
        call()
