"""A check of a test is read whole, or the case is unreadable: tolerance shapes (exact, strict or not), tolerances
per output, the test file's helpers read by their bodies, and the spellings of one equality."""

from __future__ import annotations

from fractions import Fraction

import pytest

from bot.dafny.lexer import LexError, tokenize
from bot.dafny.parser import DafnyParseError, parse_file
from bot.dafny.values import IntV, RealV
from bot.testcases.cases import ReadResult, Tolerance
from bot.testcases.dfy_methods import read_dfy_tests
from bot.testcases.helpers import helpers_of
from support.paths import DATA, ROOT

ABS = "function abs(x: real): real { if x < 0.0 then -x else x }\n"
SPEC = "method F(x: real) returns (r: real)\n  ensures r == x + 0.05\n"


def read(test_body: str, helpers: str = ABS, spec: str = SPEC) -> ReadResult:
    return read_dfy_tests(parse_file(f"{spec}{helpers}method Main() {{\n{test_body}\n}}\n", "t.dfy"))


@pytest.mark.parametrize(("check", "bound", "strict"), [
    ("abs(r - 1.0) < 0.1", "0.1", True),
    ("abs(r - 1.0) <= 0.1", "0.1", False),
    ("abs(1.0 - r) < 0.1", "0.1", True),
    ("0.1 > abs(r - 1.0)", "0.1", True),
    ("0.1 >= abs(1.0 - r)", "0.1", False),
    ("r - 1.0 < 0.1 && 1.0 - r < 0.1", "0.1", True),
    ("r - 1.0 <= 0.1 && 1.0 - r <= 0.1", "0.1", False),
    ("-0.1 < r - 1.0 < 0.1", "0.1", True),
    ("-0.1 <= r - 1.0 <= 0.1", "0.1", False),
    ("(abs(r - 1.0) < 0.1)", "0.1", True),
])
def test_each_accepted_tolerance_shape_is_read_exactly(check: str, bound: str, strict: bool) -> None:
    r = read(f"var r := F(1.0); expect {check};")
    assert r.problems == ()
    (case,) = r.cases
    assert case.expected == (RealV(Fraction(1)),) and case.unchecked == ()
    assert case.tolerances == (Tolerance(0, Fraction(bound), strict),)


@pytest.mark.parametrize("check", [
    "r - 1.0 < 0.1 && 1.0 - r <= 0.1",  # two sides with different operators: not one symmetric tolerance
    "-0.1 < r - 1.0 <= 0.1",  # the same, chained
    "-0.2 < r - 1.0 < 0.1",  # bounds that differ
    "abs(r - 1.0) < 0.1 || r == 5.0",  # a disjunction
    "(r - 1.0) * (r - 1.0) < 0.01",  # a square: not a shape the reader takes
    "Abs(r - 1.0) < 0.1",  # `Abs` is not declared in the test file: a name is no evidence
])
def test_other_shapes_are_no_tolerance_but_the_formula_they_are(check: str) -> None:
    """Not read as a tolerance: the whole check is a property of `r` (any value the spec admits that has it), or the
    case is unreadable; never a tolerance with a part dropped."""
    r = read(f"var r := F(1.0); expect {check};")
    for case in r.cases:
        assert case.tolerances == () and case.unchecked == (0,) and case.property != ""


def test_a_tolerance_with_more_said_of_its_output_is_unreadable() -> None:
    r = read("""
  { var r := F(1.0); expect abs(r - 1.0) < 0.1 && r < 1.02; }
  { var r := F(1.0); expect abs(r - 1.0) < 0.1; expect r < 1.05; }
  { var r := F(1.0); expect abs(r - 1.0) < 0.1; expect abs(r - 1.1) < 0.01; }
  { var r := F(1.0); expect abs(r - 1.0) < 0.1; expect r == 1.0; }
  { var r := F(1.0); expect abs(r - 1.0) < 0.1; var d := r * 2.0; expect d < 2.1; }
  { var r := F(1.0); var q := F(2.0); expect abs(r - 1.0) < 0.1; expect abs(q - 2.0) < 0.1; expect r < 1.02; }
  { var r := F(1.0); expect abs(r - 1.0) < 0.1; print r; }
""")
    assert [p.line for p in r.problems] == [6, 7, 8, 9, 10, 11]
    assert all("tolerance is read only as the one check of its output" in p.reason for p in r.problems)
    assert all(p.checked for p in r.problems)
    # the other call of line 11 (`q`) and the case whose only other mention is a print are read
    assert [(c.line, c.tolerances) for c in r.cases] == [
        (11, (Tolerance(0, Fraction(1, 10), True),)), (12, (Tolerance(0, Fraction(1, 10), True),))]


