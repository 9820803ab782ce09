"""Determinacy on every input, the pure parts: what is asked, what each answer proves, and what is never said."""

from __future__ import annotations

from bot.dafny.dialect import Dialect
from bot.dafny.parser import parse_file
from bot.symbolic.everywhere import Goal, Shown, goals, judged, program, unsupported
from bot.symbolic.everywhere_run import from_tests, shown_consistent
from bot.symbolic.program import Outcome, Result
from bot.symbolic.results import CaseResult, CaseStatus, EverywhereStatus, MutantResult, MutantStatus, method_score

SPECS = """
method Abs(x: int) returns (r: int)
  ensures x >= 0 ==> r == x

method Find(a: array<int>, x: int) returns (i: int)
  requires a.Length > 0
  ensures 0 <= i < a.Length ==> a[i] == x

method Fill(a: array<int>)
  modifies a
  ensures forall k :: 0 <= k < a.Length ==> a[k] == 0

method Grow(a: array<int>) returns (b: array<int>)
  ensures b.Length > a.Length

method Step(a: array<int>) returns (r: int)
  ensures r == old(a[0])

method Keep(s: seq<int>) returns (r: seq<int>)
  ensures multiset(r) == multiset(s)
"""
FILE = parse_file(SPECS, "specs.dfy")


def test_what_is_asked_and_what_is_not_supported_yet() -> None:
    assert unsupported(FILE.find("Abs")) == "" and goals(FILE.find("Abs")) == [Goal.CONSISTENT, Goal.EXACT]  # type: ignore[arg-type]
    assert unsupported(FILE.find("Find")) == ""  # an array read in the one heap both copies share
    assert "no outputs" in unsupported(FILE.find("Fill"))  # type: ignore[arg-type]
    assert "holds arrays" in unsupported(FILE.find("Grow"))  # type: ignore[arg-type]
    assert "`old`" in unsupported(FILE.find("Step"))  # type: ignore[arg-type]
    assert goals(FILE.find("Keep")) == [Goal.CONSISTENT, Goal.EXACT, Goal.MULTISET, Goal.SET]  # type: ignore[arg-type]


def test_the_program_states_the_spec_twice_by_predicates_and_asks_one_question() -> None:
    find = FILE.find("Find")
    assert find is not None
    text = program("", find, Goal.EXACT, Dialect.DAFNY4).method
    assert "_Pre(a: array<int>, x: int) reads a { (a.Length > 0) }" in text
    assert "_Post(a: array<int>, x: int, i: int) reads a requires " in text
    assert "{ (0 <= i < a.Length ==> a[i] == x) }" in text
    assert "ensures SpecScore_o1_i == SpecScore_o2_i" in text
    assert "SpecScore_Everywhere_seen_a := a[..];" in text  # so the counterexample holds its contents
    keep = FILE.find("Keep")
    assert keep is not None
    assert "ensures multiset(SpecScore_o1_r) == multiset(SpecScore_o2_r)" in program("", keep, Goal.MULTISET,
                                                                                    Dialect.DAFNY4).method
    # as a set, the bound variable typed (untyped, Dafny 2.3's resolver crashes over `seq<bv32>`)
    assert "ensures (forall e: int :: e in SpecScore_o1_r <==> e in SpecScore_o2_r)" in program(
        "", keep, Goal.SET, Dialect.DAFNY2).method
    # the same question, the same name (and cache entry)
    assert program("", find, Goal.EXACT, Dialect.DAFNY4) == program("", find, Goal.EXACT, Dialect.DAFNY4)


def test_only_a_proof_or_a_proved_witness_is_an_answer() -> None:
    ok, failed, slow = Result(Outcome.VERIFIED), Result(Outcome.REFUTED), Result(Outcome.TIMEOUT)
    sound = {Goal.CONSISTENT: failed}  # `ensures false` not proved from the assumptions: they are consistent
    assert judged({**sound, Goal.EXACT: ok}, None, "").status is EverywhereStatus.DETERMINED
    # a failed proof is no answer: the solver may have given up
    assert judged({**sound, Goal.EXACT: failed}, None, "x").status is EverywhereStatus.UNKNOWN
    assert judged({**sound, Goal.EXACT: slow}, None, "").reason == "not proved either way"
    partly = judged({**sound, Goal.EXACT: failed, Goal.MULTISET: ok, Goal.SET: ok}, None, "")
    assert partly.status is EverywhereStatus.UP_TO_ORDER
    witness = Shown("s = [1, 2]", ("[1, 2]", "[2, 1]"))
    seen = judged({**sound, Goal.EXACT: failed, Goal.MULTISET: ok}, witness, "")
    assert seen.status is EverywhereStatus.NOT_DETERMINED and seen.reason == "it is determined up to order"
    assert "for s = [1, 2] the spec accepts both [1, 2] and [2, 1]" in seen.sentence
    # assumptions that prove `false` (no output accepted, or an inconsistent background) prove every question,
    # a witness's acceptance included: no answer; nor when their consistency is not known, or was not asked
    for consistent, said in ((ok, "accepts no output"), (slow, "is not known (the proof timed out)")):
        for proved in (None, witness):
            e = judged({Goal.CONSISTENT: consistent, Goal.EXACT: ok}, proved, "")
            assert e.status is EverywhereStatus.UNKNOWN and said in e.reason, e
    assert judged({Goal.EXACT: ok}, None, "").status is EverywhereStatus.UNKNOWN


def _case(name: str, status: CaseStatus, note: str = "", survived: str = "") -> CaseResult:
    mutants = (MutantResult(survived, "r: 3 -> 4", MutantStatus.SURVIVED),) if survived else ()
    return CaseResult(name, 3, "x = 3", "r = 3", "", "t.dfy", status, mutants=mutants, note=note)


def test_a_tests_witness_needs_the_exact_expected_output_proved_accepted() -> None:
    plain = method_score("s.dfy", "M", 1, (_case("T#1", CaseStatus.VERIFIED, survived="4"),))
    assert from_tests(plain) == Shown("x = 3", ("3", "4"), "T#1")
    # within a tolerance, or with an output the test does not check, the expected value itself is not proved
    tolerant = method_score("s.dfy", "M", 1, (_case("T#1", CaseStatus.VERIFIED, "`r` compared within the test's own "
                                                    "tolerance 0.1", "4"),))
    assert from_tests(tolerant) is None
    refuted = method_score("s.dfy", "M", 1, (_case("T#1", CaseStatus.REFUTED, survived="4"),))
    assert from_tests(refuted) is None


def test_a_verified_case_shows_the_assumptions_consistent() -> None:
    """Its output is proved accepted where its vacuity check proved no `false`: the probe is not asked, and the answer
    stands without it; a refuted or vacuous case shows nothing of the kind."""
    verified = method_score("s.dfy", "M", 1, (_case("T#1", CaseStatus.VERIFIED),))
    refuted = method_score("s.dfy", "M", 1, (_case("T#1", CaseStatus.REFUTED),))
    vacuous = method_score("s.dfy", "M", 1, (_case("T#1", CaseStatus.VACUOUS),))
    assert shown_consistent(verified) and not shown_consistent(refuted) and not shown_consistent(vacuous)
    abs_ = FILE.find("Abs")
    assert abs_ is not None and goals(abs_, consistent=True) == [Goal.EXACT]
    ok = Result(Outcome.VERIFIED)
    assert judged({Goal.EXACT: ok}, None, "", consistent=True).status is EverywhereStatus.DETERMINED
