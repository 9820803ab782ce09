"""The programs of a case with tolerances per output: each real output within its own tolerance, exactly as the test
states it, and an output the test compares exactly stays exact."""

from __future__ import annotations

from fractions import Fraction

from bot.dafny.dialect import Dialect
from bot.dafny.parser import parse_file
from bot.dafny.values import RealV
from bot.symbolic.harness.programs import CaseHarness, HarnessOptions, make_prelude
from bot.symbolic.program import Goal
from bot.symbolic.rounds import close
from bot.testcases.cases import TestCase, Tolerance

SPEC = "method G(x: real) returns (a: real, b: real, c: real)\n  ensures a == x + 0.3 && b == x && c == x\n"


def harness(rel: float = 0.0) -> CaseHarness:
    file = parse_file(SPEC, "g.dfy")
    method = file.find("G")
    assert method is not None
    one = RealV(Fraction(1))
    case = TestCase("c1", "G", (one,), (one, one, one),
                    tolerances=(Tolerance(0, Fraction(1, 2), True), Tolerance(1, Fraction(1, 1000), False)))
    return CaseHarness(make_prelude(file, Dialect.DAFNY2), file, method, case, HarnessOptions(real_tolerance=rel))


def test_each_output_within_its_own_tolerance_and_the_exact_one_exact() -> None:
    h = harness()
    for planned in [*h.within_tolerance(Goal.REJECT_WITHIN), *h.within_tolerance(Goal.ACCEPT_WITHIN)]:
        text = planned.program.method
        assert "0.5 < a < 1.5" in text and "0.999 <= b <= 1.001" in text and "1.0 <= c <= 1.0" in text
    pin = h.pin(Goal.PIN)
    assert pin is not None
    assert "0.5 < a < 1.5" in pin.program.method and "0.999 <= b <= 1.001" in pin.program.method
    assert "c == 1.0" in pin.program.method


def test_the_tools_relative_tolerance_applies_only_where_the_test_states_none() -> None:
    pin = harness(rel=0.01).pin(Goal.PIN)
    assert pin is not None
    text = pin.program.method
    assert "0.5 < a < 1.5" in text and "0.999 <= b <= 1.001" in text and "0.99 <= c <= 1.01" in text


def test_an_output_inside_its_own_tolerance_is_the_expected_one_and_beyond_it_is_not() -> None:
    own = (Tolerance(0, Fraction(1, 2), True), Tolerance(1, Fraction(1, 1000), False), None)
    expected = (RealV(Fraction(1)),) * 3
    inside = (RealV(Fraction(14, 10)), RealV(Fraction(1001, 1000)), RealV(Fraction(1)))
    assert close(inside, expected, 0.0, own)  # 0.4 < 0.5, 0.001 <= 0.001, exact
    at_strict_bound = (RealV(Fraction(3, 2)), RealV(Fraction(1)), RealV(Fraction(1)))
    assert not close(at_strict_bound, expected, 0.0, own)  # |a - 1| < 0.5 fails at 0.5
    other_exact = (RealV(Fraction(1)), RealV(Fraction(1)), RealV(Fraction(10001, 10000)))
    assert not close(other_exact, expected, 0.0, own)  # `c` has no tolerance: 1.0001 is another output
