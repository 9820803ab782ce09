"""What the scoring rounds tell the progress line after each round (score_methods' `on_round`), with an engine that
answers each program by evaluating it: its input is fixed by `assume`, its output assigned, so a program verifies
exactly when its `ensures` hold of those values. The counts must match the scores, and the scores must not change."""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.dafny.dialect import Dialect
from bot.dafny.parser import parse_file
from bot.dafny.values import IntV
from bot.progress import MethodTally, Tally
from bot.symbolic.program import RUN_FINISHED, Outcome, Program, Result
from bot.symbolic.results import CaseStatus, MutantStatus
from bot.symbolic.rounds import MethodJob, ScoreOptions, Strategy, score_methods
from bot.testcases.cases import TestCase
from support.inc_spec import INC_SPEC

SPEC = INC_SPEC


def _python(clause: str) -> str:
    return clause.replace("&&", " and ").replace("!(", " not (")


class Evaluating:
    """Verifies a program when its postconditions hold of its fixed input and assigned output."""

    def __init__(self) -> None:
        self.runs = 0

    def answer(self, p: Program) -> Result:
        if p.checks:
            return Result(Outcome.VERIFIED, RUN_FINISHED)
        text = p.method
        where = {"x": int(re.search(r"x == (-?\d+);", text).group(1))}  # type: ignore[union-attr]
        assigned = re.search(r"r := (-?\d+);", text)
        if assigned:
            where["r"] = int(assigned.group(1))
        holds = "assert false;" not in text and all(
            eval(_python(m), {}, dict(where)) for m in re.findall(r"^  ensures (.*)$", text, re.M))  # noqa: S307
        line = next(i for i, t in enumerate(p.text().splitlines(), 1) if t == "{" and i > len(p.prelude.splitlines()))
        return Result(Outcome.VERIFIED) if holds else Result(Outcome.REFUTED, f"line {line}: postcondition violation")

    def run(self, programs: Sequence[Program]) -> dict[Program, Result]:
        self.runs += 1
        return {p: self.answer(p) for p in programs}


def _jobs() -> list[MethodJob]:
    out = []
    for path in ("a.dfy", "b.dfy"):
        file = parse_file(SPEC, path)
        method = file.find("Inc")
        assert method is not None
        right = TestCase("right", "Inc", (IntV(5),), (IntV(6),), source="t.dfy", line=1)
        wrong = TestCase("wrong", "Inc", (IntV(10),), (IntV(12),), source="t.dfy", line=2)
        out.append(MethodJob(file, method, (right, wrong) if path == "a.dfy" else (right,)))
    return out


OPTIONS = ScoreOptions(mutants=3, pin=False, strategy=Strategy.EACH)


def test_each_round_tells_what_is_done_and_the_last_what_the_scores_say() -> None:
    seen: list[list[MethodTally]] = []
    phases: list[str] = []
    engine = Evaluating()
    scores = score_methods(_jobs(), engine, Dialect.DAFNY2, OPTIONS, phases.append, seen.append)
    # a right case and a wrong one: the evaluating engine proves what is true of them
    assert [c.status for c in scores[0].cases] == [CaseStatus.VERIFIED, CaseStatus.REFUTED]
    assert len(seen) == engine.runs + 1 == len(phases) + 1  # before the first round, and after each
    first, last = Tally.of(seen[0]), Tally.of(seen[-1])
    assert (first.methods, first.cases, first.finished, first.methods_done, first.files_done) == (2, 3, 0, 0, 0)
    assert (last.methods_done, last.files_done, last.finished) == (2, 2, 3)
    mutants = [m.status for s in scores for c in s.cases for m in c.mutants]
    assert last.killed == mutants.count(MutantStatus.KILLED) > 0
    assert last.survived == mutants.count(MutantStatus.SURVIVED)
    assert (last.rejecting, last.wrong) == (1, 1)
    # a case counts once its result is final: the right cases after their mutants' round, the wrong one after
    # the round that names its rejecting clause
    assert [Tally.of(t).finished for t in seen] == [0, 0, 2, 3]
    assert [Tally.of(t).files_done for t in seen] == [0, 0, 1, 2]


def test_the_scores_are_the_same_with_and_without_progress() -> None:
    quiet = score_methods(_jobs(), Evaluating(), Dialect.DAFNY2, OPTIONS)
    followed = score_methods(_jobs(), Evaluating(), Dialect.DAFNY2, OPTIONS, lambda _: None, lambda _: None)
    assert quiet == followed
