"""bot.verifier.engine and bot.verifier.cache: an in-process fake backend for the planning, the real Dafny end to
end."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from bot.dafny.types import IntT
from bot.dafny.values import IntV
from bot.symbolic.counterexamples import decode
from bot.symbolic.program import Outcome, Program, Result
from bot.verifier import CRASHED, VerifierInfo, detect, is_transient, make_backend
from bot.verifier.cache import ResultCache
from bot.verifier.engine import PRELUDE_BROKEN, PROBE_NAME, Engine


class FakeBackend:
    """Verifies by keywords: BROKEN (in a method or the prelude) fails the whole file, REFUTE refutes,
    CRASH crashes the process, RAISE makes verify_batch raise (a bug)."""

    def __init__(self, delay: float = 0.0) -> None:
        self.info = VerifierInfo(("fake",), "1.0", 2)
        self.delay = delay
        self.calls: list[tuple[str, ...]] = []
        self.lock = threading.Lock()
        self.running = 0
        self.most_running = 0

    def flags_id(self, time_limit: int) -> str:
        return f"fake 1.0 /timeLimit:{time_limit}"

    def verify_batch(
        self, prelude: str, methods: Sequence[tuple[str, str]], time_limit: int
    ) -> dict[str, Result]:
        with self.lock:
            self.calls.append(tuple(name for name, _ in methods))
            self.running += 1
            self.most_running = max(self.most_running, self.running)
        try:
            time.sleep(self.delay)
            texts = [text for _, text in methods]
            if any("RAISE" in text for text in texts):
                raise RuntimeError("backend bug")
            if "BROKEN" in prelude or any("BROKEN" in text for text in texts):
                return {name: Result(Outcome.ERROR, "unresolved identifier") for name, _ in methods}
            if any("CRASH" in text for text in texts):
                return {name: Result(Outcome.ERROR, CRASHED + "exit code 134") for name, _ in methods}
            return {
                name: Result(Outcome.REFUTED if "REFUTE" in text else Outcome.VERIFIED, "", 0.1)
                for name, text in methods
            }
        finally:
            with self.lock:
                self.running -= 1


def programs(
    count: int, prelude: str = "function F(): int { 1 }", marks: dict[int, str] | None = None
) -> list[Program]:
    marks = marks or {}
    return [
        Program(prelude, f"SpecScore_h{i}", f"method SpecScore_h{i}() {{ /* {marks.get(i, '')} */ }}")
        for i in range(count)
    ]


def test_batches_respect_size_and_keep_every_worker_busy() -> None:
    backend = FakeBackend()
    Engine(backend, jobs=2, batch_size=40).run(programs(100))
    assert sorted(len(call) for call in backend.calls) == [33, 33, 34]

    backend = FakeBackend()
    Engine(backend, jobs=2, batch_size=40).run(programs(3))
    assert sorted(len(call) for call in backend.calls) == [1, 2]

    backend = FakeBackend()
    Engine(backend, jobs=1, batch_size=40).run(programs(41))
    assert sorted(len(call) for call in backend.calls) == [20, 21]


def test_a_slow_prelude_gets_small_batches_first() -> None:
    slow, quick = "function S(): int { 1 }", "function Q(): int { 2 }"
    engine = Engine(FakeBackend(), jobs=2, batch_size=40)
    engine.observe(slow, [Result(Outcome.TIMEOUT, "", 20.0), Result(Outcome.VERIFIED, "", 0.5)] * 2)  # 10.25 s each
    engine.observe(quick, [Result(Outcome.VERIFIED, "", 0.2)])
    backend = FakeBackend()
    engine.backend = backend
    engine.run(programs(9, prelude=quick) + programs(5, prelude=slow))
    # a slow prelude's batch holds about SLOW_BATCH_SECONDS (10 s) of its programs, at least one; slow ones first
    assert sorted(len(call) for call in backend.calls) == [1, 1, 1, 1, 1, 9]
    assert len(backend.calls[0]) == 1

    engine = Engine(FakeBackend(), jobs=2, batch_size=40)
    engine.observe(slow, [Result(Outcome.VERIFIED, "", 2.5)] * 4)
    backend = FakeBackend()
    engine.backend = backend
    engine.run(programs(5, prelude=slow))
    assert sorted(len(call) for call in backend.calls) == [2, 3]  # at most 10 // 2.5 == 4 per batch


def test_one_prelude_per_batch() -> None:
    backend = FakeBackend()
    mixed = programs(3, prelude="function A(): int { 1 }") + programs(3, prelude="function B(): int { 2 }")
    results = Engine(backend, jobs=1).run(mixed)
    assert sorted(len(call) for call in backend.calls) == [3, 3]
    assert {r.outcome for r in results.values()} == {Outcome.VERIFIED}


def test_workers_run_in_parallel() -> None:
    backend = FakeBackend(delay=0.2)
    Engine(backend, jobs=2).run(programs(10))
    assert backend.most_running == 2


def test_duplicates_are_verified_once() -> None:
    backend = FakeBackend()
    first = programs(1)[0]
    twin = Program(first.prelude, first.name, first.method)
    engine = Engine(backend, jobs=2)
    results = engine.run([first, twin, first])
    assert backend.calls == [(first.name,)]
    assert results[twin].outcome is Outcome.VERIFIED
    assert (engine.stats.programs, engine.stats.unique, engine.stats.verifier_runs) == (3, 1, 1)


def test_a_broken_program_is_isolated() -> None:
    backend = FakeBackend()
    batch = programs(8, marks={5: "BROKEN", 2: "REFUTE"})
    engine = Engine(backend, jobs=1)
    results = engine.run(batch)
    assert results[batch[5]] == Result(Outcome.ERROR, "unresolved identifier")
    assert results[batch[2]].outcome is Outcome.REFUTED
    assert all(results[p].outcome is Outcome.VERIFIED for i, p in enumerate(batch) if i not in (2, 5))
    # 8 fails, the prelude alone is fine, then bisection: 4+4, 2+2, 1+1.
    assert backend.calls[1] == (PROBE_NAME,)
    assert engine.stats.verifier_runs == len(backend.calls) == 8


def test_a_broken_prelude_is_blamed_without_bisecting(tmp_path: Path) -> None:
    backend = FakeBackend()
    cache = ResultCache(tmp_path)
    batch = programs(10, prelude="function F(): int { BROKEN }")
    results = Engine(backend, jobs=1, cache=cache).run(batch)
    assert backend.calls == [tuple(p.name for p in batch), (PROBE_NAME,)]
    for result in results.values():
        assert result == Result(Outcome.ERROR, PRELUDE_BROKEN + "unresolved identifier")
        assert not is_transient(result)
    assert cache.get(batch[0].key(backend.flags_id(20))) == results[batch[0]]


def test_a_backend_exception_fails_only_its_program(tmp_path: Path) -> None:
    backend = FakeBackend()
    cache = ResultCache(tmp_path)
    batch = programs(4, marks={1: "RAISE"})
    results = Engine(backend, jobs=1, cache=cache).run(batch)
    bad = results[batch[1]]
    assert bad.outcome is Outcome.ERROR and bad.message == CRASHED + "RuntimeError: backend bug"
    assert all(results[p].outcome is Outcome.VERIFIED for p in batch if p is not batch[1])
    assert cache.get(batch[1].key(backend.flags_id(20))) is None  # never cache a crash
    assert cache.get(batch[0].key(backend.flags_id(20))) is not None


def test_cache_answers_a_second_run(tmp_path: Path) -> None:
    batch = programs(6, marks={3: "REFUTE", 4: "CRASH"})
    first = Engine(FakeBackend(), jobs=2, cache=ResultCache(tmp_path))
    before = first.run(batch)
    assert first.stats.verifier_runs > 0 and first.stats.cache_hits == 0

    backend = FakeBackend()
    second = Engine(backend, jobs=2, cache=ResultCache(tmp_path))
    after = second.run(batch)
    # Everything but the crash comes from the cache; the crash alone is tried again.
    assert backend.calls == [(batch[4].name,)]
    assert second.stats.cache_hits == 5
    kept = [p for p in batch if p is not batch[4]]
    assert [after[p] for p in kept] == [before[p] for p in kept]

    other_limit = Engine(FakeBackend(), jobs=2, time_limit=5, cache=ResultCache(tmp_path))
    other_limit.run(batch)
    assert other_limit.stats.cache_hits == 0  # the flags are part of the key


def test_progress_reports_up_to_the_total(tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    batch = programs(12)
    cache = ResultCache(tmp_path)
    Engine(FakeBackend(), jobs=1, cache=cache, batch_size=5).run(batch[:4])
    engine = Engine(
        FakeBackend(), jobs=2, cache=cache, batch_size=5, progress=lambda d, t: seen.append((d, t))
    )
    engine.run(batch)
    assert seen[0] == (4, 12)  # cache hits count as done at once
    assert seen[-1] == (12, 12)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_nothing_to_do() -> None:
    engine = Engine(FakeBackend(), jobs=2)
    assert engine.run([]) == {}
    assert engine.stats.verifier_runs == 0


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError):
        Engine(FakeBackend(), jobs=0)


# ---------------------------------------------------------------------------------------------------
# ResultCache


def test_cache_round_trip_and_layout(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path)
    key = "ab" + "0" * 62
    assert cache.get(key) is None
    cache.put(key, Result(Outcome.REFUTED, "line 3: assertion violation", 1.5))
    assert cache.get(key) == Result(Outcome.REFUTED, "line 3: assertion violation", 1.5)
    assert (tmp_path / "ab" / f"{key}.json").is_file()
    assert [p.name for p in (tmp_path / "ab").iterdir()] == [f"{key}.json"]  # no temporary file left
    cache.put(key, Result(Outcome.VERIFIED))
    assert cache.get(key) == Result(Outcome.VERIFIED)


@pytest.mark.parametrize(
    "content",
    ["", "{not json", "[]", '{"format": 1}', '{"format": 1, "key": "x", "outcome": "verified"}'],
)
def test_cache_treats_damage_as_a_miss(tmp_path: Path, content: str) -> None:
    cache = ResultCache(tmp_path)
    key = "cd" + "1" * 62
    cache.path(key).parent.mkdir(parents=True)
    cache.path(key).write_text(content)
    assert cache.get(key) is None


def test_cache_refuses_keys_that_are_not_keys(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        ResultCache(tmp_path).get("../../etc/passwd")


# ---------------------------------------------------------------------------------------------------
# Real Dafny


@pytest.fixture(scope="module")
def dafny(dafny_command: str) -> VerifierInfo:
    """The real Dafny (conftest's dafny_command fails on CI when it is missing, skips elsewhere)."""
    return detect(dafny_command)


PRELUDE = "function F(x: int): int { x + 1 }\nmethod Spec(x: int) returns (y: int) ensures y == F(x)\n"


def real(name: str, body: str, prelude: str = PRELUDE) -> Program:
    return Program(prelude, name, f"method {name}() {{\n  {body}\n}}")


@pytest.mark.dafny
def test_real_engine_isolates_a_broken_program_then_caches(dafny: VerifierInfo, tmp_path: Path) -> None:
    batch = [
        real("SpecScore_h1", "assert F(1) == 2;"),
        real("SpecScore_h2", "assert F(1) == 3;"),
        real("SpecScore_h3", "assert G(1) == 2;"),
    ]
    engine = Engine(make_backend(dafny), jobs=1, time_limit=10, cache=ResultCache(tmp_path))
    results = engine.run(batch)
    assert [results[p].outcome for p in batch] == [Outcome.VERIFIED, Outcome.REFUTED, Outcome.ERROR]
    assert results[batch[1]].message == "line 5: assertion violation"
    assert "unresolved identifier: G" in results[batch[2]].message

    again = Engine(make_backend(dafny), jobs=2, time_limit=10, cache=ResultCache(tmp_path))
    assert again.run(batch) == results
    assert again.stats.verifier_runs == 0 and again.stats.cache_hits == 3


@pytest.mark.dafny
def test_real_engine_blames_a_broken_prelude(dafny: VerifierInfo) -> None:
    broken = PRELUDE + "function H(): int { Nope }\n"
    batch = [real(f"SpecScore_h{i}", "assert F(1) == 2;", broken) for i in range(3)]
    engine = Engine(make_backend(dafny), jobs=1, time_limit=10)
    results = engine.run(batch)
    assert engine.stats.verifier_runs == 2
    for result in results.values():
        assert result.outcome is Outcome.ERROR
        assert result.message.startswith(PRELUDE_BROKEN) and "Nope" in result.message


def test_a_verifier_that_cannot_run_is_not_bisected() -> None:
    class Unstartable(FakeBackend):
        def verify_batch(
            self, prelude: str, methods: Sequence[tuple[str, str]], time_limit: int
        ) -> dict[str, Result]:
            self.calls.append(tuple(name for name, _ in methods))
            return {
                name: Result(Outcome.ERROR, "verifier could not be started: no mono") for name, _ in methods
            }

    backend = Unstartable()
    results = Engine(backend, jobs=1).run(programs(9))
    assert len(backend.calls) == 2  # the batch, then the prelude alone
    assert all(is_transient(r) for r in results.values())


# ---------------------------------------------------------------------------------------------------
# Counterexample models


class ModelBackend(FakeBackend):
    """FakeBackend that also knows about models: a refuted method named in `models` gets one."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[frozenset[str] | None] = []

    def verify_batch(  # type: ignore[override]
        self, prelude: str, methods: Sequence[tuple[str, str]], time_limit: int, models: object = None
    ) -> dict[str, Result]:
        assert models is None or isinstance(models, frozenset)
        self.asked.append(models)
        results = super().verify_batch(prelude, methods, time_limit)
        return {
            name: replace(r, model=f"model of {name}") if models and name in models and "REFUTE" in text else r
            for (name, text), r in zip(methods, results.values(), strict=True)
        }


def test_programs_wanting_models_share_batches_and_get_them(tmp_path: Path) -> None:
    backend = ModelBackend()
    batch = programs(6, marks={1: "REFUTE", 2: "REFUTE", 3: "REFUTE"})
    batch = [replace(p, want_model=True) if i in (1, 2, 4) else p for i, p in enumerate(batch)]
    results = Engine(backend, jobs=1, cache=ResultCache(tmp_path)).run(batch)
    assert backend.calls == [tuple(p.name for p in batch)]  # still one batch
    assert backend.asked == [frozenset({batch[1].name, batch[2].name, batch[4].name})]
    assert [results[p].model for p in batch] == ["", f"model of {batch[1].name}", f"model of {batch[2].name}",
                                                  "", "", ""]
    # a second run reads the models back from the cache
    again = Engine(ModelBackend(), jobs=1, cache=ResultCache(tmp_path))
    assert again.run(batch) == results and again.stats.verifier_runs == 0


def test_backends_are_called_as_before_when_no_model_is_wanted() -> None:
    backend = ModelBackend()
    Engine(backend, jobs=1).run(programs(3))
    assert backend.asked == [None]


def test_a_program_asked_with_and_without_models_is_verified_once(tmp_path: Path) -> None:
    backend = ModelBackend()
    cache = ResultCache(tmp_path)
    plain = programs(3, marks={1: "REFUTE"})
    wanting = [replace(p, want_model=True) for p in plain]
    results = Engine(backend, jobs=1, cache=cache).run(plain + wanting)
    assert backend.calls == [tuple(p.name for p in plain)]  # no name twice in one file
    assert results[wanting[1]].model == f"model of {plain[1].name}"
    assert results[plain[1]] == replace(results[wanting[1]], model="")
    assert results[plain[0]] == results[wanting[0]] == Result(Outcome.VERIFIED, "", 0.1)
    # both went to the cache; the plain one without the model
    flags = backend.flags_id(20)
    assert cache.get(plain[1].key(flags)) == results[plain[1]]
    assert cache.get(wanting[1].key(flags)) == results[wanting[1]]

    # the model-wanting twin in the cache answers a new plain request, without a run
    cache2 = ResultCache(tmp_path / "second")
    Engine(ModelBackend(), jobs=1, cache=cache2).run(wanting)
    later = ModelBackend()
    engine = Engine(later, jobs=1, cache=cache2)
    both = engine.run(plain + wanting)
    assert later.calls == [] and engine.stats.verifier_runs == 0
    assert both[plain[1]].model == "" and both[wanting[1]].model != ""


def test_wanting_a_model_changes_the_key_only_when_true() -> None:
    p = Program("function F(): int { 1 }", "SpecScore_h", "method SpecScore_h() { }")
    h = hashlib.sha256()
    for part in ("fake 1.0 /timeLimit:20", p.text()):
        h.update(part.encode())
        h.update(b"\0")
    assert p.key("fake 1.0 /timeLimit:20") == h.hexdigest()  # what every cache entry was written under
    assert replace(p, want_model=False).key("v") == p.key("v")
    assert replace(p, want_model=True).key("v") != p.key("v")
    assert replace(p, want_model=True) != p


def test_cache_round_trip_of_models(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path)
    key = "ef" + "2" * 62
    with_model = Result(Outcome.REFUTED, "line 3: assertion violation", 1.5, model="*** MODEL\nr#0 -> 1003\n")
    cache.put(key, with_model)
    assert cache.get(key) == with_model
    # a result without a model is written as before: no "model" field
    cache.put(key, Result(Outcome.VERIFIED, "", 0.5))
    assert "model" not in json.loads(cache.path(key).read_text())
    # an entry written before models existed still reads
    cache.path(key).write_text(
        json.dumps({"format": 1, "key": key, "outcome": "refuted", "message": "m", "seconds": 2})
    )
    assert cache.get(key) == Result(Outcome.REFUTED, "m", 2.0)
    cache.path(key).write_text(
        json.dumps({"format": 1, "key": key, "outcome": "refuted", "message": "m", "seconds": 2, "model": 3})
    )
    assert cache.get(key) is None


PIN_RESULT = "r == x + 1 || r == x + 1000 + {k}"


def pin_program(k: int, spec: str, want_model: bool = True) -> Program:
    name = f"SpecScore_pin{k}"
    method = (
        f"method {name}(x: int) returns (r: int)\n  ensures r == {10 * k + 1}\n{{\n"
        f"  assume {{:axiom}} x == {10 * k};\n  assume {{:axiom}} {spec};\n  assert true;\n}}"
    )
    return Program(PRELUDE, name, method, want_model=want_model)


@pytest.mark.dafny
def test_real_engine_batches_pins_and_reads_each_model(dafny: VerifierInfo, tmp_path: Path) -> None:
    failing = [pin_program(k, PIN_RESULT.format(k=k)) for k in (1, 2, 4, 5, 7)]
    proved = [pin_program(k, "r == x + 1") for k in (3, 6)]
    quiet = pin_program(8, PIN_RESULT.format(k=8), want_model=False)
    batch = [failing[0], failing[1], proved[0], failing[2], quiet, failing[3], proved[1], failing[4]]
    engine = Engine(make_backend(dafny), jobs=1, time_limit=10, cache=ResultCache(tmp_path))
    results = engine.run(batch)
    assert engine.stats.verifier_runs == 1  # one file for all eight
    for p in proved:
        assert results[p].outcome is Outcome.VERIFIED and results[p].model == ""
    assert results[quiet].outcome is Outcome.REFUTED and results[quiet].model == ""
    for p in failing:
        k = int(p.name.removeprefix("SpecScore_pin"))
        assert results[p].outcome is Outcome.REFUTED
        assert decode(results[p].model, "r", IntT()) == IntV(10 * k + 1000 + k)  # its own model
    again = Engine(make_backend(dafny), jobs=1, time_limit=10, cache=ResultCache(tmp_path))
    assert again.run(batch) == results and again.stats.verifier_runs == 0


class LimitRecordingBackend(FakeBackend):
    def __init__(self) -> None:
        super().__init__()
        self.limits: list[tuple[int, tuple[str, ...]]] = []

    def verify_batch(self, prelude: str, methods: Sequence[tuple[str, str]], time_limit: int) -> dict[str, Result]:
        self.limits.append((time_limit, tuple(name for name, _ in methods)))
        return super().verify_batch(prelude, methods, time_limit)


def test_a_program_with_a_lower_time_limit_is_batched_apart_and_keyed_by_it(tmp_path: Path) -> None:
    backend = LimitRecordingBackend()
    engine = Engine(backend, jobs=1, time_limit=20, cache=ResultCache(tmp_path))
    plain = programs(3)
    short = [replace(p, name=p.name + "s", method=p.method.replace("SpecScore_h", "SpecScore_s"), time_limit=5)
             for p in programs(2)]
    capped = replace(programs(1)[0], name="SpecScore_c", method="method SpecScore_c() { }", time_limit=99)
    results = engine.run([*plain, *short, capped])
    assert all(r.outcome is Outcome.VERIFIED for r in results.values())
    by_limit = {limit: set(names) for limit, names in sorted(backend.limits)}
    # a limit above the engine's is the engine's: that program shares the batch of the plain ones
    assert by_limit == {5: {p.name for p in short}, 20: {*(p.name for p in plain), "SpecScore_c"}}
    # the cache key holds the limit: the same text with the engine's limit is another entry
    again = Engine(LimitRecordingBackend(), jobs=1, time_limit=20, cache=ResultCache(tmp_path))
    twin = replace(short[0], time_limit=None)
    again.run([twin])
    assert again.stats.cache_hits == 0
    assert again.limit_of(short[0]) == 5 and again.limit_of(twin) == 20