def test_a_later_mention_after_the_output_is_assigned_again_is_of_another_value() -> None:
    r = read("var r := F(1.0); expect abs(r - 1.0) < 0.1; r := 3.0; expect r == 3.0;")
    assert r.problems == () and len(r.cases) == 1


def test_tolerances_per_output_and_an_exact_output_beside_them() -> None:
    spec = ("method G(x: real) returns (a: real, b: real, c: real)\n"
            "  ensures a == x && b == x && c == x\n")
    r = read("var a, b, c := G(1.0); expect abs(a - 1.0) < 0.5; expect abs(b - 1.0) <= 0.001; expect c == 1.0;",
             spec=spec)
    (case,) = r.cases
    assert case.tolerances == (Tolerance(0, Fraction(1, 2), True), Tolerance(1, Fraction(1, 1000), False))
    assert case.tolerance_of(2) is None  # `c` exactly


def test_a_tolerance_beside_an_unchecked_output_or_a_changed_array_is_unreadable() -> None:
    spec = ("method H(x: real) returns (a: real, n: int)\n  ensures a == x && n == 1\n"
            "method K(s: array<int>, x: real) returns (a: real)\n  modifies s\n  ensures a == x\n")
    r = read("""
  { var a, n := H(1.0); expect abs(a - 1.0) < 0.5; }
  { var s := new int[] [1]; var a := K(s, 1.0); expect abs(a - 1.0) < 0.5; expect s[..] == [1]; }
""", spec=spec)
    assert r.cases == ()
    assert ["`n` is not checked" in r.problems[0].reason, "the call changes `s`" in r.problems[1].reason] == [
        True, True]


@pytest.mark.parametrize("body", [
    "{ x }",
    "{ if x < 0.0 then x else -x }",
    "{ if x > 0.0 then -x else x }",
    "{ if x < 1.0 then -x else x }",
    "{ if x < 0.0 then -x else x + 0.0 * x }",
])
def test_a_test_file_abs_that_is_no_absolute_value_is_no_tolerance(body: str) -> None:
    r = read("var r := F(1.0); expect abs(r - 1.0) < 0.1;", helpers=f"function abs(x: real): real {body}\n")
    (case,) = r.cases
    # the check as written: a property of `r` calling the file's own `abs`, never a tolerance around 1.0
    assert case.tolerances == () and case.property == "abs(r - 1.0) < 0.1"


@pytest.mark.parametrize("decl", [
    "function abs(x: real): real { if x < 0.0 then -x else x }",
    "function method abs(y: real): real { if (y >= 0.0) then y else -y }",
    "function abs(x: real): real { if 0.0 > x then 0.0 - x else x }",
    "function abs(x: real): real { if x <= 0.0 then (-x) else x }",
])
def test_absolute_value_bodies(decl: str) -> None:
    assert helpers_of(parse_file(decl + "\n", "t.dfy")).absolute == {"abs"}


@pytest.mark.parametrize("decl", [
    "function abs(x: real): real requires x > 0.0 { if x < 0.0 then -x else x }",  # a contract: not the plain form
    "function {:extern} abs(x: real): real { if x < 0.0 then -x else x }",  # an attribute
    "function abs(x: int): int { if x < 0 then -x else x }",  # not real
])
def test_absolute_value_bodies_refused(decl: str) -> None:
    assert helpers_of(parse_file(decl + "\n", "t.dfy")).absolute == frozenset()


