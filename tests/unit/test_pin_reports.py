"""The pin check in reports and comparisons (pure: hand-made scores)."""

from __future__ import annotations

from fractions import Fraction

from bot.audit.model import Verdict
from bot.audit.verdicts import pin_disagrees, verdict
from bot.dafny.values import IntV, RealV, SeqV
from bot.report.json_report import method_dict
from bot.report.text import render_text
from bot.symbolic.compare import compare
from bot.symbolic.results import CaseResult, CaseStatus, Determinacy, MutantResult, MutantStatus, method_score
from bot.symbolic.rounds import same_set


def case(determinacy: Determinacy | None, witness: str = "") -> CaseResult:
    return CaseResult("T#1", 3, "x = 3", "r = 4", "", "f.dfy", CaseStatus.VERIFIED, "",
                      (MutantResult("5", "r: 4 -> 5", MutantStatus.KILLED),),
                      determinacy=determinacy, witness=witness, witness_source="solver" if witness else "")


def test_completeness_one_but_not_pinned_is_weak_and_flagged() -> None:
    s = method_score("f.dfy", "IncOrFar", 1, (case(Determinacy.NOT_PINNED, "1003"),))
    assert s.completeness == 1.0
    assert pin_disagrees(s)
    assert verdict(s, 0.8) == (Verdict.WEAK, "")
    assert s.pinned_text == "0/1"
    d = method_dict(s)
    assert (d["cases"][0]["determinacy"], d["cases"][0]["witness"], d["not_pinned"]) == ("not-pinned", "1003", 1)
    text = render_text([s], "2.3")
    assert "the spec also accepts 1003 where the test expects r = 4 (found by the solver)" in text


def test_pinned_and_unchecked() -> None:
    pinned = method_score("f.dfy", "Inc", 1, (case(Determinacy.PINNED),))
    assert pinned.pinned_text == "1/1" and not pin_disagrees(pinned)
    unchecked = method_score("f.dfy", "Inc", 1, (case(None),))
    assert unchecked.pinned_text == "" and method_dict(unchecked)["cases"][0]["determinacy"] is None


def test_a_case_pinned_at_base_and_not_at_head_is_a_regression() -> None:
    base = method_score("f.dfy", "Inc", 1, (case(Determinacy.PINNED),))
    head = method_score("f.dfy", "Inc", 1, (case(Determinacy.NOT_PINNED, "1003"),))
    (delta,) = compare([head], [base])
    assert delta.regression and [w.value for w in delta.lost_pins] == ["1003"]
    (same,) = compare([base], [base])
    assert not same.regression and same.lost_pins == ()


def test_a_witness_within_the_real_tolerance_keeps_the_set_level_pin() -> None:
    """Other numbers of the same elements, and a real output within the tolerance: what the set-level pin admits."""
    expected = (SeqV((IntV(1), IntV(2))), RealV(Fraction(1, 3)))
    witness = (SeqV((IntV(1), IntV(1), IntV(2))), RealV(Fraction(3334, 10000)))
    assert same_set(witness, expected, 0.01)
    assert not same_set(witness, expected)  # compared exactly without a tolerance
    assert not same_set((SeqV((IntV(1), IntV(3))), expected[1]), expected, 0.01)  # another set
    assert not same_set((witness[0], RealV(Fraction(1, 2))), expected, 0.01)  # beyond the tolerance
