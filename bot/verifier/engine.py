"""Verify many programs: cache, batches of one file each, parallel verifier processes, isolation.

Programs that share a prelude are verified as methods of one file (about 7x cheaper than one process
per program). When a batch fails as a whole (every method ERROR, e.g. one program does not resolve),
its programs are bisected into smaller batches until the broken ones stand alone, so one bad program
does not spoil the others. Before bisecting a prelude's first large failed batch, the prelude is checked
once on its own: when it alone fails, every program built on it fails the same way, and bisecting would
only cost 2n-1 runs.

A program that wants its counterexample models (`Program.want_model`) is verified like any other, in a
batch with the rest; the backend is told which methods of the batch want them. When the same program is
asked for both with and without models, it is verified once (two methods of one name cannot share a
file): the plain one gets the other's result without the models.

Runs may go side by side, from several threads (`Engine.concurrent`): they share the engine's `jobs` verifier
slots, so the verifier processes stay at `jobs` however many runs wait, and a run that has the engine to itself
spreads its batches over every slot, while one beside others does not cut its batches smaller to fill slots the
others fill. The calls that go side by side (bot/symbolic/together.py) say so (`Engine.add_lanes`): a call between two
runs, or about to make its first, counts as beside too, so the first of two files' rounds to reach the engine does
not take both slots and keep the other waiting for a server's start (which of the two is first was a race). A program
a run beside it is verifying already is not verified again: the run waits for that answer once its own batches are
over (the head and base of a pull request share every program of a spec left as it was).

A background check (`Program.checks`) goes in the first batch of harness programs with its prelude and limit when the
backend reads the two apart (`mixed_checks`: the backend is told which method is the check's), else in a batch of its
own: a batch costs a start, the file's resolution and a canary. Such a batch that fails as a whole is bisected with
the check in the half that holds its program; where the prelude fails on its own, the check is asked alone. Within
budgets the check is always asked (it is no method's): it adds BUDGET_MARGIN to its batch's wall, and when the budget
stops the batch it is asked again, alone.

A run may be given an Allowance (bot/symbolic/allowance.py): its methods' budgets of verification. A batch then holds
one method's programs, is not started for a method with nothing left, and once started gets at most the seconds its
method has left (plus BUDGET_MARGIN): a round of twenty-second time-outs stops where the budget runs out, not at its
end. What it did not ask, or cut short, is a time-out of the run (never cached); what the batch concluded before it
was stopped stands. A run that awaited a program from a run beside it is charged what it cost, and asks it again
when the other's budget left it unasked.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import math
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from typing import Any

from bot.symbolic.allowance import CUT_SHORT, NOT_ASKED, Allowance, over_budget
from bot.symbolic.program import Outcome, Program, Result
from bot.symbolic.urgency import URGENCY
from bot.verifier import CRASHED, NO_RESULT, Backend, is_transient
from bot.verifier.cache import ResultCache
from bot.verifier.output import killed_at

PROBE_NAME = "SpecScoreEnginePreludeProbe"
# Dafny 2.3 makes no verification task of an empty body (measured): assert something.
PROBE_METHOD = f"method {PROBE_NAME}() {{ assert true; }}"
PRELUDE_BROKEN = "the declarations these programs share fail on their own:\n"
# planning estimates (measured with Dafny 2.3: 0.7 s to start, a median 0.14 s per verification condition)
STARTUP_SECONDS = 0.8
DEFAULT_SECONDS = 0.3
SLOW_SECONDS = 2.0
# a slow prelude's batches hold about this many seconds of its programs (at least one): one program per batch
# cost 0.4 s of start-up each, 28 times on task 632 of the development audit
SLOW_BATCH_SECONDS = 10.0
SIZE_UNIT = 4000  # characters of harness text that count as one more default program, before anything is measured
# seconds a batch started within a method's budget may take beyond what the budget has left: reading, resolving and
# translating its file (0.7 s a batch measured on a server, 1.5 s more on the command line's mono start)
BUDGET_MARGIN = 5.0
MOST_REDOS = 3  # times a run asks again what a run beside it left unasked (Engine.run)


@dataclass(frozen=True)
class EngineStats:
    """Totals since the engine was built, for benchmarks."""

    programs: int = 0  # programs asked for, duplicates included
    unique: int = 0  # distinct programs (by cache key)
    cache_hits: int = 0  # distinct programs answered by the cache
    verifier_runs: int = 0  # verifier processes started
    seconds: float = 0.0  # wall-clock time spent in run()


@dataclass(frozen=True)
class _Item:
    key: str
    program: Program


class _Flight:
    """A program one run verifies while others ask it too: its answer, once `done` is set."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result = Result(Outcome.ERROR, NO_RESULT)


