"""Calls side by side on one engine, stopped together: the rounds of each spec file (bot/symbolic/rounds.py) and the
stages after them (bot/symbolic/stages.py). The first failure, or an interrupt, stops them all: no call starts after
it and each one going ends at its next verifier run, so the failure is raised once and at once, not after every
other file's rounds."""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from typing import Any, Protocol, cast

from bot.symbolic.allowance import Allowance
from bot.symbolic.program import Program, Result


class _Engine(Protocol):  # rounds.EngineLike (which imports this module)
    def run(self, programs: Sequence[Program]) -> dict[Program, Result]: ...


class _Budgeted(Protocol):  # an engine that takes an Allowance (rounds.BudgetedEngine)
    def run(self, programs: Sequence[Program], allowance: Allowance | None = None) -> dict[Program, Result]: ...


class Stopped(Exception):
    """A call beside this one failed, or the run was interrupted: nothing more is asked."""


class Stoppable:
    """`engine` for the calls of one `together`: a run raises Stopped once `stopped` is set. The engine itself is
    untouched (an audit's next task uses it); its other attributes are its own."""

    def __init__(self, engine: _Engine) -> None:
        self.engine = engine
        self.stopped = threading.Event()

    def run(self, programs: Sequence[Program], allowance: Allowance | None = None) -> dict[Program, Result]:
        stop_if_stopped(self)
        if allowance is None:
            return self.engine.run(programs)
        return cast(_Budgeted, self.engine).run(programs, allowance)  # only when the engine is `budgeted`

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)


def stop_if_stopped(engine: object) -> None:
    """Raise Stopped when `engine` is a Stoppable whose calls were stopped, or wraps one (calls side by side within
    a call side by side): for what a call does between its verifier runs that takes long (an external
    suggester's command, up to a minute)."""
    while isinstance(engine, Stoppable):
        if engine.stopped.is_set():
            raise Stopped("a run beside this one failed or was interrupted")
        engine = engine.engine


_IN_LANE: contextvars.ContextVar[bool] = contextvars.ContextVar("_IN_LANE", default=False)  # within a call of one


class _Lanes:
    """The engine's count of the calls side by side (Engine.add_lanes, when it keeps one): each call of a `together`
    counts from the start, before its thread makes its first run (the first of two files' rounds took both slots
    while the other's thread was starting), until it ends; a call that makes calls side by side waits on them."""

    def __init__(self, engine: object, calls: int) -> None:
        add = getattr(engine, "add_lanes", None)
        self.add: Callable[[int], None] = add if callable(add) else (lambda change: None)
        self.left = calls
        self.outer = 1 if _IN_LANE.get() else 0
        self.lock = threading.Lock()

    def __enter__(self) -> _Lanes:
        self.add(self.left - self.outer)
        return self

    def ended(self) -> None:
        with self.lock:
            self.left -= 1
            self.add(-1)

    def __exit__(self, *exc: object) -> None:
        with self.lock:  # calls never started (stopped) end here
            left, self.left = self.left, 0
            self.add(self.outer - left)


def together(engine: _Engine, calls: Sequence[Callable[[Stoppable], None]], width: int) -> None:
    """Each call with the same Stoppable engine, at most `width` at once, each in the caller's context (what a caller
    keeps in context variables follows its call). The engine's progress counts what every call asked while they go
    (Engine.gathered: a call that ends takes nothing back). The first failure in the order of the calls is raised."""
    stoppable = Stoppable(engine)
    gathered = getattr(engine, "gathered", None)
    with gathered() if callable(gathered) else contextlib.nullcontext(), _Lanes(engine, len(calls)) as lanes:
        pool = ThreadPoolExecutor(max_workers=max(1, min(width, len(calls))), thread_name_prefix="together")
        futures: list[Future[None]] = []
        try:
            futures = [pool.submit(contextvars.copy_context().run, _guarded, call, stoppable, lanes) for call in calls]
            wait(futures, return_when=FIRST_EXCEPTION)
            failed = [f for f in futures if f.done() and not f.cancelled() and f.exception() is not None]
            if failed:
                stoppable.stopped.set()
                pool.shutdown(wait=True, cancel_futures=True)
                # the failure itself, not the Stopped of the calls it stopped
                first = next((f for f in futures if f.done() and not f.cancelled()
                              and f.exception() is not None and not isinstance(f.exception(), Stopped)), failed[0])
                first.result()
        except BaseException:  # an interrupt while waiting, or the failure raised above
            stoppable.stopped.set()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        for future in futures:
            future.result()


def _guarded(call: Callable[[Stoppable], None], engine: Stoppable, lanes: _Lanes) -> None:
    """`call`, unless the calls are stopped; a failure stops them before its thread takes the next call."""
    if engine.stopped.is_set():
        raise Stopped("a call beside this one failed or was interrupted")
    _IN_LANE.set(True)  # in this call's own context (together: copy_context().run)
    try:
        call(engine)
    except BaseException:
        engine.stopped.set()
        raise
    finally:
        lanes.ended()