def test_helpers_read_from_the_file_tokens_are_those_read_body_by_body() -> None:
    """The test reader gives helpers_of the whole file's tokens (each body found by bisection): the same helpers
    as when each body is read on its own, on every .dfy file of tests/data and examples."""
    files = sorted((*DATA.rglob("*.dfy"), *(ROOT / "examples").rglob("*.dfy")))
    assert len(files) > 20
    seen = set()
    for path in files:
        source = path.read_text(encoding="utf-8", errors="replace")
        try:
            file, tokens = parse_file(source, str(path)), tokenize(source, keep_comments=True)
        except (DafnyParseError, LexError):
            continue
        together = helpers_of(file, tokens)
        assert together == helpers_of(file), path
        seen |= together.absolute | together.comparing | together.asserting | together.checkless
    assert len(seen) > 5  # the files have helpers of the kinds read, so the comparison says something


SEQ_SPEC = "method S(x: int) returns (r: seq<int>)\n  ensures r == [x]\n"


@pytest.mark.parametrize(("helper", "check"), [
    ("method assertEquals(a: seq<int>, b: seq<int>) { expect a <= b; }", "assertEquals(r, [3]);"),
    ("method assertEquals(a: seq<int>, b: seq<int>) { expect a != b; }", "assertEquals(r, [3]);"),
    ("method assertEquals(a: seq<int>, b: seq<int>) { }", "assertEquals(r, [3]);"),
    ("method assertEquals(a: seq<int>, b: seq<int>) { print a; }", "assertEquals(r, [3]);"),
])
def test_an_equality_helper_whose_body_is_no_equality_is_not_read_as_one(helper: str, check: str) -> None:
    r = read(f"var r := S(3); {check}", helpers=helper + "\n", spec=SEQ_SPEC)
    assert r.cases == ()
    (p,) = r.problems
    assert "whose body is no check the reader knows" in p.reason


def test_an_equality_predicate_that_is_no_equality_leaves_the_formula_as_written() -> None:
    helper = "predicate seqEquals(a: seq<int>, b: seq<int>) { |a| == |b| }\n"
    r = read("var r := S(3); expect seqEquals(r, [3]);", helpers=helper, spec=SEQ_SPEC)
    (case,) = r.cases
    assert case.unchecked == (0,) and case.property == "seqEquals(r, [3])"  # no expected value: a property


@pytest.mark.parametrize(("helper", "check"), [
    ("method assertEquals(a: seq<int>, b: seq<int>) { expect a == b; }", "assertEquals(r, [3]);"),
    ("method assertEquals(a: seq<int>, b: seq<int>) { assert b == a; }", "assertEquals([3], r);"),
    ("predicate seqEquals(a: seq<int>, b: seq<int>) { a == b }", "expect seqEquals(r, [3]);"),
    ("function method same(a: seq<int>, b: seq<int>): bool { (a == b) }", "var ok := same(r, [3]); expect ok;"),
])
def test_an_equality_helper_whose_body_is_an_equality_is_read(helper: str, check: str) -> None:
    r = read(f"var r := S(3); {check}", helpers=helper + "\n", spec=SEQ_SPEC)
    assert r.problems == ()
    (case,) = r.cases
    assert case.unchecked == () and case.property == ""


INT_SPEC = "method Inc(x: int) returns (r: int)\n  ensures r == x + 1\n"


@pytest.mark.parametrize("check", ["!(r != 4)", "4 == r", "(r == 4)", "!(!(r == 4))", "!(!(4 == r))", "((4 == r))",
                                   "(r == 4) == true", "true == (r == 4)", "(r != 4) == false", "(r == 4) != false"])
def test_spellings_of_one_equality_are_that_equality(check: str) -> None:
    r = read(f"var r := Inc(3); expect {check};", helpers="", spec=INT_SPEC)
    (case,) = r.cases
    assert case.expected == (IntV(4),) and case.unchecked == () and case.property == ""


