"""The test file's functions, predicates and constants read into the checks that use them (bot/testcases/inline.py),
and its constants as values of arguments and expected outputs; everything else it declares leaves the check
unreadable, with the declaration named."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.dafny.expr import parse_expr, unparse
from bot.dafny.parser import parse_file
from bot.dafny.values import IntV
from bot.testcases.discover import cases_for_spec
from bot.testcases.inline import MOST_INLINED, NotInlined, inline_declared

HELPERS = """function Sq(n: int): int { n * n }
predicate IsSq(n: int, m: int) { m == Sq(n) }
function Len(s: seq<int>): int { |s| }
const K := 3
const L: int := K + 1
"""


def inline(text: str, decls: str = HELPERS, outputs: tuple[str, ...] = ("r",)) -> str:
    return inline_declared(text, parse_file(decls, "t.dfy"), outputs).text


def test_a_call_is_its_body_with_the_parameters_bound_by_a_typed_let() -> None:
    assert inline("IsSq(4, r)") == "(var n: int, m: int := 4, r; m == (var n: int := n; n * n))"
    # the argument is bound outside the body: a parameter `n` does not capture an output of that name
    assert inline("Sq(n) == 9", outputs=("n",)) == "((var n: int := n; n * n) == 9)"
    # an argument with no type of its own (`[]`) gets the parameter's
    assert inline("Len([]) == 0 && r > 0") == "((var s: seq<int> := []; |s|) == 0 && r > 0)"


def test_constants_are_their_initializers_and_the_rest_is_as_written() -> None:
    assert inline("r == Sq(L) + K") == "(r == (var n: int := K + 1; n * n) + 3)".replace("K + 1", "3 + 1")
    unchanged = "|r| == 3 && forall i :: 0 <= i < |r| ==> r[i] > 0"
    assert inline(unchanged, "function F(x: int): int { x }\n") == unchanged


def test_what_is_read_in_place_means_what_the_test_computes() -> None:
    """The read text parses back to the same formula: nothing dropped, nothing added."""
    text = inline("IsSq(K, r) || Sq(r) < L")
    again = parse_expr(text)
    assert unparse(again) == text.removeprefix("(").removesuffix(")")


@pytest.mark.parametrize(("decls", "check", "why"), [
    ("function F(n: int): int { if n == 0 then 0 else F(n - 1) }\n", "F(r) == 0", "`F` is recursive (F -> F)"),
    ("function F(n: int): int { G(n) }\nfunction G(n: int): int { F(n) }\n", "F(r) == 0",
     "`F` is recursive (F -> G -> F)"),
    ("function {:axiom} F(n: int): bool { true }\n", "F(r)", "`F` has an attribute"),
    ("function {:opaque} F(n: int): bool { true }\n", "F(r)", "`F` has an attribute"),
    ("function F(n: int): bool requires n > 0 { true }\n", "F(r)", "`F` has a contract (`requires`)"),
    ("function F(n: int): bool ensures F(n) { true }\n", "F(r)", "`F` has a contract (`ensures`)"),
    ("function F(n: int): bool\n", "F(r)", "`F` has no body"),
    ("function F<T>(n: T): bool { true }\n", "F(r)", "`F` has type parameters"),
    ("function F(n: int): bool { true }\nmodule M { function F(n: int): bool { false } }\n", "F(r)",
     "`F` is declared more than once"),
    ("module M { function F(n: int): bool { false } }\n", "F(r)", "`F` is declared inside module M"),
    ("method F(n: int) returns (b: bool) { b := true; }\n", "F(r)", "declared there as no function or predicate"),
    ("function F(n: int): bool { n > x }\n", "F(r)", "the body of `F` names `x`, which is none of its parameters"),
    ("const K := 3\nfunction F(K: int): bool { K > 0 }\n", "F(r)", "a parameter of `F` is named `K`"),
    ("const K := 3\n", "exists K :: K == r", "it binds `K`, which the test file declares too"),
    ("const K := 3\n", "K == 3", "the output `K` has the name of a declaration of the test file"),
    ("const K: int\n", "r == K", "`K` has no initializer"),
    ("const {:extern} K := 3\n", "r == K", "`K` has an attribute"),
    ("const K := x\n", "r == K", "the initializer of `K` names `x`"),
    ("function F(n: int): bool { n + }\n", "F(r)", "the body of `F` is not read"),
    ("type Pos = x: int | x > 0\nfunction F(n: Pos): bool { n > 0 }\n", "F(r)",
     "`F` has the type `Pos`: only int, real, bool, char, string and their collections are read in place"),
    ("function F(n: nat): bool { n + 1 == 0 }\n", "F(r)", "`F` has the type `nat`"),
    ("function F(): bv8 { 255 }\n", "(F() + 1) as int == r", "`F` has the type `bv8`"),
    ("const B: bv8 := 255\npredicate P(r: int) { r == (B + 1) as int }\n", "P(r)", "`B` has the type `bv8`"),
    ("function F(n: int): bool { n > 0 }\n", "F(r, r)", "`F` is called with 2 arguments, and it has 1"),
])
def test_anything_but_a_plain_declaration_is_refused_with_the_reason(decls: str, check: str, why: str) -> None:
    outputs = ("K",) if check == "K == 3" else ("r",)
    with pytest.raises(NotInlined, match=None) as refused:
        inline(check, decls, outputs)
    assert why in str(refused.value)


def test_a_body_that_doubles_its_calls_stops_at_the_limit() -> None:
    chain = "function F0(n: int): int { n }\n" + "".join(
        f"function F{k}(n: int): int {{ F{k - 1}(n) + F{k - 1}(n) }}\n" for k in range(1, 8))
    assert inline("F5(r) == 0", chain).count("var n") == 2 ** 6 - 1  # 63 calls (1 + 2 + .. + 32): under the limit
    with pytest.raises(NotInlined, match=f"more than {MOST_INLINED} times"):
        inline("F7(r) == 0", chain)


SPEC = "method Square(x: int) returns (y: int)\n  ensures y == x * x\n"


def read(tmp_path: Path, body: str, decls: str = HELPERS):  # type: ignore[no-untyped-def]
    spec = tmp_path / "Sq.dfy"
    spec.write_text(SPEC)
    tests = tmp_path / "test.dfy"
    tests.write_text(f'include "Sq.dfy"\n{decls}method {{:test}} TestSquare()\n{{\n{body}\n}}\n')
    return cases_for_spec(parse_file(SPEC, str(spec)), str(tests))


def test_a_property_using_the_test_files_functions_is_read_and_says_so(tmp_path: Path) -> None:
    read_ = read(tmp_path, "var s := Square(4);\nexpect IsSq(4, s);")
    (case,) = read_.cases
    assert case.property == "(var n: int, m: int := 4, y; m == (var n: int := n; n * n))"
    assert "the test file's `IsSq`, `Sq` read in place, as their definitions say" in case.note
    assert not read_.problems


def test_an_equality_with_a_call_of_the_test_files_function_is_read_as_a_property(tmp_path: Path) -> None:
    """`expect r == Sq(3);`: no value the reader computes, so the check is a property with `Sq` in place (no mutants
    of `r`, said in the note); either side, and beside other conjuncts, the check is read whole."""
    for check, prop in [("r == Sq(3)", "(y == (var n: int := 3; n * n))"),
                        ("Sq(3) == r", "((var n: int := 3; n * n) == y)"),
                        ("r > 0 && r == Sq(3)", "(y > 0 && y == (var n: int := 3; n * n))")]:
        read_ = read(tmp_path, f"var r := Square(3);\nexpect {check};")
        (case,) = read_.cases
        assert (case.property, case.unchecked, read_.problems) == (prop, (0,), ()), check
        assert "no mutants of `y`" in case.note and "the test file's `Sq` read in place" in case.note
    # a local variable named like the function is what the call reaches: no property of the file's `Sq`
    read_ = read(tmp_path, "var Sq := (n: int) => n + 1;\nvar r := Square(3);\nexpect r == Sq(3);")
    assert read_.cases == () and "cannot read the expected value `Sq(3)`" in read_.problems[0].reason
    # a function the inliner refuses leaves the check unreadable, with the reason
    read_ = read(tmp_path, "var r := Square(3);\nexpect r == F(3);", "function F(n: int): int ensures F(n) > 0 { 9 }\n")
    assert read_.cases == () and "`F` has a contract (`ensures`)" in read_.problems[0].reason


def test_the_test_files_constants_are_values_of_arguments_and_outputs(tmp_path: Path) -> None:
    read_ = read(tmp_path, "var r := Square(K);\nexpect r == NINE;", HELPERS + "const NINE: int := 9\n")
    (case,) = read_.cases
    assert (case.inputs, case.expected, case.property) == ((IntV(3),), (IntV(9),), "")
    # a constant that is an operation is no literal: the case is unreadable, with the value named
    read_ = read(tmp_path, "var r := Square(L);\nexpect r == 16;")
    assert read_.cases == () and "`L`" in read_.problems[0].reason and "`3 + 1`" in read_.problems[0].reason


def test_a_property_using_a_refused_declaration_is_unreadable_with_its_reason(tmp_path: Path) -> None:
    read_ = read(tmp_path, "var s := Square(4);\nexpect Ax(s);", "function {:axiom} Ax(n: int): bool { true }\n")
    assert read_.cases == ()
    (problem,) = read_.problems
    assert problem.line == 5 and problem.checked  # the call's line
    assert problem.reason == ("the property `Ax(y)` uses the test file's declarations, and is not read: `Ax` has an "
                              "attribute: only a plain declaration is read")


# -- from the hostile review: each was a false verdict, a hang or an error before its fix


def test_a_parameter_or_result_of_the_test_method_hides_the_constant_of_its_name(tmp_path: Path) -> None:
    spec = tmp_path / "Sq.dfy"
    spec.write_text(SPEC)
    tests = tmp_path / "test.dfy"
    tests.write_text('include "Sq.dfy"\nconst K := 3\n'
                     "method Check(K: int) { var r := Square(K); expect r == 9; }\n"
                     "method {:test} T() { Check(5); var r := Square(K); expect r == 9; }\n"
                     "method T2() returns (K: int) { var r := Square(K); expect r == 9; }\n")
    read_ = cases_for_spec(parse_file(SPEC, str(spec)), str(tests))
    # only the test method's own call, where `K` is the file's constant, is read
    assert [(c.line, c.inputs, c.expected) for c in read_.cases] == [(4, (IntV(3),), (IntV(9),))]
    assert [p.line for p in read_.problems] == [3, 5]
    assert all("`K` is not a variable defined before this line" in p.reason for p in read_.problems)


def test_a_test_file_with_modules_or_imports_gets_nothing_read_in_place(tmp_path: Path) -> None:
    """Inside a module a name means that module's or an opened import's declaration, not the top level's: neither
    the constants nor the functions of the top level are read there (nor anywhere in such a file)."""
    spec = tmp_path / "Sq.dfy"
    spec.write_text("module Spec { const K := 7\n  method Square(x: int) returns (y: int) ensures y == x * x }\n")
    tests = tmp_path / "test.dfy"
    tests.write_text('include "Sq.dfy"\nconst K := 3\npredicate IsSq(n: int, m: int) { m == n * n }\n'
                     "module Tests { import opened Spec\n"
                     "  method {:test} T() { var r := Square(K); expect r == 49;\n"
                     "    var s := Square(5); expect IsSq(5, s); }\n}\n")
    read_ = cases_for_spec(parse_file(spec.read_text(), str(spec)), str(tests))
    assert read_.cases == ()
    reasons = [p.reason for p in read_.problems]
    assert any("`K` is not a variable defined before this line" in r for r in reasons), reasons
    assert any("the test file declares module Tests (line 5)" in r for r in reasons), reasons


def test_constants_that_double_per_line_are_refused_not_written_out(tmp_path: Path) -> None:
    chain = "const C0 := 1\n" + "".join(f"const C{k} := C{k - 1} + C{k - 1}\n" for k in range(1, 31))
    read_ = read(tmp_path, "var r := Square(C30);\nexpect r == 4;\nvar s := Square(2);\nexpect !P(s);",
                 chain + "predicate P(m: int) { m >= C30 }\n")
    assert read_.cases == ()
    reasons = [p.reason for p in read_.problems]
    assert any("over 100000 characters long written out" in r for r in reasons), reasons
    assert any("more than 64 times, read in place" in r for r in reasons), reasons


def test_a_spec_function_the_method_s_parameter_would_hide_is_refused(tmp_path: Path) -> None:
    spec = tmp_path / "M.dfy"
    spec.write_text("function method f(n: int): int { n + 1 }\nmethod M(f: int) returns (y: int) ensures y == f * 2\n")
    tests = tmp_path / "test.dfy"
    tests.write_text('include "M.dfy"\npredicate P(m: int) { m == f(3) }\n'
                     "method {:test} T() { var r := M(2); expect P(r); }\n")
    read_ = cases_for_spec(parse_file(spec.read_text(), str(spec)), str(tests))
    assert read_.cases == ()
    assert "it calls `f`, which the method's parameter or result of that name would hide" in read_.problems[0].reason


def test_a_test_method_in_a_class_or_binding_by_pattern_gets_no_constant(tmp_path: Path) -> None:
    """A class's members (inherited ones too) and names bound by a pattern hide the file's constant of their name:
    a file with a class gets nothing read in place, a test method with a pattern `var`, `case`, quantifier, lambda
    or `for` no constant."""
    spec = tmp_path / "Sq.dfy"
    spec.write_text(SPEC + "trait Tr { var K: int }\n")
    tests = tmp_path / "test.dfy"
    tests.write_text('include "Sq.dfy"\nconst K := 3\n'
                     "class C extends Tr {\n  constructor () { K := 7; }\n"
                     "  method T1() requires K == 7 { var r := Square(K); expect r == 49; }\n}\n")
    read_ = cases_for_spec(parse_file(spec.read_text(), str(spec)), str(tests))
    assert read_.cases == () and "`K` is not a variable defined before this line" in read_.problems[0].reason
    for binder in ("var (K, z) := (7, 1);", "var Pt(K, z) := p;", "var f := K => K + 1;"):
        read_ = read(tmp_path, f"var p := 1;\n{binder}\nvar r := Square(K);\nexpect r == 49;", "const K := 3\n")
        assert read_.cases == (), binder
        assert any("`K`" in p.reason for p in read_.problems), (binder, read_.problems)


def test_a_name_the_test_method_binds_by_a_pattern_or_quantifier_hides_the_test_files_function(tmp_path: Path) -> None:
    """From the hostile review of equalities read as properties: `var (Sq, z) := ..` binds `Sq` in the test method,
    so `Sq(3)` there is the lambda's 4, not the file's 9; read with the file's `Sq`, a wrong spec was verified. A
    name the body uses other than by calling it may be such a variable: no check calling it is read in place."""
    for binds, check in [("var (Sq, z) := ((n: int) => n + 1, 0);", "r == Sq(3)"),
                         ("var (IsSq, z) := ((a: int, b: int) => b == a + 1, 0);", "IsSq(3, r)"),
                         ("var f := (Sq: int -> int) => Sq(3);", "r == Sq(3)")]:
        read_ = read(tmp_path, f"{binds}\nvar r := Square(3);\nexpect {check};")
        assert read_.cases == () and len(read_.problems) == 1, binds
    # a commented check is no property: its message names the expected value, as before
    read_ = read(tmp_path, "var r := Square(3);\n// expect r == Sq(3);")
    assert read_.cases == () and "cannot read the expected value `Sq(3)`" in read_.problems[0].reason


def test_a_name_bound_by_a_pattern_or_such_that_hides_the_specs_function_too(tmp_path: Path) -> None:
    """From the second hostile review: `var (IsSq, z) := ..` or `var IsSq :| ..` binds a variable that a call of
    `IsSq` in the check then reaches, not the spec's predicate the harness holds: no such check is read (the pattern's
    names were no statement targets, so only the test file's own declarations were hidden)."""
    spec = tmp_path / "S.dfy"
    spec.write_text("predicate IsSq(n: int, m: int) { m == n * n }\nmethod Square(x: int) returns (y: int)\n"
                    "  ensures y == x * x\n")
    for binds in ["var (IsSq, z) := ((a: int, b: int) => b == 10, 0);", "var IsSq :| IsSq == IsSq;",
                  "var Box(IsSq) := Box((a: int, b: int) => true);"]:
        tests = tmp_path / "t.dfy"
        tests.write_text(f'include "S.dfy"\nmethod {{:test}} T()\n{{\n{binds}\n'
                         'var r := Square(3);\nexpect IsSq(3, r);\n}\n')
        read_ = cases_for_spec(parse_file(spec.read_text(), str(spec)), str(tests))
        assert read_.cases == () and "it calls `IsSq`, a variable of the test" in read_.problems[0].reason, binds
    # reserved words are never variables: `multiset<int>` beside `multiset(r)` leaves the check read
    tests.write_text('include "S.dfy"\nmethod {:test} T()\n{\nvar m: multiset<int> := multiset{9};\n'
                     'var r := Square(3);\nexpect multiset([r]) == m;\n}\n')
    read_ = cases_for_spec(parse_file(spec.read_text(), str(spec)), str(tests))
    assert "a variable of the test" not in " ".join(p.reason for p in read_.problems)
