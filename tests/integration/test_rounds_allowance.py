"""The rounds on the real engine with a method's budget (bot/symbolic/allowance.py): the budget stops a round in the
middle, not only between rounds, and what it stopped is unknown, never a verdict. The backend answers Inc's programs
as the verifier would, each taking a set time, and honours a batch's wall-clock limit as a verifier process's is."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import replace

from bot.dafny.dialect import Dialect
from bot.dafny.parser import parse_file
from bot.dafny.values import IntV
from bot.symbolic.allowance import CUT_SHORT, NOT_ASKED
from bot.symbolic.everywhere_run import EVERYWHERE_SHARE
from bot.symbolic.ledger import Ledger
from bot.symbolic.program import RUN_FINISHED, Outcome, Program, Result
from bot.symbolic.results import CaseStatus, MethodScore, MutantStatus
from bot.symbolic.rounds import BUDGET_NOTE, MethodJob, ScoreOptions, Strategy, score_methods
from bot.symbolic.suggest.search import SUGGESTION_SHARE, score_suggest_everywhere
from bot.testcases.cases import TestCase
from bot.verifier import VerifierInfo
from bot.verifier.engine import BUDGET_MARGIN, Engine
from bot.verifier.process import KILLED
from support.inc_spec import INC_SPEC, case, inc_answer, job

EACH3 = ScoreOptions(mutants=3, pin=True, strategy=Strategy.EACH)  # one program per question (test_rounds.py's)


class AnsweringBackend:
    """Answers each method with `inc_answer(seconds)`; past a batch's `wall`, what is left is not concluded."""

    def __init__(self, seconds: float) -> None:
        self.info = VerifierInfo(("fake",), "1.0", 2)
        self.answer = inc_answer(seconds)
        self.asked: list[str] = []
        self.order: list[str] = []  # the texts of the first batch's methods, in the order asked
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
        if not self.order:
            self.order = [text for _, text in methods]
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


# From the hostile review: a method beside a slow one in its file, and a pull request's head beside its base


TWO = INC_SPEC + """
method Slow(x: int) returns (r: int)
  ensures r == x * x * x
{
  r := x * x * x;
}
"""


class TwoMethodBackend(AnsweringBackend):
    """Inc's programs at 1 s each; Slow's (inputs 12 to 19) time out at 20 s each."""

    def __init__(self) -> None:
        super().__init__(1.0)

    def verify_batch(self, prelude: str, methods: Sequence[tuple[str, str]], time_limit: int,
                     models: Collection[str] = frozenset(), *, checks: Sequence[str] = (),
                     wall: float | None = None) -> dict[str, Result]:
        slow = [(n, t) for n, t in methods if re.search(r"x == 1[2-9]\b", t)]
        if checks or not slow:
            return super().verify_batch(prelude, methods, time_limit, models, checks=checks, wall=wall)
        out: dict[str, Result] = {}
        clock = 0.0
        for name, text in methods:
            cost = 20.0 if (name, text) in slow else 1.0
            if wall is not None and clock + cost > wall:
                out[name] = Result(Outcome.TIMEOUT, f"{KILLED}{wall:g} s", wall)
                continue
            clock += cost
            out[name] = Result(Outcome.TIMEOUT, "", cost) if cost > 1 else \
                super().verify_batch(prelude, [(name, text)], time_limit, models)[name]
        return out


def test_a_method_beside_a_slow_one_in_its_file_keeps_its_own_budget() -> None:
    file = parse_file(TWO, "two.dfy")
    inc, slow = file.find("Inc"), file.find("Slow")
    assert inc is not None and slow is not None
    inc_job = MethodJob(file, inc, tuple(TestCase(f"i{k}", "Inc", (IntV(x),), (IntV(x + 1),), source="t.dfy", line=1)
                                         for k, x in enumerate((5, 9))))
    slow_job = MethodJob(file, slow, tuple(TestCase(f"s{k}", "Slow", (IntV(x),), (IntV(x ** 3),), source="t.dfy",
                                                    line=1) for k, x in enumerate(range(12, 20))))
    options = replace(EACH3, budget=120)
    (alone,) = score_methods([inc_job], Engine(TwoMethodBackend(), jobs=1, batch_size=40), Dialect.DAFNY2, options)
    beside, spent = score_methods([inc_job, slow_job], Engine(TwoMethodBackend(), jobs=1, batch_size=40),
                                  Dialect.DAFNY2, options)
    assert spent.slow and not beside.slow
    assert not any(BUDGET_NOTE in c.note for c in beside.cases)
    assert [c.status for c in beside.cases] == [c.status for c in alone.cases] == [CaseStatus.VERIFIED] * 2
    assert [m.status for c in beside.cases for m in c.mutants] == [m.status for c in alone.cases for m in c.mutants]


