"""A method's budget of verification (ScoreOptions.budget), kept across every run that asks for it: what lets the
engine stop asking a method's programs in the middle of a round, and what its suggestion search and its questions on
every input spend too.

Each scored method has a Ledger: the seconds its budget has left. Each engine run gets an Allowance: per program,
the ledgers of the methods it is asked for. The engine (bot/verifier/engine.py) charges every answer's seconds to its
ledgers as it comes, does not start a batch for a method with nothing left (those programs are answered NOT_ASKED),
and gives a batch it starts at most the seconds its methods have left (a batch cut there answers its unfinished
programs CUT_SHORT). Both are time-outs to the rounds, so unknown, and never cached: they say nothing of the program.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from bot.symbolic.ledger import Ledger
from bot.symbolic.program import Outcome, Program, Result

NOT_ASKED = "not asked: the method's budget of verification ran out"
CUT_SHORT = "cut short: the method's budget of verification ran out while it was verified"


def over_budget(result: Result) -> bool:
    """A time-out the engine answered for a program the method's budget did not let it ask or finish."""
    return result.outcome is Outcome.TIMEOUT and result.message.startswith((NOT_ASKED, CUT_SHORT))


class Allowance:
    """Per program of one engine run, the ledgers of the methods it is asked for (a program asked for none, such as
    the background check, is always asked)."""

    def __init__(self, groups: Mapping[Program, Iterable[Ledger]]) -> None:
        self._groups = {program: tuple(g) for program, g in groups.items()}

    def groups(self, program: Program) -> tuple[Ledger, ...]:
        return self._groups.get(program, ())

    def open(self, programs: Iterable[Program]) -> tuple[list[Program], list[Program], float | None]:
        """Of `programs` about to be verified as one batch: those to ask, those not to ask (every ledger they are
        asked for has nothing left), and the seconds the batch may take (None: no limit)."""
        ask: list[Program] = []
        skip: list[Program] = []
        seconds: float | None = 0.0
        for program in programs:
            ledgers = self.groups(program)
            if ledgers and all(g.left <= 0 for g in ledgers):
                skip.append(program)
                for g in ledgers:
                    g.stop()
                continue
            ask.append(program)
            if not ledgers:
                seconds = None
            elif seconds is not None:
                seconds = max(seconds, *(g.left for g in ledgers))
        return ask, skip, (seconds if ask else None)

    def charge(self, answered: Mapping[Program, Result], cut: bool) -> None:
        """Each answer's seconds taken from its ledgers, once per ledger; `cut`: the batch was stopped at its limit,
        so its ledgers have nothing left."""
        totals: dict[int, tuple[Ledger, float]] = {}
        for program, result in answered.items():
            for g in self.groups(program):
                totals[id(g)] = (g, totals.get(id(g), (g, 0.0))[1] + result.seconds)
        for g, seconds in totals.values():
            g.charge(seconds, cut)
