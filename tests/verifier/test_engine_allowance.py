"""bot.verifier.engine with an Allowance (bot/symbolic/allowance.py): a method's budget stops its programs inside a
run, between batches and inside one; what the budget stopped is a transient time-out, what was concluded stands."""

from __future__ import annotations

import threading
import time
from collections.abc import Collection, Sequence
from pathlib import Path

import pytest

from bot.symbolic.allowance import CUT_SHORT, NOT_ASKED, Allowance
from bot.symbolic.ledger import Ledger
from bot.symbolic.program import Outcome, Program, Result
from bot.verifier import VerifierInfo, detect, is_transient, make_backend
from bot.verifier.cache import ResultCache
from bot.verifier.engine import BUDGET_MARGIN, Engine
from bot.verifier.process import KILLED


class TimedBackend:
    """Each method `SLOW` takes 20 s of verification and times out, every other one 1 s and verifies; the batch's
    `wall` is honoured as a verifier process's wall-clock limit is: methods past it are not concluded (KILLED)."""

    def __init__(self) -> None:
        self.info = VerifierInfo(("fake",), "1.0", 2)
        self.calls: list[tuple[tuple[str, ...], float | None]] = []
        self.lock = threading.Lock()

    def flags_id(self, time_limit: int) -> str:
        return f"fake /timeLimit:{time_limit}"

    def verify_batch(self, prelude: str, methods: Sequence[tuple[str, str]], time_limit: int,
                     models: Collection[str] = frozenset(), *, checks: Sequence[str] = (),
                     wall: float | None = None) -> dict[str, Result]:
        with self.lock:
            self.calls.append((tuple(name for name, _ in methods), wall))
        out: dict[str, Result] = {}
        clock = 0.0
        for name, text in methods:
            cost = 20.0 if "SLOW" in text else 1.0
            if wall is not None and clock + cost > wall:
                out[name] = Result(Outcome.TIMEOUT, f"{KILLED}{wall:g} s (wall-clock limit)", wall)
                continue
            clock += cost
            out[name] = Result(Outcome.TIMEOUT if cost > 1 else Outcome.VERIFIED, "", cost)
        return out


def _one(programs: Sequence[Program], seconds: float) -> Allowance:
    """Every program asked for one method, of a budget of `seconds`."""
    ledger = Ledger(seconds)
    return Allowance({p: (ledger,) for p in programs})


def programs(count: int, mark: str = "SLOW", prelude: str = "function F(): int { 1 }") -> list[Program]:
    return [Program(prelude, f"SpecScore_{mark}{i}", f"method SpecScore_{mark}{i}() {{ /* {mark} */ }}")
            for i in range(count)]


def test_a_method_past_its_budget_gets_no_more_batches_and_its_last_batch_is_cut() -> None:
    backend = TimedBackend()
    engine = Engine(backend, jobs=1, batch_size=2)
    slow = programs(6)
    ledger = Ledger(30.0)
    results = engine.run(slow, Allowance({p: (ledger,) for p in slow}))
    # batch 1 (40 s of time-outs) is given 30 s + the margin: one concluded, one cut; nothing after it is asked
    assert backend.calls[0][1] == 30.0 + BUDGET_MARGIN
    assert len(backend.calls) == 1
    outcomes = [results[p] for p in slow]
    assert outcomes[0].outcome is Outcome.TIMEOUT and outcomes[0].message == ""
    assert outcomes[1].message == CUT_SHORT
    assert all(r.message == NOT_ASKED for r in outcomes[2:])
    assert all(r.outcome is Outcome.TIMEOUT for r in outcomes)
    assert ledger.over and ledger.spent()


def test_what_the_budget_stopped_is_never_cached_and_a_later_run_asks_it(tmp_path: Path) -> None:
    backend = TimedBackend()
    cache = ResultCache(tmp_path)
    slow = programs(3)
    Engine(backend, jobs=1, batch_size=1, cache=cache).run(slow, _one(slow, 20.0))
    assert [len(names) for names, _ in backend.calls] == [1]  # the first (20 s) used it all: none after it
    assert is_transient(Result(Outcome.TIMEOUT, NOT_ASKED)) and is_transient(Result(Outcome.TIMEOUT, CUT_SHORT))
    again = TimedBackend()
    results = Engine(again, jobs=1, batch_size=1, cache=cache).run(slow)
    assert [names for names, _ in again.calls] == [(slow[1].name,), (slow[2].name,)]  # only the first was cached
    assert all(r.message == "" for r in results.values())


def test_a_cached_answer_counts_against_the_budget_as_when_it_was_verified(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path)
    slow = programs(3)
    Engine(TimedBackend(), jobs=1, batch_size=1, cache=cache).run(slow[:1])  # 20 s, cached
    backend = TimedBackend()
    results = Engine(backend, jobs=1, batch_size=1, cache=cache).run(
        slow, _one(slow, 15.0))
    assert backend.calls == []  # the cached 20 s leave nothing for the others
    assert [results[p].message for p in slow[1:]] == [NOT_ASKED, NOT_ASKED]


