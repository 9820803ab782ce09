"""Test readers on checks they must not misread (a misread expected value refutes a correct spec)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from bot.dafny.dialect import Dialect, to_dialect, unicode_escapes_4
from bot.dafny.parser import parse_file
from bot.dafny.types import RealT
from bot.dafny.values import BoolV, CharV, IntV, RealV, SeqV
from bot.symbolic.mutants import mutate
from bot.testcases.cases import ReadResult
from bot.testcases.dfy_methods import read_dfy_tests
from bot.testcases.expectations import is_equality_helper


def read(src: str) -> ReadResult:
    return read_dfy_tests(parse_file(src, "t.dfy"))


HALF = "method R(x: real) returns (r: real) ensures r == x / 2.0 { r := x / 2.0; }\n"


def test_a_variable_holding_a_quotient_is_one_operand() -> None:
    got = read(HALF + "method Test() { var a := 1.0 / 2.0; var r := R(2.0 / a); expect r == 0.5 / a; }\n")
    [case] = got.cases
    assert case.inputs == (RealV(Fraction(4)),) and case.expected == (RealV(Fraction(1)),)


def test_a_negative_variable_in_a_display_keeps_its_value() -> None:
    src = ("method S(x: seq<int>) returns (r: seq<int>) ensures r == x { r := x; }\n"
           "method Test() { var n := -3; var r := S([n, 2]); expect r == [n, 2]; }\n")
    [case] = read(src).cases
    assert case.inputs == (SeqV((IntV(-3), IntV(2))),) and case.expected == case.inputs


@pytest.mark.parametrize("name", ["arrayEquals", "assertArrayEquals", "sequenceEquals", "seq_equals", "arrayequals",
                                  "ArrayElementsEquals", "SubSeqEquals", "offsetequals"])
def test_equality_helpers(name: str) -> None:
    assert is_equality_helper(name)


@pytest.mark.parametrize("name", ["assertNotEquals", "notEquals", "setEquals", "multisetEquals", "approxEquals",
                                  "notequals", "EqualsIgnoringOrder"])
def test_helpers_that_compare_less_or_the_opposite(name: str) -> None:
    assert not is_equality_helper(name)


SEQ = ("method M(x: int) returns (r: seq<int>) ensures r == [x] { r := [x]; }\n"
       "method seqEquals(a: seq<int>, b: seq<int>) returns (res: bool) { res := a == b; }\n")


@pytest.mark.parametrize("after", ["expect !same;", "expect same == false;", "print same;", "", "if same { }"])
def test_a_stored_comparison_not_asserted_true_states_no_value(after: str) -> None:
    got = read(SEQ + f"method Test() {{ var r := M(1); var same := seqEquals(r, [9]); {after} }}\n")
    assert got.cases == () and len(got.problems) == 1


@pytest.mark.parametrize("after", ["expect same;", "expect same == true;", "assert (same);", "assert true == same;",
                                   "print same; expect same;", "expect same && true;"])
def test_a_stored_comparison_asserted_true_is_the_check(after: str) -> None:
    [case] = read(SEQ + f"method Test() {{ var r := M(1); var same := seqEquals(r, [1]); {after} }}\n").cases
    assert case.expected == (SeqV((IntV(1),)),)


def test_no_guess_beside_a_stated_check() -> None:
    src = ("method M(x: int) returns (r: int) ensures r == x + 1 { r := x + 1; }\n"
           "method Test() { var e := 4; var r := M(3); expect r != 4; }\n")
    [case] = read(src).cases
    assert not case.guessed and case.property == "r != 4" and case.unchecked == (0,)


@pytest.mark.parametrize("name", ["FindGreatest", "Latest", "Contest", "ShortestLen"])
def test_a_method_whose_name_holds_test_in_a_word_is_no_test(name: str) -> None:
    src = (f"method {name}(a: int, b: int) returns (m: int) ensures m >= a && m >= b && (m == a || m == b)\n"
           "{ m := if a > b then a else b; }\n"
           f"method Main() {{ var m := {name}(3, 7); expect m == 7; }}\n")
    [case] = read(src).cases
    assert case.method == name and case.expected == (IntV(7),)


@pytest.mark.parametrize(("x", "e"), [("3.0", "0.1"), ("6.0", "0.5"), ("0.3", "0.01"), ("-7.0", "1")])
def test_no_real_mutant_within_the_tests_own_tolerance(x: str, e: str) -> None:
    expected, tol = Fraction(x), Fraction(e)
    made = mutate((RealV(expected),), (RealT(),), ("r",), seed=7, count=8, real_absolute=(tol,))
    assert made and all(abs(m.values[0].v - expected) > tol for m in made)  # type: ignore[attr-defined]


def test_each_real_output_is_mutated_beyond_its_own_tolerance_only() -> None:
    """Two real outputs, tolerances 5 and 0.001: each output's mutants lie beyond its own, and the tight one's
    mutants are not pushed out to the wide one's (where they would all be far from the expected value)."""
    expected = (RealV(Fraction(100)), RealV(Fraction(1, 2)))
    made = mutate(expected, (RealT(), RealT()), ("a", "b"), seed=3, count=12,
                  real_absolute=(Fraction(5), Fraction(1, 1000)))
    firsts = [abs(m.values[0].v - 100) for m in made if m.values[0] != expected[0]]  # type: ignore[attr-defined]
    seconds = [abs(m.values[1].v - Fraction(1, 2)) for m in made  # type: ignore[attr-defined]
               if m.values[1] != expected[1]]
    assert firsts and seconds and all(d > 5 for d in firsts) and all(d > Fraction(1, 1000) for d in seconds)
    assert min(seconds) < 5  # not beyond the other output's tolerance


