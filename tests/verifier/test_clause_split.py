"""When the whole postcondition times out on the expected output, its clauses are asked one by one.

The programs each hold one `ensures` clause and its own hints; an array the program assigns (the test gives
its state after the call) is stated by its elements only (a whole literal of its old state made a multiset
clause time out, see bot/symbolic/harness/programs.py). All clauses proved is a proof of the conjunction; anything less
leaves the rejection to be asked as before. The real verifier checks the programs here; the rounds are in
tests/integration/test_rounds.py.
"""

from __future__ import annotations

import pytest

from bot.dafny.dialect import Dialect
from bot.dafny.parser import parse_file
from bot.dafny.values import ArrayV, IntV
from bot.symbolic.harness.programs import CaseHarness, HarnessError, HarnessOptions, make_prelude
from bot.symbolic.program import Goal, Outcome
from bot.testcases.cases import TestCase
from bot.verifier import detect, make_backend
from bot.verifier.engine import Engine

SPEC = """
method SwapEnds(a: array<int>, b: array<int>)
  requires a.Length >= 2 && b.Length >= 1
  modifies a
  ensures a[0] == old(a[a.Length - 1]) && a[a.Length - 1] == old(a[0])
  ensures multiset(a[..]) == multiset(old(a[..]))
  ensures forall i :: 0 <= i < b.Length ==> b[i] == a[0]
"""


def _harness(post: list[int]) -> CaseHarness:
    file = parse_file(SPEC, "swap.dfy")
    method = file.find("SwapEnds")
    assert method is not None
    case = TestCase("t", "SwapEnds", (ArrayV((IntV(1), IntV(2), IntV(3))), ArrayV((IntV(3),))), (),
                    post=((0, ArrayV(tuple(IntV(v) for v in post))),))
    return CaseHarness(make_prelude(file, Dialect.DAFNY2), file, method, case, HarnessOptions())


def _ensures(method: str) -> list[str]:
    return [line.strip() for line in method.splitlines() if line.strip().startswith("ensures")]


def test_one_clause_per_program_and_assigned_arrays_by_their_elements() -> None:
    h = _harness([3, 2, 1])
    whole = h.output(Goal.ACCEPT, (), h.case.post).program.method
    assert len(_ensures(whole)) == 3
    assert "a[..] == [1, 2, 3]" in whole and "b[..] == [3]" in whole
    for k, clause in enumerate(h.ens_texts):
        text = h.output(Goal.ACCEPT_CLAUSE, (), h.case.post, clause=k).program.method
        assert _ensures(text) == [f"ensures {clause}"]
        # `a` is assigned (its state after the call): by its elements only; `b` is not: its whole literal
        assert "a[..] == [" not in text and "a[0] == 1 && a[1] == 2 && a[2] == 3" in text
        assert "b[..] == [3]" in text
    with pytest.raises(HarnessError):
        h.output(Goal.ACCEPT_CLAUSE, (), h.case.post, clause=3)


def test_only_the_arrays_with_a_state_after_the_call_are_stated_by_elements() -> None:
    file = parse_file("""
method Copy(a: array<int>, ab: array<int>)
  modifies ab
  ensures ab[0] == a[0]
  ensures ab.Length == a.Length
""", "copy.dfy")
    method = file.find("Copy")
    assert method is not None
    one = ArrayV((IntV(7),))
    case = TestCase("t", "Copy", (one, ArrayV((IntV(0),))), (), post=((1, one),))
    h = CaseHarness(make_prelude(file, Dialect.DAFNY2), file, method, case, HarnessOptions())
    text = h.output(Goal.ACCEPT_CLAUSE, (), case.post, clause=0).program.method
    # `ab` has a state after the call, `a` has none
    assert "a[..] == [7]" in text and "ab[..] == [" not in text


@pytest.mark.dafny
def test_the_real_verifier_proves_each_clause_and_no_clause_of_a_wrong_output(dafny_command: str) -> None:
    info = detect(dafny_command)
    engine = Engine(make_backend(info, server=False), jobs=2, time_limit=20)
    right, wrong = _harness([3, 2, 1]), _harness([3, 2, 2])
    asked = {(name, k): h.output(Goal.ACCEPT_CLAUSE, (), h.case.post, clause=k)
             for name, h in (("right", right), ("wrong", wrong)) for k in range(3)}
    results = engine.run([p.program for p in asked.values()])
    outcome = {key: results[p.program].outcome for key, p in asked.items()}
    assert [outcome["right", k] for k in range(3)] == [Outcome.VERIFIED] * 3, outcome
    # [3, 2, 2]: the last element is not the old first one, and the multiset lost a 1
    assert outcome["wrong", 0] is not Outcome.VERIFIED and outcome["wrong", 1] is not Outcome.VERIFIED
    assert outcome["wrong", 2] is Outcome.VERIFIED  # a[0] is still 3
    # a clause proved false is a proof of rejection (asked, with the full limit, when the whole may time out)
    refute = {name: h.output(Goal.REJECT_CLAUSE, (), h.case.post, clause=0) for name, h in (("right", right),
                                                                                         ("wrong", wrong))}
    results = engine.run([p.program for p in refute.values()])
    assert results[refute["wrong"].program].outcome is Outcome.VERIFIED
    assert results[refute["right"].program].outcome is not Outcome.VERIFIED