def test_budgets_are_per_method_and_a_program_of_no_method_is_always_asked() -> None:
    backend = TimedBackend()
    slow, fast = programs(4), programs(4, mark="FAST")
    background = Program("function F(): int { 1 }", "SpecScoreBackground", "method SpecScoreBackground() { }")
    slow_budget, fast_budget = Ledger(20.0), Ledger(20.0)
    groups = {**{p: (slow_budget,) for p in slow}, **{p: (fast_budget,) for p in fast}}
    results = Engine(backend, jobs=1, batch_size=1).run([*slow, *fast, background], Allowance(groups))
    assert [results[p].outcome for p in fast] == [Outcome.VERIFIED] * 4
    assert sum(results[p].message == NOT_ASKED for p in slow) == 3
    assert results[background].outcome is Outcome.VERIFIED
    # the background check's batch has no budget's wall
    assert [w for names, w in backend.calls if names == (background.name,)] == [None]


def test_within_a_budget_the_shortest_programs_go_first() -> None:
    """A budget that runs out in a batch buys the most answers from the cheapest programs (the harness's length
    stands for its cost: a case's inputs and hints); without one, the order is the rounds'."""
    sized = [Program("function F(): int { 1 }", f"SpecScore_n{i}", f"method SpecScore_n{i}() {{ /* {'x' * n} */ }}")
             for i, n in enumerate((900, 10, 500, 10, 50))]
    backend = TimedBackend()
    Engine(backend, jobs=1).run(sized, _one(sized, 100.0))
    assert backend.calls[0][0] == ("SpecScore_n1", "SpecScore_n3", "SpecScore_n4", "SpecScore_n2", "SpecScore_n0")
    backend = TimedBackend()
    Engine(backend, jobs=1).run(sized)
    assert backend.calls[0][0] == tuple(p.name for p in sized)


def test_without_an_allowance_nothing_changes() -> None:
    backend = TimedBackend()
    slow = programs(4)
    results = Engine(backend, jobs=1, batch_size=2).run(slow)
    assert [w for _, w in backend.calls] == [None, None]
    assert all(r.outcome is Outcome.TIMEOUT and r.message == "" for r in results.values())


@pytest.fixture(scope="module")
def dafny(dafny_command: str) -> VerifierInfo:
    """The real Dafny (conftest's dafny_command fails on CI when it is missing, skips elsewhere)."""
    return detect(dafny_command)


# Real Dafny: a batch cut at the budget's wall on the real backend (a kept-alive server, killed there), what it
# concluded before read from its partial report

# z3 times out on the second assertion (measured: 1 verified, 1 time out at /timeLimit:3)
SLOW_BODY = ("assert (x*x*y + y*y*z) * (x + z) * (x*y + z) != (x*y*x + z*y*y) * (z + x) * (z + y*x) + 1;")
REAL_PRELUDE = "function F(x: int): int { x + 1 }\n"


def real(name: str, body: str, params: str = "") -> Program:
    return Program(REAL_PRELUDE, name, f"method {name}({params}) {{\n  {body}\n}}")


@pytest.mark.dafny
def test_real_batch_is_cut_at_the_budget_and_keeps_what_it_concluded(dafny: VerifierInfo, tmp_path: Path) -> None:
    # Dafny writes its report in blocks of some kilobytes: forty quick methods fill more than one before the slow ones
    fast = [real(f"SpecScore_fast{i}", f"assert F({i}) == {i + 1};") for i in range(40)]
    slow = [real(f"SpecScore_slow{i}", SLOW_BODY, "x: int, y: int, z: int") for i in range(5)]
    batch = [*fast, *slow]
    cache = ResultCache(tmp_path)
    engine = Engine(make_backend(dafny), jobs=1, time_limit=3, cache=cache)
    started = time.monotonic()
    results = engine.run(batch, _one(batch, 1.0))
    took = time.monotonic() - started
    # what the report held when the batch was stopped stands; nothing else is a verdict
    assert results[fast[0]].outcome is Outcome.VERIFIED
    assert all(results[p].outcome is Outcome.VERIFIED or results[p].message == CUT_SHORT for p in fast)
    assert all(results[p].outcome is Outcome.TIMEOUT for p in slow)
    assert all(results[p].message == CUT_SHORT for p in slow[2:])
    assert took < 5 * 3  # not the five time-outs in a row
    # what was cut is asked again by a later run; what was concluded is answered by the cache
    again = Engine(make_backend(dafny), jobs=1, time_limit=3, cache=cache)
    later = again.run([fast[0], slow[-1]])
    assert later[fast[0]].outcome is Outcome.VERIFIED and again.stats.cache_hits == 1
    assert later[slow[-1]].outcome is Outcome.TIMEOUT and later[slow[-1]].message != CUT_SHORT