MATCHES = """datatype Color = Red | Green | Blue
method Code(c: Color) returns (n: int)
  ensures n == match c { case Red => 0 case Green => 1 case Blue => 2 }
  ensures 0 <= n < 3
{
  n := match c { case Red => 0 case Green => 1 case Blue => 2 };
}
method Code2(c: Color) returns (n: int)
  ensures (match c { case Red => 0 case Green => 1 case Blue => 1 }) == n
{ n := 0; }
method Code3(c: Color) returns (n: int)
  ensures n == match c case Red => 0 case Green => 1 case Blue => 1
{ n := 0; }
"""


def test_a_braced_match_in_a_clause_is_no_body() -> None:
    f = parse_file(MATCHES, "m.dfy")
    assert [c.text for c in f.find("Code").clauses] == [  # type: ignore[union-attr]
        "n == match c { case Red => 0 case Green => 1 case Blue => 2 }", "0 <= n < 3"]
    assert [c.text for c in f.find("Code2").clauses] == [  # type: ignore[union-attr]
        "(match c { case Red => 0 case Green => 1 case Blue => 1 }) == n"]
    assert [c.text for c in f.find("Code3").clauses] == [  # type: ignore[union-attr]
        "n == match c case Red => 0 case Green => 1 case Blue => 1"]
    assert all(f.find(n).body is not None for n in ("Code", "Code2", "Code3"))  # type: ignore[union-attr]


def test_dafny4_harnesses_write_unicode_escapes_as_dafny4_reads_them() -> None:
    text = "var c := '\\u00E9'; var s := \"a\\\\u0041b\\u00E9\"; var v := @\"\\u1234\"; // \\u0041\n"
    assert unicode_escapes_4(text) == ("var c := '\\U{00E9}'; var s := \"a\\\\u0041b\\U{00E9}\"; "
                                       "var v := @\"\\u1234\"; // \\u0041\n")


def test_a_check_that_calls_a_tested_function_itself_is_a_case_of_it() -> None:
    src = ("function Fact(n: nat): nat { if n == 0 then 1 else n * Fact(n - 1) }\n"
           "predicate IsPal(s: string) { forall i :: 0 <= i < |s| ==> s[i] == s[|s| - 1 - i] }\n"
           "method Sort(a: seq<int>) returns (r: seq<int>) ensures multiset(r) == multiset(a) { r := a; }\n"
           "method {:test} T() {\n  expect Fact(3) == 6;\n  expect IsPal(\"aba\");\n  expect !IsPal(\"ab\");\n"
           "  assert 1 == Fact(0);\n  expect Fact(2) == 2, \"two\";\n  var r := Sort([2, 1]); expect IsPal(r);\n}\n")
    got = read(src)
    seen = [(c.method, c.line, c.inputs, c.expected) for c in got.cases if c.method != "Sort"]
    assert seen == [("Fact", 5, (IntV(3),), (IntV(6),)),
                    ("IsPal", 6, (SeqV((CharV("a"), CharV("b"), CharV("a"))),), (BoolV(True),)),
                    ("IsPal", 7, (SeqV((CharV("a"), CharV("b"))),), (BoolV(False),)),
                    ("Fact", 8, (IntV(0),), (IntV(1),)),
                    ("Fact", 9, (IntV(2),), (IntV(2),))]
    [sort] = [c for c in got.cases if c.method == "Sort"]
    assert sort.property == "IsPal(r)"  # the method's own case still reads the check as a property of `r`


def test_an_assertion_with_a_proof_block_is_a_whole_statement() -> None:
    src = ("function Twice(x: int): int { 2 * x }\n"
           "method Dbl(x: int) returns (y: int) ensures y == Twice(x) { y := 2 * x; }\n"
           "method Test() { var y := Dbl(3); assert y == 6 by { reveal Twice(); } var z := Dbl(4); expect z == 8;\n"
           "  var w := Dbl(1); assert {:focus} w == 2 by { assert true; } }\n")
    got = read(src)
    assert got.problems == ()
    assert [(c.inputs, c.expected, c.property) for c in got.cases] == [
        ((IntV(3),), (IntV(6),), ""), ((IntV(4),), (IntV(8),), ""), ((IntV(1),), (IntV(2),), "")]


def test_an_array_compared_by_reference_with_a_new_one_is_unreadable() -> None:
    src = ("method C(x: int) returns (r: array<int>) ensures r.Length == 2 && r[..] == [x, x]\n"
           "{ r := new int[2]; r[0], r[1] := x, x; }\n"
           "method Inc(a: array<int>) modifies a ensures forall i :: 0 <= i < a.Length ==> a[i] == old(a[i]) + 1 { }\n"
           "method Test() { var r := C(1); expect r == new int[] [1, 1]; }\n"
           "method Test2() { var a := new int[] [1, 2]; var b := new int[] [2, 3]; Inc(a); expect a == b; }\n")
    got = read(src)
    assert got.cases == ()
    assert [p.line for p in got.problems] == [4, 5]
    assert all("compares arrays by reference" in p.reason for p in got.problems)


def test_two_rewrites_of_one_piece_of_text_leave_the_inner_one_as_is() -> None:
    src = "method M(y: int) {\n  expect y == 1, (if y == 0 then seq(2, i => 'a') else \"b\");\n}\n"
    r = to_dialect(src, Dialect.DAFNY2)  # raised AssertionError ("overlapping rewrites")
    assert "assume {:axiom} y == 1;" in r.text and r.text.count("\n") == src.count("\n")
    assert any("left as is (inside another rewrite)" in note for note in r.left_alone)
