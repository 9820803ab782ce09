"""The search for a proved witness of one failed question over every input (determinacy, or one direction of a spec
change). Pure: it says which programs to ask next and reads their results; `run_searches` drives the engine.

A failed question proves nothing by itself. Its counterexample is read as a candidate, and the candidate is a
witness only once the concrete programs that confirm it verify. Where the counterexample cannot be read, holds an
array (whose contents Dafny 2.3's model seldom gives), is longer than a short question admits, or its reading is
not confirmed, the question is asked again with its arrays and sequences short and spelled out
(bot/symbolic/bounded.py), and that question's candidate is confirmed the same way. The short one is said where
the first is not proved or is long. Each step waits only for the programs it needs: a search asks at most four
engine runs, most ask one or two.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from bot.symbolic.allowance import over_budget
from bot.symbolic.bounded import BOUND
from bot.symbolic.program import Outcome, Program, ProgramKind, Result
from bot.symbolic.rounds import EngineLike

C = TypeVar("C")  # a candidate witness, as the question's reader gives it

UNCONFIRMED = "the counterexample's values were not proved on the concrete values"


def confirmed(programs: Sequence[Program], results: Mapping[Program, Result]) -> bool:
    """Whether a candidate's programs all came out as its proof needs: each claim verified, and each vacuity
    probe (`assert false` after the candidate's input assumptions) refuted, so the claims are not vacuous."""
    return all(results[p].outcome is (Outcome.REFUTED if p.kind is ProgramKind.VACUITY else Outcome.VERIFIED)
               for p in programs)
NO_SHORT_WITNESS = f"a search among values whose arrays and sequences are at most {BOUND} long found none"


def failed_proof(r: Result) -> str:
    """Why a proof gave no answer, in words: a time-out, or a program the verifier could not check (its first
    line: e.g. the spec file does not resolve)."""
    if over_budget(r):
        return "the method's budget of verification ran out"  # its rounds spent it (bot/symbolic/allowance.py)
    if r.outcome is Outcome.TIMEOUT:
        return "the proof timed out"
    if r.outcome is Outcome.ERROR:
        first = next((line.strip() for line in r.message.splitlines() if line.strip()), "")
        return "the program could not be verified" + (f" ({first[:200]})" if first else "")
    return ""


@dataclass
class Search(Generic[C]):
    """One failed question's search. `read(result, short)` gives a candidate or why there is none; `confirming`
    the programs that would prove one (or why it cannot be checked); `short` the short question (None: no array or
    sequence to spell out); `long` whether a candidate is longer than a short question admits; `eager`: ask the
    short question at once (an array among the inputs)."""

    read: Callable[[Result, bool], C | str]
    confirming: Callable[[C], tuple[Program, ...] | str]
    short: Callable[[], Program] | None
    long: Callable[[C], bool]
    eager: bool = False
    unconfirmed: str = UNCONFIRMED
    proved: C | None = None
    why: str = ""
    _first: tuple[C, tuple[Program, ...]] | None = None  # a candidate waiting for its proofs
    _second: tuple[C, tuple[Program, ...]] | None = None
    _asked_short: Program | None = None
    _short_result_read: bool = False

    def start(self, first: Result) -> list[Program]:
        """The programs to ask after the question's own result `first`."""
        if first.outcome is not Outcome.REFUTED:
            self.why = failed_proof(first)
            return []
        found = self.read(first, False)
        out: list[Program] = []
        if isinstance(found, str):
            self.why = found
        else:
            out += self._candidate(found, second=False)
        if self.short is not None and (isinstance(found, str) or self.eager or self.long(found)):
            out += self._ask_short()
        return out

    def step(self, results: Mapping[Program, Result]) -> list[Program]:
        """The programs to ask next, given the results of those asked last (none: the search is over)."""
        first_failed = False
        if self._first is not None:
            candidate, programs = self._first
            self._first = None
            if confirmed(programs, results):
                self.proved = candidate
            else:
                self.why, first_failed = self.unconfirmed, True
        if self._second is not None:
            candidate, programs = self._second
            self._second = None
            if confirmed(programs, results):
                self.proved = candidate  # the short one: at most as long as the first
            elif self.proved is None:
                self.why = self.unconfirmed
        out: list[Program] = []
        if self._asked_short is not None and not self._short_result_read and self._asked_short in results:
            self._short_result_read = True
            r = results[self._asked_short]
            if r.outcome is Outcome.VERIFIED and self.proved is None:
                self.why = NO_SHORT_WITNESS
            found = self.read(r, True) if r.outcome is Outcome.REFUTED else ""
            if not isinstance(found, str) and (self.proved is None or self.long(self.proved)):
                out += self._candidate(found, second=True)
        if first_failed and self.short is not None and self._asked_short is None:
            out += self._ask_short()  # the first reading was wrong: the short question may read right
        return out

    def _candidate(self, found: C, second: bool) -> list[Program]:
        made = self.confirming(found)
        if isinstance(made, str):
            if self.proved is None:
                self.why = made
            return []
        if second:
            self._second = (found, made)
        else:
            self._first = (found, made)
        return list(made)

    def _ask_short(self) -> list[Program]:
        assert self.short is not None
        self._asked_short = self.short()
        return [self._asked_short]


def run_searches(engine: EngineLike, searches: Sequence[Search[C]], firsts: Sequence[Result]) -> None:
    """Drive every search to its end, all searches' programs of a step in one engine run."""
    pending = [(s, s.start(r)) for s, r in zip(searches, firsts, strict=True)]
    while any(programs for _, programs in pending):
        results = engine.run([p for _, programs in pending for p in programs])
        pending = [(s, s.step(results) if programs else []) for s, programs in pending]
