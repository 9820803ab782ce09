"""Each spec file's rounds on their own, side by side, on an engine that takes runs at once (Engine.concurrent): a
file's next round does not wait for another file's slowest program, and the scores are those of the rounds in step.
A scripted engine: no verifier."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from bot.dafny.dialect import Dialect
from bot.dafny.parser import parse_file
from bot.dafny.values import IntV
from bot.symbolic.program import RUN_FINISHED, Outcome, Program, Result
from bot.symbolic.results import CaseStatus, MutantStatus
from bot.symbolic.rounds import MethodJob, ScoreOptions, Strategy, score_methods
from bot.testcases.cases import TestCase
from support.inc_spec import INC_SPEC

WAIT = 30.0  # seconds before a test fails instead of hanging

SPEC = INC_SPEC
# the other file: the same method beside a function of its own, so its programs are told apart by their prelude
OTHER = SPEC + "\nfunction Other(): int { 7 }\n"
OPTIONS = ScoreOptions(mutants=3, pin=False, strategy=Strategy.EACH)


def _goal_line(p: Program) -> int:
    lines = p.text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if line == "{" and i > len(p.prelude.splitlines()))


def _is_rejection(p: Program) -> bool:
    return "ensures !(" in p.method or "ensures (" in p.method and "==> !(" in p.method


def answer(p: Program) -> Result:
    """The spec is strong: it accepts x + 1 and rejects every other output (see test_rounds.py)."""
    if p.checks:
        return Result(Outcome.VERIFIED, RUN_FINISHED)
    refuted = Result(Outcome.REFUTED, f"line {_goal_line(p)}: postcondition violation")
    if "assert false;" in p.method:
        return refuted
    if "returns" not in p.method or "r := 6;" in p.method:
        return refuted if _is_rejection(p) else Result(Outcome.VERIFIED)
    return Result(Outcome.VERIFIED) if _is_rejection(p) else refuted


class Engine:
    def __init__(self, concurrent: bool, hold_other: bool = False) -> None:
        self.concurrent = concurrent
        self.jobs = 2
        self.lock = threading.Lock()
        self.runs: list[tuple[str, int]] = []  # per run: the file it is of, its harness programs
        self.hold_other = hold_other  # the other file's first run waits until this file has asked two rounds
        self.second_round = threading.Event()

    def run(self, programs: Sequence[Program]) -> dict[Program, Result]:
        of = "other" if all("Other()" in p.prelude for p in programs) else \
            "spec" if not any("Other()" in p.prelude for p in programs) else "both"
        with self.lock:
            self.runs.append((of, sum(not p.checks for p in programs)))
            if [f for f, _ in self.runs].count("spec") >= 2:
                self.second_round.set()
        if self.hold_other and of == "other":
            assert self.second_round.wait(WAIT), "the spec's second round waited for the other file's first"
        return {p: answer(p) for p in programs}


def jobs() -> list[MethodJob]:
    out = []
    for text, name in ((SPEC, "inc.dfy"), (OTHER, "other.dfy")):
        file = parse_file(text, name)
        method = file.find("Inc")
        assert method is not None
        out.append(MethodJob(file, method, (TestCase("c1", "Inc", (IntV(5),), (IntV(6),), source="t.dfy", line=1),)))
    return out


def test_a_file_s_next_round_does_not_wait_for_another_file_s_slowest_program() -> None:
    engine = Engine(concurrent=True, hold_other=True)
    scores = score_methods(jobs(), engine, Dialect.DAFNY2, OPTIONS)
    assert [c.status for s in scores for c in s.cases] == [CaseStatus.VERIFIED] * 2
    # no run mixed the files: each file's rounds went on their own, two each (the case's checks, its mutants)
    assert sorted(engine.runs) == [("other", 3), ("other", 3), ("spec", 3), ("spec", 3)]


def test_rounds_side_by_side_score_as_the_rounds_in_step() -> None:
    in_step = Engine(concurrent=False)
    side = Engine(concurrent=True)
    a = score_methods(jobs(), in_step, Dialect.DAFNY2, OPTIONS)
    b = score_methods(jobs(), side, Dialect.DAFNY2, OPTIONS)
    assert a == b
    assert [m.status for s in a for c in s.cases for m in c.mutants] == [MutantStatus.KILLED] * 6
    # in step, each round held both files' programs
    assert in_step.runs == [("both", 6), ("both", 6)]
    phases: list[str] = []
    score_methods(jobs(), Engine(concurrent=True), Dialect.DAFNY2, OPTIONS, on_phase=phases.append)
    assert phases == ["cases", "rejections"]  # a phase is shown once, when the first file reaches it


def many_jobs(count: int) -> list[MethodJob]:
    out = []
    for i in range(count):
        file = parse_file(SPEC + f"\nfunction Other{i}(): int {{ {i} }}\n", f"f{i}.dfy")
        method = file.find("Inc")
        assert method is not None
        out.append(MethodJob(file, method, (TestCase("c1", "Inc", (IntV(5),), (IntV(6),), source="t.dfy", line=1),)))
    return out


def test_a_failure_in_one_file_s_rounds_stops_every_other_file_s() -> None:
    class Failing(Engine):
        def run(self, programs: Sequence[Program]) -> dict[Program, Result]:
            if any("Other0()" in p.prelude for p in programs):
                raise RuntimeError("the rounds of f0.dfy broke")
            with self.lock:
                self.runs.append(("any", len(programs)))
            return {p: answer(p) for p in programs}

    engine = Failing(concurrent=True)
    try:
        score_methods(many_jobs(40), engine, Dialect.DAFNY2, OPTIONS)
    except RuntimeError as e:
        assert "f0.dfy broke" in str(e)
    else:
        raise AssertionError("the failure was not raised")
    # 8 files' rounds at once (4 per verifier process): only those begun beside the failing one asked anything,
    # a round at most each; not the 39 other files' two rounds
    assert len(engine.runs) <= 8, engine.runs
