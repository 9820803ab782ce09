"""The questions after a spec file's rounds (its suggestions, what its specs say on every input) follow that file's
rounds as soon as they are over, on an engine that takes runs side by side: they fill the verifier slots another
file's last rounds leave idle, and the scores are those of the stages after every file's rounds. A scripted engine:
no verifier."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import pytest
from integration.test_rounds_side_by_side import OPTIONS, SPEC, WAIT, _is_rejection, answer, jobs, many_jobs

from bot.dafny.dialect import Dialect
from bot.dafny.parser import parse_file
from bot.dafny.values import IntV
from bot.symbolic.everywhere import PREFIX
from bot.symbolic.program import Outcome, Program, Result
from bot.symbolic.results import EverywhereStatus, MethodScore
from bot.symbolic.rounds import MethodJob, ScoreOptions, Strategy
from bot.symbolic.suggest import search
from bot.symbolic.suggest.search import score_suggest_everywhere
from bot.symbolic.suggest.templates import Candidate
from bot.testcases.cases import TestCase


class Engine:
    def __init__(self, concurrent: bool, hold_other: bool = False) -> None:
        self.concurrent = concurrent
        self.jobs = 2
        self.lock = threading.Lock()
        self.runs: list[tuple[str, str]] = []  # per run: the file it is of, and what it asks (rounds or every input)
        self.hold_other = hold_other  # the other file's rounds wait until the spec's questions on every input are asked
        self.spec_everywhere = threading.Event()

    def run(self, programs: Sequence[Program]) -> dict[Program, Result]:
        of = "other" if all("Other()" in p.prelude for p in programs) else \
            "spec" if not any("Other()" in p.prelude for p in programs) else "both"
        what = "every input" if all(p.name.startswith(PREFIX) for p in programs) else "rounds"
        with self.lock:
            self.runs.append((of, what))
            if (of, what) == ("spec", "every input"):
                self.spec_everywhere.set()
        if self.hold_other and (of, what) == ("other", "rounds"):
            assert self.spec_everywhere.wait(WAIT), "the spec's questions on every input waited for the other's rounds"
        return {p: answer(p) for p in programs}


def test_a_file_s_questions_on_every_input_do_not_wait_for_another_file_s_rounds() -> None:
    engine = Engine(concurrent=True, hold_other=True)
    phases: list[str] = []
    scores = score_suggest_everywhere(jobs(), engine, Dialect.DAFNY2, OPTIONS, on_phase=phases.append)
    assert [s.everywhere is not None and s.everywhere.status is not EverywhereStatus.UNKNOWN for s in scores] == \
        [True, True], [s.everywhere for s in scores]
    # the spec's questions were asked before the other file's first round; the other's after its own rounds
    assert engine.runs.index(("spec", "every input")) < engine.runs.index(("other", "rounds"))
    assert engine.runs[-1] == ("other", "every input")
    assert phases.count("every input") == 1  # a stage is shown once, when the first file reaches it


def test_the_stages_per_file_give_the_scores_of_the_stages_after_every_file() -> None:
    in_step = Engine(concurrent=False)
    side = Engine(concurrent=True)
    a = score_suggest_everywhere(jobs(), in_step, Dialect.DAFNY2, OPTIONS)
    b = score_suggest_everywhere(jobs(), side, Dialect.DAFNY2, OPTIONS)
    assert a == b
    # in step, the questions on every input come once, for both files, after both files' rounds
    assert in_step.runs[-1] == ("both", "every input")
    assert ("both", "every input") not in side.runs


class Plain:
    concurrent = True
    jobs = 2

    def run(self, programs: Sequence[Program]) -> dict[Program, Result]:
        return {p: answer(p) for p in programs}


def test_an_external_suggester_is_asked_one_call_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "weak", lambda s: True)  # every method worth a suggestion: the suggester is asked
    lock = threading.Lock()
    going, most, asked = [0], [0], []

    def more(job: MethodJob, score: MethodScore) -> Sequence[Candidate]:
        with lock:
            going[0] += 1
            most[0] = max(most[0], going[0])
            asked.append(job.file.path)
        time.sleep(0.05)
        with lock:
            going[0] -= 1
        return []

    score_suggest_everywhere(many_jobs(4), Plain(), Dialect.DAFNY2, OPTIONS, more=more)
    assert sorted(asked) == [f"f{i}.dfy" for i in range(4)]
    assert most[0] == 1  # each file's stages in a thread of their own, the command still one call at a time


def test_a_failure_beside_stops_the_suggester_calls_still_to_come(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "weak", lambda s: True)
    first = threading.Event()
    asked: list[str] = []

    class Failing(Plain):
        def run(self, programs: Sequence[Program]) -> dict[Program, Result]:
            if any("Other3()" in p.prelude for p in programs):  # the last file's rounds break during the first call
                assert first.wait(WAIT)
                raise RuntimeError("the last file's rounds broke")
            return super().run(programs)

    def more(job: MethodJob, score: MethodScore) -> Sequence[Candidate]:
        asked.append(job.file.path)
        first.set()
        time.sleep(0.3)  # a command taking its time: the failure comes meanwhile
        return []

    with pytest.raises(RuntimeError, match="rounds broke"):
        score_suggest_everywhere(many_jobs(4), Failing(), Dialect.DAFNY2, OPTIONS, more=more)
    assert len(asked) == 1, asked  # the calls waiting for it were stopped, not asked


class Mixed:
    """Weak files (`Weak` in the prelude) accept wrong outputs; every program takes 4 s of a budget."""

    jobs = 2

    def __init__(self, concurrent: bool) -> None:
        self.concurrent = concurrent

    def run(self, programs: Sequence[Program]) -> dict[Program, Result]:
        out = {}
        for p in programs:
            r = answer(p)
            if "Weak" in p.prelude and _is_rejection(p) and not p.checks:
                r = Result(Outcome.REFUTED, "line 1: postcondition violation")
            out[p] = Result(r.outcome, r.message, seconds=4.0)
        return out


@pytest.mark.parametrize("budget", [None, 10])
def test_per_file_stages_score_a_mix_as_the_stages_after_every_file(budget: int | None) -> None:
    # tested and untested files, two equal files of each, weak methods (suggestions), and a budget the rounds spend
    def case(n: int) -> TestCase:
        return TestCase("c1", "Inc", (IntV(n),), (IntV(n + 1),), source="t.dfy", line=1)

    texts = [("a.dfy", SPEC, (case(5),)), ("b.dfy", SPEC, (case(5),)),
             ("c.dfy", SPEC + "\nfunction Weak(): int { 1 }\n", (case(5), case(7))),
             ("d.dfy", SPEC + "\nfunction U(): int { 2 }\n", ()), ("e.dfy", SPEC + "\nfunction U(): int { 2 }\n", ()),
             ("f.dfy", SPEC + "\nfunction Weak2(): int { 1 }\n", (case(1),))]
    made = []
    for name, text, cases in texts:
        file = parse_file(text, name)
        method = file.find("Inc")
        assert method is not None
        made.append(MethodJob(file, method, cases))
    options = ScoreOptions(mutants=3, pin=True, strategy=Strategy.LEAN, budget=budget)
    a = score_suggest_everywhere(made, Mixed(concurrent=False), Dialect.DAFNY2, options)
    b = score_suggest_everywhere(made, Mixed(concurrent=True), Dialect.DAFNY2, options)
    assert a == b
    assert all(s.everywhere is not None for s in a)
    assert any(s.slow for s in a) is (budget is not None)


def test_a_file_s_own_stage_failing_stops_its_suggester_call_waiting_for_another_s(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.symbolic import everywhere_run

    monkeypatch.setattr(search, "weak", lambda s: True)
    first = threading.Event()
    lock = threading.Lock()
    started: list[str] = []

    def more(job: MethodJob, score: MethodScore) -> Sequence[Candidate]:
        with lock:
            started.append(job.file.path)
        first.set()
        time.sleep(0.5)  # the other file's call holds the suggester meanwhile
        return []

    real = everywhere_run.with_everywhere

    def with_everywhere(part: Sequence[MethodJob], scores: Sequence[MethodScore], through: object,
                        dialect: Dialect) -> list[MethodScore]:
        assert first.wait(WAIT)
        with lock:
            waiting = part[0].file.path not in started
        if waiting:  # this file's suggestions wait for the other's call: its own stage beside them fails
            raise RuntimeError(f"every input of {part[0].file.path} broke")
        return real(part, scores, through, dialect)  # type: ignore[arg-type]

    monkeypatch.setattr(everywhere_run, "with_everywhere", with_everywhere)
    with pytest.raises(RuntimeError, match="every input of"):
        score_suggest_everywhere(many_jobs(2), Plain(), Dialect.DAFNY2, OPTIONS, more=more)
    assert len(started) == 1, started  # the failed file's call was never made