@pytest.mark.parametrize("check", ["!(r == 4)", "r != 4", "!(r != 4 && r > 0)", "r == 4 == true", "(r == 4) == false",
                                   "(r != 4) == true", "(r == 4 || r == 5) == true"])
def test_what_is_no_single_equality_gives_no_expected_value(check: str) -> None:
    r = read(f"var r := Inc(3); expect {check};", helpers="", spec=INT_SPEC)
    assert all(c.unchecked == (0,) for c in r.cases)  # a property (or unreadable), never `r == 4`


def test_a_tested_function_checked_as_not_unequal() -> None:
    spec = "function Fact(n: nat): nat { if n == 0 then 1 else n * Fact(n - 1) }\n"
    r = read("expect !(Fact(3) != 6); expect !(!(Fact(4) == 24));", helpers="", spec=spec)
    assert [c.expected for c in r.cases] == [(IntV(6),), (IntV(24),)]


def test_a_further_check_of_an_output_given_a_value_is_read_or_the_case_is_not() -> None:
    """`expect r == 4; expect r < 2;` passes for no output: read as `r == 4` alone the spec would be "verified,
    pinned" by a test every output fails. The same equality again, a print, or another block's `r` change nothing."""
    r = read("""
  { var r := Inc(3); expect r == 4; expect r < 2; }
  { var r := Inc(3); expect r == 4 && r == 5; }
  { var r := Inc(3); expect r == 4; var d := r + 1; expect d == 6; }
  { var r := Inc(3); expect !(r != 4); expect r == 4 || r > 100; }
  { var r := Inc(3); expect r == 4; assert 4 == r; print r; }
  { var r := Inc(5); expect r == 6; }
  { var r := Inc(7); expect r == 8; r := 0; expect r == 0; }
""", helpers="", spec=INT_SPEC)
    assert [p.line for p in r.problems] == [5, 6, 7, 8]
    assert all("every check of an output is read, or none" in p.reason and p.checked for p in r.problems)
    assert [(c.line, c.expected) for c in r.cases] == [(9, (IntV(4),)), (10, (IntV(6),)), (11, (IntV(8),))]


def test_a_helper_shadowed_or_qualified_is_not_the_files_helper() -> None:
    """A local variable (or parameter) named `abs` is what `abs(..)` calls in that method; `M.abs(..)` is another
    module's: neither is the file's absolute value, so neither check is a tolerance."""
    r = read("""
  { var abs := (x: real) => x; var r := F(1.0); expect abs(r - 1.0) < 0.1; }
  { var r := F(1.0); expect M.abs(r - 1.0) < 0.1; }
""")
    assert all(c.tolerances == () for c in r.cases)
    f = parse_file(SPEC + ABS + "method T(abs: real -> real) { var r := F(1.0); expect abs(r - 1.0) < 0.1; }\n",
                   "t.dfy")
    assert all(c.tolerances == () for c in read_dfy_tests(f).cases)
    eq = "method assertEquals(a: seq<int>, b: seq<int>) { expect a == b; }\n"
    shadowed = read("var assertEquals := 1; var r := S(3); M.assertEquals(r, [3]);", helpers=eq, spec=SEQ_SPEC)
    assert shadowed.cases == ()


def test_a_property_calling_a_variable_of_the_test_is_not_read() -> None:
    """The harness has the spec's `abs`, not the test's lambda of that name: such a property is unreadable."""
    r = read("var abs := (x: real) => x; var r := F(1.0); expect abs(r - 1.0) < 0.1;")
    assert r.cases == ()
    assert "it calls `abs`, a variable of the test" in r.problems[0].reason


def test_another_call_given_the_output_is_no_check_of_it() -> None:
    r = read("var r := Inc(3); expect r == 4; var q := Inc(r); expect q == 5;", helpers="", spec=INT_SPEC)
    assert [c.expected for c in r.cases] == [(IntV(4),)]  # the second call's input is no value the reader knows
    assert len(r.problems) == 1 and "cannot evaluate argument" in r.problems[0].reason