@dataclass(frozen=True)
class _Task:
    prelude: str
    items: tuple[_Item, ...]  # empty for a prelude probe
    limit: int  # the verifier's time limit for every program of the batch
    # a background check's (`Program.checks`): alone in its batch, or the first of its items (`background`)
    checks: tuple[str, ...] = ()

    @property
    def background(self) -> str:
        """The name of the background check's program in a batch it shares with harness programs, or ""."""
        if not self.checks or len(self.items) < 2:
            return ""
        return next(item.program.name for item in self.items if item.program.checks)

    @staticmethod
    def alone(item: _Item, limit: int) -> _Task:
        """A background check's batch of its own (a start, the prelude's resolution and a canary: it costs that)."""
        return _Task(item.program.prelude, (item,), limit, item.program.checks)

    def parts(self, count: int) -> list[_Task]:
        """The batch cut in `count` (`_even`), the background check with the part that holds its program."""
        out = []
        for part in _even(list(self.items), count):
            checks = next((item.program.checks for item in part if item.program.checks), ())
            out.append(_Task(self.prelude, part, self.limit, checks))
        return out


class Engine:
    """Runs programs through a Backend; runs from several threads share its `jobs` verifier slots."""

    concurrent = True  # `run` may be called from several threads at once (bot/symbolic/rounds.py)
    budgeted = True  # `run` takes an Allowance (bot/symbolic/allowance.py)

    def __init__(
        self,
        backend: Backend,
        jobs: int | None = None,
        time_limit: int = 20,
        cache: ResultCache | None = None,
        batch_size: int = 40,
        progress: Callable[[int, int], None] | None = None,
    ) -> None:
        self.backend = backend
        self.jobs = jobs if jobs is not None else (os.cpu_count() or 1)
        self.time_limit = time_limit
        self.cache = cache
        self.batch_size = batch_size
        self.progress = progress
        self._cost: dict[str, tuple[float, int]] = {}  # prelude -> (seconds, programs) seen so far
        if self.jobs < 1 or self.time_limit < 1 or self.batch_size < 1:
            raise ValueError("jobs, time_limit and batch_size must be at least 1")
        self._stats = EngineStats()
        self._lock = threading.Lock()  # the stats, the costs seen and the progress of the runs going on
        self._slots = _Slots(self.jobs)  # a backend call holds one
        self._going: dict[int, tuple[int, int]] = {}  # per run going on (by id): programs done, programs in all
        self._gathering = 0  # `gathered` blocks open: the runs that end keep their counts in the progress
        self._ended = (0, 0)  # the counts of the runs that ended in them
        self._lanes = 0  # calls side by side on the engine (Engine.add_lanes), each with runs of its own to come
        self._flights: dict[str, _Flight] = {}  # per cache key, the programs a run going on verifies

    @property
    def stats(self) -> EngineStats:
        return self._stats

    def run(self, programs: Sequence[Program], allowance: Allowance | None = None) -> dict[Program, Result]:
        """Each program's result; with `allowance`, within its methods' budgets (see the module's docstring)."""
        return self._run(programs, allowance, 0)

    def _run(self, programs: Sequence[Program], allowance: Allowance | None, redo: int) -> dict[Program, Result]:
        """`run`; `redo`: how many runs deep this one asks again what a run beside it left unasked (such a run is
        part of the run that asks it: it reports no progress of its own, which would count its programs twice, and
        a wrapper of `run`, such as the benchmark's recorder, sees the programs once)."""
        started = time.monotonic()
        flags = {limit: self.backend.flags_id(limit) for limit in {self.limit_of(p) for p in programs}}
        keys = {program: program.key(flags[self.limit_of(program)]) for program in programs}
        unique: dict[str, Program] = {}
        copies: dict[str, int] = {}
        for program, key in keys.items():
            unique.setdefault(key, program)
            copies[key] = copies.get(key, 0) + 1

        results: dict[str, Result] = {}
        if self.cache is not None:
            for key in unique:
                hit = self.cache.get(key)
                if hit is not None:
                    results[key] = hit
                    self.observe(unique[key].prelude, [hit])
        hits = len(results)
        if allowance is not None:  # a cached answer costs what it cost when verified: the same budget, cold or warm
            allowance.charge({unique[key]: hit for key, hit in results.items()}, cut=False)

        # A plain program whose model-wanting twin is verified anyway is answered by the twin.
        wanting = {(p.prelude, p.name, p.method): key for key, p in unique.items() if p.want_model}
        twins: dict[str, list[str]] = {}  # key of a program wanting models -> keys of its plain twins
        for key, program in unique.items():
            twin = wanting.get((program.prelude, program.name, program.method))
            if not program.want_model and key not in results and twin is not None:
                twins.setdefault(twin, []).append(key)
        answered = {key for plain in twins.values() for key in plain}

        run = _EngineRound(self, copies, results, total=len(keys), twins=twins, allowance=allowance, quiet=redo > 0)
        for twin in twins:
            if twin in results:
                run.settle_twins(twin, results[twin])
        groups: dict[tuple[str, int, bool, tuple[int, ...]], list[_Item]] = {}
        owned: dict[str, _Flight] = {}  # what this run verifies, for the runs beside it that ask it too
        awaited: dict[str, _Flight] = {}  # what a run beside it verifies already: its answer is this run's
        with self._lock:
            # other runs going on, whose batches fill the slots too (this one is among them once it reported)
            beside = max(sum(1 for other in self._going if other != id(run)), self._lanes - 1)
            for key, program in unique.items():
                if key in results or key in answered:
                    continue
                flight = self._flights.get(key)
                # one already answered "not asked" (its run's budget, not this one's) is asked by this run itself
                if flight is not None and not (flight.done.is_set() and over_budget(flight.result)):
                    awaited[key] = flight
                    continue
                owned[key] = self._flights[key] = _Flight()
                # one limit per batch: Dafny 2.3 honours a method's `{:timeLimit N}` only when it is the first one
                # its prover checks (measured: later methods ran at the batch's limit, and a later one at the
                # earlier one's), so a lower limit cannot ride on the method in a shared batch
                # within budgets, one method's programs per batch: a batch stopped at one method's budget cuts no
                # other method's programs short, nor spends another's budget
                owners = tuple(sorted(id(g) for g in allowance.groups(program))) if allowance is not None else ()
                group = (program.prelude, self.limit_of(program), bool(program.checks), owners)
                groups.setdefault(group, []).append(_Item(key, program))
        run.owned = owned
        try:
            run.report()
            plan = self._plan(list(groups.items()), max(1, self.jobs - beside),
                              in_order=allowance is not None) if groups else []
            runs = run.execute(plan) if plan else 0
        finally:
            with self._lock:
                for key, flight in owned.items():
                    if self._flights.get(key) is flight:  # a run after it may have put its own in its place
                        del self._flights[key]
                    if not flight.done.is_set():  # a run that failed leaves a transient answer, never a verdict
                        flight.result = Result(Outcome.ERROR, f"{CRASHED}the run asking it failed")
                        flight.done.set()
        try:
            # only once its own batches are over: a run waits for no other while it holds what others await
            again: list[str] = []
            for key, flight in awaited.items():
                flight.done.wait()
                if over_budget(flight.result) and redo < MOST_REDOS:
                    again.append(key)  # the other run's budget ran out, not necessarily this one's: asked again
                    continue
                if allowance is not None:  # it costs this run what it would have cost it alone
                    allowance.charge({unique[key]: flight.result}, cut=False)
                run.settle_shared(key, flight.result)
            if again:
                answers = self._run([unique[key] for key in again], allowance, redo + 1)
                for key in again:
                    run.settle_shared(key, answers[unique[key]])
        finally:
            with self._lock:
                ended = self._going.pop(id(run), None)
                if ended is not None and self._gathering:
                    self._ended = (self._ended[0] + ended[0], self._ended[1] + ended[1])
        with self._lock:
            s = self._stats
            self._stats = EngineStats(
                programs=s.programs + len(programs),
                unique=s.unique + len(unique),
                cache_hits=s.cache_hits + hits,
                verifier_runs=s.verifier_runs + runs,
                seconds=s.seconds + time.monotonic() - started,
            )
        return {program: results[key] for program, key in keys.items()}

    def progressed(self, run: int, done: int, total: int) -> None:
        """Run `run` has `done` of its `total` programs: the progress hook gets the sums over the runs going on, and
        in a `gathered` block those of the runs that ended in it too (so that no count goes back)."""
        with self._lock:
            self._going[run] = (done, total)
            if self.progress is not None:
                self.progress(self._ended[0] + sum(d for d, _ in self._going.values()),
                              self._ended[1] + sum(n for _, n in self._going.values()))

    @contextlib.contextmanager
    def gathered(self) -> Iterator[None]:
        """While open, the progress counts every program of the runs that go on in it, ended or not: runs side by
        side (bot/symbolic/together.py) end at their own pace, and one ending would take its counts back."""
        with self._lock:
            self._gathering += 1
        try:
            yield
        finally:
            with self._lock:
                self._gathering -= 1
                if not self._gathering:
                    self._ended = (0, 0)

    def add_lanes(self, change: int) -> None:
        """`change` more calls go side by side on the engine (bot/symbolic/together.py; a negative one: calls that
        ended, or one that waits on calls of its own): a run plans its batches for the slots the others leave it."""
        with self._lock:
            self._lanes += change

    def slot(self) -> _Slot:
        """One of the `jobs` verifier slots the runs share, held around every backend call: of the batches waiting,
        the most urgent takes the next one free (the caller's bot/symbolic/urgency.py, read here, in its thread),
        then the one that waited longest."""
        return _Slot(self._slots, URGENCY.get())

    def limit_of(self, program: Program) -> int:
        """The time limit `program` is verified with: its own when lower than the engine's."""
        return self.time_limit if program.time_limit is None else max(1, min(program.time_limit, self.time_limit))

    def _plan(self, groups: list[tuple[tuple[str, int, bool, tuple[int, ...]], list[_Item]]], spread: int,
              in_order: bool = False) -> list[_Task]:
        """Batches of at most batch_size, one prelude each; split further until `spread` workers have one.

        A prelude whose programs were slow in an earlier run (time-outs, several seconds each) gets small
        batches (about SLOW_BATCH_SECONDS of its programs each), and costly batches go first: a batch verifies
        its methods one after the other, so ten 20-second time-outs in one batch would keep one worker busy
        while the other idles.

        `in_order` (a run within its methods' budgets): the programs, and so the batches, in the order given (the
        rounds give the cheapest cases first, bot/symbolic/rounds.py `_ordered`), so that a budget that runs out
        has bought as many verdicts as it could, rather than the costliest batches first.
        """
        batches: list[_Task] = []
        checked: list[tuple[int, _Item]] = []
        for (prelude, limit, whole, _owners), items in groups:
            if whole:  # background checks: each with harness programs of its prelude (below), or alone
                checked += [(limit, item) for item in items]
                continue
            size = self._size(prelude)
            batches += [_Task(prelude, part, limit) for part in _even(items, math.ceil(len(items) / size))]
        while batches and len(batches) < spread:
            largest = max(range(len(batches)), key=lambda i: len(batches[i].items))
            task = batches[largest]
            if len(task.items) < 2:
                break
            batches[largest : largest + 1] = task.parts(2)
        mixed = getattr(self.backend, "mixed_checks", False) is True
        for limit, item in checked:
            # the first batch of its prelude and limit (the first the rounds give, within budgets): a batch of its own
            # costs a start, the prelude's resolution and a canary (0.28 s measured), once per spec file
            at = next((i for i, b in enumerate(batches) if mixed and b.items and not b.checks
                       and b.prelude == item.program.prelude and b.limit == limit), None)
            if at is None:
                batches.append(_Task.alone(item, limit))
            else:
                batches[at] = _Task(batches[at].prelude, (item, *batches[at].items), limit, item.program.checks)
        if in_order:  # the batches too: the first one's time-outs would spend what the next one's verdicts need
            return batches
        return sorted(batches, key=lambda t: -self._estimate(t))

    def observe(self, prelude: str, results: Sequence[Result]) -> None:
        """Remember how long a prelude's programs took (for planning later runs)."""
        with self._lock:
            total, count = self._cost.get(prelude, (0.0, 0))
            self._cost[prelude] = (total + sum(r.seconds for r in results), count + len(results))

    def _per_program(self, prelude: str) -> float | None:
        total, count = self._cost.get(prelude, (0.0, 0))
        return total / count if count else None

    def _size(self, prelude: str) -> int:
        """Programs per batch for this prelude: fewer for one whose programs were slow."""
        per = self._per_program(prelude)
        if per is None or per <= SLOW_SECONDS:
            return self.batch_size
        return max(1, min(self.batch_size, int(SLOW_BATCH_SECONDS // per)))

    def _estimate(self, task: _Task) -> float:
        per = self._per_program(task.prelude)
        if per is not None:
            return STARTUP_SECONDS + len(task.items) * per
        # not seen yet: longer harnesses (many hints, long literals) are the slower ones, as a rule
        return STARTUP_SECONDS + sum(DEFAULT_SECONDS * (1 + len(i.program.method) / SIZE_UNIT) for i in task.items)


class _Slots:
    """`count` verifier slots; a waiter takes one in the order of (urgency, arrival)."""

    def __init__(self, count: int) -> None:
        self.free = count
        self.cond = threading.Condition()
        self.waiting: list[tuple[int, int]] = []  # a heap of (urgency, arrival)
        self.arrivals = itertools.count()

    def acquire(self, urgency: int) -> None:
        with self.cond:
            me = (urgency, next(self.arrivals))
            heapq.heappush(self.waiting, me)
            try:
                while not (self.free and self.waiting[0] == me):
                    self.cond.wait()
            except BaseException:  # no slot taken: the waiters behind it must not wait for it
                self.waiting.remove(me)
                heapq.heapify(self.waiting)
                self.cond.notify_all()
                raise
            heapq.heappop(self.waiting)
            self.free -= 1
            self.cond.notify_all()  # the next waiter may take another slot free

    def release(self) -> None:
        with self.cond:
            self.free += 1
            self.cond.notify_all()


class _Slot:
    """One slot of `_Slots`, taken with the urgency of the run that asked for it."""

    def __init__(self, slots: _Slots, urgency: int) -> None:
        self.slots = slots
        self.urgency = urgency

    def __enter__(self) -> None:
        self.slots.acquire(self.urgency)

    def __exit__(self, *exc: object) -> None:
        self.slots.release()


def _even(items: Sequence[_Item], parts: int) -> list[tuple[_Item, ...]]:
    """`items` cut into `parts` consecutive slices whose sizes differ by at most one."""
    parts = max(1, min(parts, len(items)))
    size, extra = divmod(len(items), parts)
    out: list[tuple[_Item, ...]] = []
    start = 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        out.append(tuple(items[start:end]))
        start = end
    return out


class _EngineRound:
    """The state of one Engine.run: pending tasks, probes and parked batches."""

    def __init__(
        self,
        engine: Engine,
        copies: dict[str, int],
        results: dict[str, Result],
        total: int,
        twins: dict[str, list[str]] | None = None,
        allowance: Allowance | None = None,
        quiet: bool = False,
    ) -> None:
        self.engine = engine
        self.allowance = allowance
        self.quiet = quiet  # a run asking again for another: its progress is that run's
        self.copies = copies
        self.results = results
        self.total = total
        self.twins = twins or {}
        self.done = sum(copies[key] for key in results)
        self.probes: dict[str, Result | None] = {}  # prelude -> probe result (None: still running)
        self.parked: dict[str, list[_Task]] = {}  # failed batches waiting for their prelude's probe
        self.owned: dict[str, _Flight] = {}  # what runs beside this one await of it: each as soon as it is settled

    def report(self) -> None:
        if not self.quiet:
            self.engine.progressed(id(self), self.done, self.total)

    def execute(self, tasks: list[_Task]) -> int:
        runs = 0
        with ThreadPoolExecutor(max_workers=self.engine.jobs, thread_name_prefix="verifier") as pool:
            pending: dict[Future[dict[str, Result]], _Task] = {}

            def submit(task: _Task) -> None:
                nonlocal runs
                runs += 1
                methods = [(item.program.name, item.program.method) for item in task.items]
                if not task.items:
                    methods = [(PROBE_NAME, PROBE_METHOD)]
                wanted = frozenset(item.program.name for item in task.items if item.program.want_model)
                backend, slot = self.engine.backend, self.engine.slot()
                if self.allowance is not None and task.items and (task.background or not task.checks):
                    future = pool.submit(_within, slot, self.allowance, backend, task, wanted)
                elif task.background:
                    future = pool.submit(_held, slot, backend.verify_batch, task.prelude, methods, task.limit, wanted,
                                         checks=task.checks, background=task.background)
                elif task.checks:
                    future = pool.submit(_held, slot, backend.verify_batch, task.prelude, methods, task.limit,
                                         checks=task.checks)
                elif wanted:
                    future = pool.submit(_held, slot, backend.verify_batch, task.prelude, methods, task.limit, wanted)
                else:
                    # exactly the call made before models existed (test backends need not know them)
                    future = pool.submit(_held, slot, backend.verify_batch, task.prelude, methods, task.limit)
                pending[future] = task

            for task in tasks:
                submit(task)
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    task = pending.pop(future)
                    for follow_up in self._handle(task, *_outcomes(future)):
                        submit(follow_up)
        return runs

    def _handle(self, task: _Task, outcomes: dict[str, Result], missing: Result) -> list[_Task]:
        """Record what `task` settled; return the tasks it still needs."""
        if not task.items:
            probe = outcomes.get(PROBE_NAME, missing)
            self.probes[task.prelude] = probe
            follow: list[_Task] = []
            for parked in self.parked.pop(task.prelude, []):
                follow += self._after_failure(parked)
            return follow
        found = {item.key: outcomes.get(item.program.name, missing) for item in task.items}
        # what the batch asked (not what a spent budget left unasked) failing as a whole: one program that does not
        # resolve fails every method of the file, so it is found by bisecting
        asked = [r for r in found.values() if not over_budget(r)]
        if len(asked) > 1 and all(r.outcome is Outcome.ERROR for r in asked):
            return self._after_failure(task)
        # a background check's time says nothing of its harness programs' time, nor does a program the budget did not
        # let run, or stopped
        self.engine.observe(task.prelude, [found[item.key] for item in task.items
                                           if not item.program.checks and not over_budget(found[item.key])])
        self._settle(found)
        return []

    def _after_failure(self, task: _Task) -> list[_Task]:
        """A batch failed as a whole: blame the prelude, or bisect."""
        if task.prelude not in self.probes and len(task.items) > 2:
            self.probes[task.prelude] = None
            self.parked[task.prelude] = [task]
            return [_Task(task.prelude, (), self.engine.time_limit)]
        probe = self.probes.get(task.prelude)
        if task.prelude in self.probes and probe is None:
            self.parked[task.prelude].append(task)
            return []
        if probe is not None and probe.outcome is Outcome.ERROR:
            # A prelude that crashes the verifier on its own will crash it in every half too.
            blame = probe if is_transient(probe) else Result(Outcome.ERROR, PRELUDE_BROKEN + probe.message)
            self._settle({item.key: blame for item in task.items if not item.program.checks})
            # a background check's answer is what a batch of its own says (its own text: proofs a harness leaves out)
            alone = [item for item in task.items if item.program.checks]
            return [_Task.alone(item, task.limit) for item in alone if len(task.items) > 1]
        return task.parts(2)

    def _settle(self, found: dict[str, Result]) -> None:
        found = dict(found)
        for key, result in list(found.items()):
            for twin in self.twins.get(key, []):
                found[twin] = replace(result, model="")
        cache = self.engine.cache
        for key, result in found.items():
            self.results[key] = result
            self.done += self.copies[key]
            if cache is not None and not is_transient(result):
                cache.put(key, result)
            flight = self.owned.get(key)
            if flight is not None:  # after the cache: a run beside it that asks it later finds it there
                flight.result = result
                flight.done.set()
        self.report()

    def settle_shared(self, key: str, result: Result) -> None:
        """`key`'s answer, from the run beside this one that verified it (and its plain twins'): cached there."""
        self.results[key] = result
        self.done += self.copies[key]
        self.settle_twins(key, result)
        self.report()

    def settle_twins(self, key: str, result: Result) -> None:
        """Answer the plain twins of `key` (a program wanting models) with its result, without models."""
        self._settle({twin: replace(result, model="") for twin in self.twins.get(key, [])})


def _within(slot: _Slot, allowance: Allowance, backend: Backend, task: _Task,
            wanted: frozenset[str]) -> dict[str, Result]:
    """`task` verified holding a verifier slot, within the allowance of its methods as it stands once the slot is
    taken (the batches before it have been charged by then): the programs of methods with nothing left are not
    asked, and the batch gets at most the seconds left (the largest of its methods', plus BUDGET_MARGIN)."""
    with slot:
        # a background check the batch holds is no method's: always asked, alone when the rest is not (and then
        # with no wall, as in a batch of its own); with the rest, in their budget's wall
        checked = [item.program for item in task.items if item.program.checks]
        ask, skip, seconds = allowance.open([item.program for item in task.items if not item.program.checks])
        out = {p.name: Result(Outcome.TIMEOUT, NOT_ASKED) for p in skip}
        if not ask and not checked:
            return out
        if not ask:
            return {**out, **{p.name: _check_alone(backend, task, p) for p in checked}}
        ask = [*checked, *ask]
        methods = [(p.name, p.method) for p in ask]
        models = frozenset(p.name for p in ask if p.name in wanted)
        # a background check riding along is verified first (its declarations come first in the file): its own
        # margin, so that the methods' programs get what they would get without it
        wall = None if seconds is None else max(0.0, seconds) + BUDGET_MARGIN * (2 if checked else 1)
        extra: dict[str, Any] = {} if wall is None else {"wall": wall}
        if checked:
            extra.update(checks=task.checks, background=checked[0].name)
        if models:
            found = backend.verify_batch(task.prelude, methods, task.limit, models, **extra)
        else:
            found = backend.verify_batch(task.prelude, methods, task.limit, **extra)
        # a batch stopped at the budget's wall: what it did not conclude was cut short by the budget. One killed at
        # the backend's own, lower limit hung: that is no budget's doing (its answers stay the backend's)
        killed = [name for name, r in found.items() if _at(killed_at(r), wall)]
        cut = bool(killed)
        if cut:  # each keeps the share of the batch's time the backend gave it (output.for_all)
            found = {**found, **{name: Result(Outcome.TIMEOUT, CUT_SHORT, found[name].seconds) for name in killed}}
        allowance.charge({p: found[p.name] for p in ask if p.name in found}, cut)
        for p in checked:
            if p.name in killed:  # the check is no method's: the methods' budget does not stop it, alone it goes on
                found[p.name] = _check_alone(backend, task, p)
        return {**out, **found}


def _check_alone(backend: Backend, task: _Task, program: Program) -> Result:
    """The background check `program` of `task` asked in a batch of its own, with no wall: it is no method's."""
    found = backend.verify_batch(task.prelude, [(program.name, program.method)], task.limit, checks=task.checks)
    return found.get(program.name, Result(Outcome.ERROR, NO_RESULT))


def _at(limit: float | None, wall: float | None) -> bool:
    """Whether a run killed at `limit` was stopped by the budget's `wall` (named to six digits, as `:g` writes it)."""
    return limit is not None and wall is not None and abs(limit - wall) <= 1e-4 * max(1.0, wall)


def _held(slot: _Slot, call: Callable[..., dict[str, Result]], *args: object,
          **kwargs: object) -> dict[str, Result]:
    """`call(*args, **kwargs)` holding one of the engine's verifier slots."""
    with slot:
        return call(*args, **kwargs)


def _outcomes(future: Future[dict[str, Result]]) -> tuple[dict[str, Result], Result]:
    """The backend's results, and the result of a name it left out.

    A backend that raised (a bug: it should not) fails its whole batch, transiently.
    """
    error = future.exception()
    if error is None:
        return future.result(), Result(Outcome.ERROR, NO_RESULT)
    return {}, Result(Outcome.ERROR, f"{CRASHED}{type(error).__name__}: {error}")
