"""A method's budget of verification (ScoreOptions.budget) as it is spent, kept across every run that asks for it
(bot/symbolic/allowance.py says how the engine spends it). Apart from the allowance so that the result data can carry
it to the stages after the rounds without importing the engine's programs."""

from __future__ import annotations

import threading


class Ledger:
    """One method's budget of verification, across every run that asks for it: its rounds, the rescorings of the
    clauses the suggestion search tries for it (each of its candidates spends the same budget), and its questions on
    every input. `left`: seconds left (below zero once passed); `over`: some program was not asked, or cut short."""

    def __init__(self, seconds: float) -> None:
        self._lock = threading.Lock()
        self._left = float(seconds)
        self._over = False

    @property
    def left(self) -> float:
        with self._lock:
            return self._left

    @property
    def over(self) -> bool:
        with self._lock:
            return self._over

    def spent(self) -> bool:
        """Whether the budget is used up: passed, or the engine stopped asking for it."""
        with self._lock:
            return self._left < 0 or self._over

    def charge(self, seconds: float, cut: bool = False) -> None:
        with self._lock:
            self._left -= seconds
            if cut:
                self._left = min(self._left, 0.0)
                self._over = True

    def stop(self) -> None:
        """A program was not asked: nothing is left."""
        with self._lock:
            self._left = min(self._left, 0.0)
            self._over = True

    def share(self, part: float) -> Ledger:
        """A ledger of its own holding `part` of what is left now: a stage after the rounds spends its share only, so
        that what one stage spends never changes what another, going beside it, may ask."""
        return Ledger(max(0.0, self.left) * part)
