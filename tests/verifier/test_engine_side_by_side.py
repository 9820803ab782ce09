"""Runs of one engine side by side (Engine.concurrent): they share its `jobs` verifier slots, and a run beside
another does not cut its batches smaller to fill slots the other fills. An in-process fake backend."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from pathlib import Path

from bot.symbolic.program import Outcome, Program, Result
from bot.verifier import VerifierInfo, is_transient
from bot.verifier.cache import ResultCache
from bot.verifier.engine import Engine

WAIT = 30.0  # seconds a test waits for a thread before it fails (a hang would be the bug)


class GatedBackend:
    """Verifies everything; a batch whose prelude holds GATE waits until `gate` is set. Counts the calls running
    at once."""

    def __init__(self) -> None:
        self.info = VerifierInfo(("fake",), "1.0", 2)
        self.gate = threading.Event()
        self.entered = threading.Event()  # a gated batch is waiting
        self.lock = threading.Lock()
        self.calls: list[tuple[str, int]] = []  # (prelude, methods) per call
        self.running = 0
        self.most_running = 0

    def flags_id(self, time_limit: int) -> str:
        return f"fake /timeLimit:{time_limit}"

    def verify_batch(self, prelude: str, methods: Sequence[tuple[str, str]], time_limit: int,
                     models: Collection[str] = frozenset()) -> dict[str, Result]:
        with self.lock:
            self.calls.append((prelude, len(methods)))
            self.running += 1
            self.most_running = max(self.most_running, self.running)
        try:
            if "GATE" in prelude:
                self.entered.set()
                assert self.gate.wait(WAIT), "the gated batch was never let go"
            return {name: Result(Outcome.VERIFIED, "", 0.1) for name, _ in methods}
        finally:
            with self.lock:
                self.running -= 1


def programs(count: int, prelude: str) -> list[Program]:
    return [Program(prelude, f"SpecScore_h{i}", f"method SpecScore_h{i}() {{ }}") for i in range(count)]


def test_a_run_goes_on_while_another_waits_for_its_slowest_batch() -> None:
    backend = GatedBackend()
    engine = Engine(backend, jobs=2)
    assert engine.concurrent
    slow: dict[Program, Result] = {}

    def slow_run() -> None:
        slow.update(engine.run(programs(1, "function GATE(): int { 1 }")))

    waiting = threading.Thread(target=slow_run)
    waiting.start()
    assert backend.entered.wait(WAIT)
    # the gated run holds one slot; this one gets the other, and ends before the gate opens
    fast = engine.run(programs(4, "function F(): int { 1 }"))
    assert all(r.outcome is Outcome.VERIFIED for r in fast.values()) and len(fast) == 4
    assert not slow
    backend.gate.set()
    waiting.join(WAIT)
    assert not waiting.is_alive() and len(slow) == 1
    # beside the gated run, the fast one did not cut its 4 programs in two to fill a slot the other held
    assert [n for p, n in backend.calls if "F()" in p] == [4]
    assert engine.stats.programs == 5 and engine.stats.verifier_runs == 2


def test_runs_side_by_side_never_hold_more_than_the_engine_s_slots() -> None:
    backend = GatedBackend()
    engine = Engine(backend, jobs=2)
    answers: list[dict[Program, Result]] = []
    lock = threading.Lock()

    def one(k: int) -> None:
        found = engine.run(programs(6, f"function GATE{k}(): int {{ {k} }}"))
        with lock:
            answers.append(found)

    threads = [threading.Thread(target=one, args=(k,)) for k in range(5)]
    for t in threads:
        t.start()
    assert backend.entered.wait(WAIT)
    backend.gate.set()
    for t in threads:
        t.join(WAIT)
    assert not any(t.is_alive() for t in threads)
    assert backend.most_running <= 2
    assert len(answers) == 5 and all(len(a) == 6 for a in answers)
    assert engine.stats.programs == 30


def test_a_run_alone_spreads_its_batches_over_every_slot() -> None:
    backend = GatedBackend()
    Engine(backend, jobs=2).run(programs(4, "function F(): int { 1 }"))
    assert sorted(n for _, n in backend.calls) == [2, 2]


def test_a_run_alone_with_a_cached_twin_still_spreads_its_batches(tmp_path: Path) -> None:
    # answering a plain program from its cached model-wanting twin reports the run before its batches are planned:
    # it is not a run beside itself
    backend = GatedBackend()
    engine = Engine(backend, jobs=2, cache=ResultCache(str(tmp_path)))
    plain = Program("function G(): int { 2 }", "SpecScore_t", "method SpecScore_t() { }")
    wanting = replace(plain, want_model=True)
    engine.run([wanting])
    backend.calls.clear()
    engine.run([wanting, plain, *programs(4, "function F(): int { 1 }")])
    assert sorted(n for _, n in backend.calls) == [2, 2]


def test_in_a_gathered_block_no_count_goes_back_when_a_run_ends() -> None:
    backend = GatedBackend()
    engine = Engine(backend, jobs=2)
    seen: list[tuple[int, int]] = []
    engine.progress = lambda done, total: seen.append((done, total))
    with engine.gathered():
        waiting = threading.Thread(target=lambda: engine.run(programs(1, "function GATE(): int { 1 }")))
        waiting.start()
        assert backend.entered.wait(WAIT)
        engine.run(programs(10, "function F(): int { 1 }"))  # ends while the gated run goes on
        engine.run(programs(2, "function H(): int { 1 }"))  # and so does this one, after it
        backend.gate.set()
        waiting.join(WAIT)
    dones = [d for d, _ in seen]
    totals = [t for _, t in seen]
    assert dones == sorted(dones) and totals == sorted(totals), seen
    assert seen[-1] == (13, 13)
    seen.clear()
    engine.run(programs(2, "function K(): int { 1 }"))  # after the block: a run's own counts, as before
    assert seen[0] == (0, 2) and seen[-1] == (2, 2)


def test_the_progress_hook_sums_the_runs_going_on() -> None:
    backend = GatedBackend()
    engine = Engine(backend, jobs=2)
    seen: list[tuple[int, int]] = []
    engine.progress = lambda done, total: seen.append((done, total))
    waiting = threading.Thread(target=lambda: engine.run(programs(1, "function GATE(): int { 1 }")))
    waiting.start()
    assert backend.entered.wait(WAIT)
    engine.run(programs(3, "function F(): int { 1 }"))
    backend.gate.set()
    waiting.join(WAIT)
    # while the gated run (0 of 1 done) went on, the other's 3 programs counted beside it: 3 of 4 at most
    assert (3, 4) in seen
    assert all(done <= total for done, total in seen)


def test_a_program_a_run_beside_it_verifies_already_is_verified_once() -> None:
    backend = GatedBackend()
    engine = Engine(backend, jobs=2)
    shared = programs(3, "function GATE(): int { 1 }")
    first: dict[Program, Result] = {}
    waiting = threading.Thread(target=lambda: first.update(engine.run(shared)))
    waiting.start()
    assert backend.entered.wait(WAIT)
    second: dict[Program, Result] = {}
    # the same programs and one more, while the first run's batches wait: only the new one is verified here
    more = [*shared, *programs(4, "function F(): int { 1 }")[3:]]
    asking = threading.Thread(target=lambda: second.update(engine.run(more)))
    asking.start()
    asking.join(1.0)
    assert asking.is_alive()  # it waits for the first run's answers
    backend.gate.set()
    for t in (waiting, asking):
        t.join(WAIT)
    assert not waiting.is_alive() and not asking.is_alive()
    assert sum(n for p, n in backend.calls if "GATE" in p) == 3  # each shared program verified once
    assert all(second[p] == first[p] for p in shared) and len(second) == 4


def test_a_run_that_fails_leaves_its_shared_programs_a_transient_answer() -> None:
    class Failing(GatedBackend):
        def verify_batch(self, prelude: str, methods: Sequence[tuple[str, str]],
                         time_limit: int) -> dict[str, Result]:
            self.entered.set()
            assert self.gate.wait(WAIT)
            raise RuntimeError("backend bug")

    backend = Failing()
    engine = Engine(backend, jobs=1)
    shared = programs(1, "function F(): int { 1 }")
    first: dict[Program, Result] = {}
    waiting = threading.Thread(target=lambda: first.update(engine.run(shared)))
    waiting.start()
    assert backend.entered.wait(WAIT)
    second: dict[Program, Result] = {}
    asking = threading.Thread(target=lambda: second.update(engine.run(shared)))
    asking.start()
    backend.gate.set()
    for t in (waiting, asking):
        t.join(WAIT)
    assert is_transient(first[shared[0]]) and is_transient(second[shared[0]])


def test_a_shared_program_s_answer_is_given_once_settled_not_when_its_run_ends() -> None:
    backend = GatedBackend()
    engine = Engine(backend, jobs=2)
    shared = programs(1, "function F(): int { 1 }")
    owner = threading.Thread(target=lambda: engine.run(shared + programs(1, "function GATE(): int { 1 }")))
    owner.start()
    try:
        assert backend.entered.wait(WAIT)  # the owner's run is held open by its gated batch
        got: dict[Program, Result] = {}
        asker = threading.Thread(target=lambda: got.update(engine.run(shared)))
        asker.start()
        asker.join(WAIT / 3)
        assert not asker.is_alive(), "the shared program's answer waited for the owner's whole run"
        assert got[shared[0]].outcome is Outcome.VERIFIED
        assert sum(1 for prelude, _ in backend.calls if "F()" in prelude) == 1  # verified once
    finally:
        backend.gate.set()
        owner.join(WAIT)


def test_a_call_side_by_side_counts_as_beside_before_its_first_run() -> None:
    # two files' rounds (bot/symbolic/together.py): the first to reach the engine used to see no run beside it and
    # cut its batch in two, taking both slots while the other call's thread was still starting
    from bot.symbolic.together import together

    backend = GatedBackend()
    engine = Engine(backend, jobs=2)
    second_may_go = threading.Event()
    found: dict[str, dict[Program, Result]] = {}

    def first(through: object) -> None:
        found["first"] = engine.run(programs(4, "function F(): int { 1 }"))
        second_may_go.set()

    def second(through: object) -> None:
        assert second_may_go.wait(WAIT)  # its first run comes after the other's whole run
        found["second"] = engine.run(programs(4, "function G(): int { 2 }"))

    together(engine, [first, second], 2)
    assert len(found["first"]) == 4 and len(found["second"]) == 4
    # the first run was planned with the other call beside it: one batch, not two
    assert [n for p, n in backend.calls if "F()" in p] == [4]
    # once the first call ended, the second had the engine to itself and spread its batches
    assert sorted(n for p, n in backend.calls if "G()" in p) == [2, 2]


def test_the_most_urgent_waiting_batch_takes_the_next_free_slot() -> None:
    # a stage later in the list (bot/symbolic/urgency.py) waits behind an earlier one, whichever asked first
    import contextvars

    from bot.symbolic.urgency import URGENCY

    backend = GatedBackend()
    engine = Engine(backend, jobs=1)
    holder = threading.Thread(target=engine.run, args=(programs(1, "function GATE(): int { 1 }"),))
    holder.start()
    assert backend.entered.wait(WAIT)

    def asking(urgency: int, prelude: str) -> threading.Thread:
        def go() -> None:
            URGENCY.set(urgency)
            engine.run(programs(1, prelude))
        context = contextvars.copy_context()
        return threading.Thread(target=context.run, args=(go,))

    late = asking(1, "function Late(): int { 1 }")
    late.start()
    _wait_for(lambda: len(engine._slots.waiting) == 1)  # the later stage waits for the slot first
    urgent = asking(0, "function Urgent(): int { 1 }")
    urgent.start()
    _wait_for(lambda: len(engine._slots.waiting) == 2)
    backend.gate.set()
    for t in (holder, late, urgent):
        t.join(WAIT)
    order = [p for p, _ in backend.calls]
    assert "GATE" in order[0] and "Urgent" in order[1] and "Late" in order[2]


def _wait_for(condition: Callable[[], bool]) -> None:
    """Polls `condition` until it holds; a test fails, rather than hangs, when it does not within WAIT."""
    give_up = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < give_up, "the condition never held"
        time.sleep(0.01)
