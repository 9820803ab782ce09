"""bot/symbolic/stages.py and bot/symbolic/together.py: the questions after the rounds, at once on an engine that
takes runs side by side, else one after the other; calls side by side stopped together by the first failure or an
interrupt."""

from __future__ import annotations

import contextvars
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

import pytest

from bot.symbolic.program import Outcome, Program, Result
from bot.symbolic.stages import run_stages
from bot.symbolic.together import Stoppable, Stopped, together
from support.paths import ROOT

WAIT = 30.0


class Concurrent:
    concurrent = True

    def __init__(self) -> None:
        self.runs = 0
        self.lock = threading.Lock()

    def run(self, programs: Sequence[Program]) -> dict[Program, Result]:
        with self.lock:
            self.runs += 1
        time.sleep(0.01)
        return {p: Result(Outcome.VERIFIED, "", 0.0) for p in programs}


def test_on_an_engine_that_takes_runs_side_by_side_the_stages_go_at_once() -> None:
    both = threading.Barrier(2, timeout=WAIT)  # each stage waits for the other to have begun: at once, or broken
    done: list[str] = []
    phases: list[str] = []
    run_stages(Concurrent(), [("suggestions", lambda e: (both.wait(), done.append("a"))[1]),
                              ("every input", lambda e: (both.wait(), done.append("b"))[1])], phases.append)
    assert sorted(done) == ["a", "b"]
    assert phases == ["suggestions, every input"]


def test_elsewhere_one_after_the_other_each_phase_before_its_stage() -> None:
    seen: list[Any] = []
    engine = object()
    run_stages(engine, [("suggestions", lambda e: seen.append(("suggest", e))),
                        ("every input", lambda e: seen.append(("everywhere", e)))], seen.append)
    assert seen == ["suggestions", ("suggest", engine), "every input", ("everywhere", engine)]
    one: list[str] = []
    run_stages(Concurrent(), [("every input", lambda e: one.append("alone"))], one.append)
    assert one == ["every input", "alone"]  # a single stage needs no thread


def test_a_stage_keeps_the_caller_s_context_and_its_failure_is_the_run_s() -> None:
    tag = contextvars.ContextVar("tag", default="none")
    tag.set("caller")
    seen: list[str] = []
    run_stages(Concurrent(), [("a", lambda e: seen.append(tag.get())), ("b", lambda e: seen.append(tag.get()))])
    assert seen == ["caller", "caller"]

    def fails(engine: object) -> None:
        raise RuntimeError("stage broke")

    with pytest.raises(RuntimeError, match="stage broke"):
        run_stages(Concurrent(), [("a", lambda e: None), ("b", fails)])


def asks_for_ever(engine: Stoppable) -> None:
    """A call that asks run after run (as a file's rounds do) until it is stopped."""
    program = Program("", "SpecScore_m", "method SpecScore_m() { }")
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        engine.run([program])
    raise AssertionError("never stopped")


def test_the_first_failure_stops_every_call_beside_it_and_is_raised_once_at_once() -> None:
    engine = Concurrent()
    started: list[int] = []

    def fails(e: Stoppable) -> None:
        e.run([])
        raise RuntimeError("file 3 broke")

    def queued(k: int) -> Any:
        return lambda e: (started.append(k), asks_for_ever(e))

    began = time.monotonic()
    with pytest.raises(RuntimeError, match="file 3 broke"):
        together(engine, [asks_for_ever, asks_for_ever, fails, *[queued(k) for k in range(20)]], width=3)
    assert time.monotonic() - began < WAIT / 2  # not after every other call ran its course
    assert started == []  # the calls still queued never start
    runs = engine.runs
    time.sleep(0.1)
    assert engine.runs == runs  # nothing asks after it returned


INTERRUPTED = r"""
import signal, sys, threading, time
sys.path[:0] = [sys.argv[1], sys.argv[2]]
from unit.test_stages import WAIT, Concurrent, asks_for_ever
from bot.symbolic.together import together

# a process started in the background by a shell without job control inherits SIGINT ignored (POSIX), and Python
# then keeps it ignored: the test gives it Python's own handler, as an interactive run has
signal.signal(signal.SIGINT, signal.default_int_handler)
engine = Concurrent()
main = threading.get_ident()

def interrupts(e):
    e.run([])
    assert threading.get_ident() != main
    signal.pthread_kill(main, signal.SIGINT)  # Ctrl-C, to the thread that waits for the calls

began = time.monotonic()
try:
    together(engine, [asks_for_ever, asks_for_ever, interrupts], width=3)
    time.sleep(WAIT)  # reached only when the interrupt came after the calls returned
    sys.exit("no KeyboardInterrupt")
except KeyboardInterrupt:
    pass
took = time.monotonic() - began
runs = engine.runs
time.sleep(0.1)
print(f"{took:.2f} {runs} {engine.runs}")
"""


def test_an_interrupt_stops_every_call() -> None:
    # in a process of its own, with Python's SIGINT handler: a suite run in the background (`cmd &` in a script)
    # inherits SIGINT ignored, and a SIGINT sent to the main thread then went unseen for 30 s
    done = subprocess.run([sys.executable, "-c", INTERRUPTED, str(ROOT), str(ROOT / "tests")], capture_output=True,
                          text=True, timeout=WAIT * 2, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    took, before, after = done.stdout.split()
    assert float(took) < WAIT / 2
    assert before == after  # nothing asks after it returned


def test_a_stoppable_engine_raises_once_stopped_and_is_otherwise_the_engine() -> None:
    engine = Concurrent()
    stoppable = Stoppable(engine)
    assert stoppable.concurrent is True and stoppable.run([]) == {}
    stoppable.stopped.set()
    with pytest.raises(Stopped):
        stoppable.run([])
    assert engine.run([]) == {}  # the engine itself serves what comes next
