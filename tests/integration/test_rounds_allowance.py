"""The rounds on the real engine with a method's budget (bot/symbolic/allowance.py): the budget stops a round in the
middle, not only between rounds, and what it stopped is unknown, never a verdict. The backend answers Inc's programs
as the verifier would, each taking a set time, and honours a batch's wall-clock limit as a verifier process's is."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace

from bot.dafny.dialect import Dialect
from bot.symbolic.allowance import CUT_SHORT, NOT_ASKED
from bot.symbolic.program import RUN_FINISHED, Outcome, Program, Result
from bot.symbolic.results import CaseStatus, MutantStatus
from bot.symbolic.rounds import BUDGET_NOTE, ScoreOptions, Strategy, score_methods
from bot.verifier import VerifierInfo
from bot.verifier.engine import BUDGET_MARGIN, Engine
from bot.verifier.process import KILLED
from support.inc_spec import case, inc_answer, job

EACH3 = ScoreOptions(mutants=3, pin=True, strategy=Strategy.EACH)  # one program per question (test_rounds.py's)


class AnsweringBackend:
    """Answers each method with `inc_answer(seconds)`; past a batch's `wall`, what is left is not concluded."""

    def __init__(self, seconds: float) -> None:
        self.info = VerifierInfo(("fake",), "1.0", 2)
        self.answer = inc_answer(seconds)
        self.asked: list[str] = []
        self.spent = 0.0

    def flags_id(self, time_limit: int) -> str:
        return f"fake /timeLimit:{time_limit}"

    def verify_batch(self, prelude: str, methods: Sequence[tuple[str, str]], time_limit: int,
                     models: Collection[str] = frozenset(), *, checks: Sequence[str] = (),
                     wall: float | None = None) -> dict[str, Result]:
        if checks:  # the background check
            return {name: Result(Outcome.VERIFIED, RUN_FINISHED) for name, _ in methods}
        out: dict[str, Result] = {}
        clock = 0.0
        for name, text in methods:
            result = self.answer(Program(prelude, name, text, want_model=name in models))
            if wall is not None and clock + result.seconds > wall:
                out[name] = Result(Outcome.TIMEOUT, f"{KILLED}{wall:g} s", wall)
                continue
            clock += result.seconds
            self.asked.append(name)
            self.spent += result.seconds
            out[name] = result
        return out


def test_a_round_stops_where_the_budget_runs_out_and_what_it_stopped_is_unknown() -> None:
    """Each program takes 30 s, the budget is 60 s: the first round (four cases' checks, 360 s and more) stops after
    the programs that fit, instead of running to its end as between rounds only. Nothing it stopped is a verdict:
    no case is refuted, no mutant killed or surviving, and every case not decided says why."""
    backend = AnsweringBackend(30.0)
    cases = [case(f"c{k}", *((5, 6), (9, 10))[k % 2]) for k in range(4)]
    (score,) = score_methods([job(*cases)], Engine(backend, jobs=1, batch_size=1), Dialect.DAFNY2,
                             replace(EACH3, budget=60))
    assert backend.spent <= 60 + 30  # the budget, and at most the one program that began within it
    assert len(backend.asked) <= 3
    assert score.slow
    assert all(c.status in (CaseStatus.VERIFIED, CaseStatus.UNKNOWN) for c in score.cases)
    assert any(c.status is CaseStatus.UNKNOWN for c in score.cases)
    assert all(m.status is MutantStatus.UNKNOWN for c in score.cases for m in c.mutants)
    assert all(BUDGET_NOTE in c.note for c in score.cases if c.status is CaseStatus.UNKNOWN)


def test_a_batch_begun_within_the_budget_is_cut_at_it() -> None:
    """One batch of every first-round program (batch size 40): it is given the budget and the margin, so it ends
    there with what it concluded, and the rest is cut short (unknown), not run to the end."""
    backend = AnsweringBackend(30.0)
    cases = [case(f"c{k}", 5, 6) for k in range(3)]
    (score,) = score_methods([job(*cases)], Engine(backend, jobs=1, batch_size=40), Dialect.DAFNY2,
                             replace(EACH3, budget=60))
    assert backend.spent <= 60 + BUDGET_MARGIN
    assert score.slow and all(c.status in (CaseStatus.VERIFIED, CaseStatus.UNKNOWN) for c in score.cases)
    assert any(BUDGET_NOTE in c.note for c in score.cases)


def test_within_the_budget_the_real_engine_scores_in_full() -> None:
    backend = AnsweringBackend(1.0)
    (score,) = score_methods([job(case("c1", 5, 6), case("c2", 9, 10))], Engine(backend, jobs=1), Dialect.DAFNY2,
                             replace(EACH3, budget=60))
    assert not score.slow
    assert [c.status for c in score.cases] == [CaseStatus.VERIFIED, CaseStatus.VERIFIED]
    assert all(m.status is MutantStatus.KILLED for c in score.cases for m in c.mutants)
    assert not any(BUDGET_NOTE in c.note or NOT_ASKED in c.note or CUT_SHORT in c.note for c in score.cases)