def test_a_pull_requests_head_and_base_of_an_unchanged_method_agree() -> None:
    """The same text at head and base, scored side by side in one call as the Action does: every program of one is
    the other's, awaited or asked again when the other's budget left it unasked, and charged to each alike."""
    def inc_job(path: str) -> MethodJob:
        file = parse_file(INC_SPEC, path)
        method = file.find("Inc")
        assert method is not None
        return MethodJob(file, method, tuple(case(f"c{k}", *((5, 6), (9, 10))[k % 2]) for k in range(2)))

    def summary(score: MethodScore) -> list[tuple[CaseStatus, tuple[MutantStatus, ...], bool]]:
        return [(c.status, tuple(m.status for m in c.mutants), BUDGET_NOTE in c.note) for c in score.cases]

    options = replace(EACH3, budget=150)
    (alone,) = score_methods([inc_job("inc.dfy")], Engine(AnsweringBackend(20.0), jobs=1, batch_size=1),
                             Dialect.DAFNY2, options)
    head, base = score_methods([inc_job("inc.dfy"), inc_job("inc.dfy")],
                               Engine(AnsweringBackend(20.0), jobs=1, batch_size=1), Dialect.DAFNY2, options)
    assert summary(head) == summary(base) == summary(alone)


def test_the_stages_after_the_rounds_spend_shares_of_their_own() -> None:
    """The suggestions' rescorings and the questions on every input go side by side: each spends its own share of what
    the rounds left (SUGGESTION_SHARE, EVERYWHERE_SHARE), so what one spends never changes what the other may ask,
    and the method's ledger stays as the rounds left it."""
    assert SUGGESTION_SHARE + EVERYWHERE_SHARE <= 1
    options = replace(EACH3, budget=60)
    (rounds_only,) = score_methods([job(case("c1", 5, 6))], Engine(AnsweringBackend(1.0), jobs=1), Dialect.DAFNY2,
                                   options)
    (staged,) = score_suggest_everywhere([job(case("c1", 5, 6))], Engine(AnsweringBackend(1.0), jobs=1),
                                         Dialect.DAFNY2, options)
    assert rounds_only.ledger is not None and staged.ledger is not None
    assert staged.ledger.left == rounds_only.ledger.left < 60
    ledger = Ledger(9.0)
    part = ledger.share(EVERYWHERE_SHARE)
    part.charge(3.0)
    assert ledger.left == 9.0 and part.left == 0.0


class EverythingProves(AnsweringBackend):
    """Contradictory assumptions: every program verifies (the vacuity check's `assert false` too), each in 10 s."""

    def __init__(self) -> None:
        super().__init__(10.0)
        self.answer = lambda p: Result(Outcome.VERIFIED, "", 10.0)


def test_a_vacuity_check_the_budget_left_unasked_leaves_the_case_unknown_never_verified() -> None:
    """From the second hostile review: within a budget a round's programs go over batches the budget may stop, and an
    acceptance proved beside an unasked vacuity check may rest on contradictory assumptions: unknown, not verified."""
    (plenty,) = score_methods([job(case("c1", 5, 6))], Engine(EverythingProves(), jobs=1, batch_size=1),
                              Dialect.DAFNY2, replace(EACH3, budget=10_000))
    assert [c.status for c in plenty.cases] == [CaseStatus.VACUOUS]
    for budget in range(5, 80, 5):
        for size in (1, 2, 3):
            (score,) = score_methods([job(case("c1", 5, 6))], Engine(EverythingProves(), jobs=1, batch_size=size),
                                     Dialect.DAFNY2, replace(EACH3, budget=budget))
            assert score.cases[0].status in (CaseStatus.VACUOUS, CaseStatus.UNKNOWN), (budget, size)


def test_within_a_budget_the_smallest_cases_are_asked_first_each_case_together() -> None:
    """The rounds hand a budgeted engine the method's cases smallest first (the largest inputs cost the most), each
    case's programs together and in its own order."""
    backend = AnsweringBackend(1.0)
    cases = [case("big", 123456789, 123456790), case("small", 5, 6)]
    score_methods([job(*cases)], Engine(backend, jobs=1, batch_size=40), Dialect.DAFNY2, replace(EACH3, budget=1000))
    big = ["123456789" in text for text in backend.order]
    assert big and not big[0] and big[-1]
    assert big == sorted(big)  # the small case's programs, then the big one's, each together
