"""Ground facts: the expression parser, the evaluator, and real-verifier programs showing that the
facts let Dafny 2.3 decide acceptance and rejection on concrete cases it cannot decide alone."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path

import pytest

from bot.dafny.decls import DafnyFile
from bot.dafny.expr import (
    MAX_DEPTH,
    Binary,
    BoundVar,
    Card,
    Chain,
    ExprError,
    Lit,
    Member,
    Name,
    Quant,
    SetComp,
    Slice,
    Update,
    free_vars,
    parse_expr,
    unparse,
)
from bot.dafny.parser import parse_file
from bot.dafny.types import ArrayT, DafnyType, IntT, SeqT, StringT
from bot.dafny.values import ArrayV, BoolV, BvV, CharV, IntV, RealV, SeqV, Value, parse_value, to_dafny
from bot.symbolic.harness.evaluate import (
    GroundFacts,
    GValue,
    MsetV,
    NoValue,
    SetV,
    evaluate,
    ground_facts,
    quantifier_domain,
    requires_hold,
)
from bot.symbolic.harness.hints import recursion_hints

EMPTY = parse_file("")


def ev(text: str, **env: Value) -> object:
    return evaluate(EMPTY, text, env)


# -- parser ------------------------------------------------------------------------------------------


def test_precedence_follows_dafny() -> None:
    assert unparse(parse_expr("a + b * c")) == "a + b * c"
    assert parse_expr("a + b * c") == Binary("+", Name("a"), Binary("*", Name("b"), Name("c")))
    # bitwise operators bind tighter than `*`, shifts looser than `+`
    assert parse_expr("a * b & c") == Binary("*", Name("a"), Binary("&", Name("b"), Name("c")))
    assert parse_expr("a << b + c") == Binary("<<", Name("a"), Binary("+", Name("b"), Name("c")))
    # `==>` is right-associative, `<==>` weakest, `&&` tighter than both
    assert parse_expr("a ==> b ==> c") == Binary("==>", Name("a"), Binary("==>", Name("b"), Name("c")))
    assert parse_expr("a <==> b && c ==> d") == Binary(
        "<==>", Name("a"), Binary("==>", Binary("&&", Name("b"), Name("c")), Name("d"))
    )
    assert parse_expr("x <== y") == Binary("<==", Name("x"), Name("y"))
    assert parse_expr("-x as real") == parse_expr("(-x) as real")
    # `<` after a conversion is a comparison unless type arguments close with `>`
    assert parse_expr("s[k] as int < k + 5") == parse_expr("(s[k] as int) < (k + 5)")
    assert parse_expr("x as int < y && y as real > 2.0") == parse_expr("((x as int) < y) && ((y as real) > 2.0)")
    assert unparse(parse_expr("a as seq<array<int>> == b")) == "a as seq<array<int>> == b"
    assert parse_expr("x in s && y !in t") == Binary(
        "&&", Binary("in", Name("x"), Name("s")), Binary("!in", Name("y"), Name("t"))
    )
    assert parse_expr("a !! b") == Binary("!!", Name("a"), Name("b"))


def test_chained_comparisons() -> None:
    e = parse_expr("0 <= i < |s|")
    assert isinstance(e, Chain) and e.ops == ("<=", "<")
    assert unparse(e) == "0 <= i < |s|"
    assert parse_expr("a < b") == Binary("<", Name("a"), Name("b"))


def test_literals() -> None:
    assert parse_expr("0x1F") == Lit(IntV(31), "0x1F")
    assert parse_expr("1_000") == Lit(IntV(1000), "1_000")
    assert parse_expr("2.50") == Lit(RealV(Fraction(5, 2)), "2.50")
    assert parse_expr("'\\n'") == Lit(CharV("\n"), "'\\n'")
    assert parse_expr('"a\\"b"') == Lit(SeqV((CharV("a"), CharV('"'), CharV("b"))), '"a\\"b"')
    assert parse_expr("true") == Lit(BoolV(True), "true")


def test_suffixes_and_displays() -> None:
    assert parse_expr("s[..]") == Slice(Name("s"), None, None)
    assert parse_expr("s[1..]") == Slice(Name("s"), Lit(IntV(1), "1"), None)
    assert parse_expr("s[i := v]") == Update(Name("s"), Name("i"), Name("v"))
    assert parse_expr("t.0.1") == Member(Member(Name("t"), "0"), "1")
    assert parse_expr("a.Length") == Member(Name("a"), "Length")
    for text in [
        "s[..j] + s[i..j] + a[..]", "multiset{1, 2} == multiset(s)", "{1, 2} + {}", "(1, 'c').1",
        "old(a[0]) + 1", "f(x, g(y))[0]", "if b then 1 else 2", "var x := 3; x * x", "x as char",
        "(2.5).Floor", "|s| | 1", "!(a && b) || c",
    ]:
        assert unparse(parse_expr(unparse(parse_expr(text)))) == unparse(parse_expr(text)), text


def test_binders() -> None:
    q = parse_expr("forall i, j: int {:trigger s[i], s[j]} | 0 <= i < j < |s| :: s[i] <= s[j]")
    assert isinstance(q, Quant) and [v.name for v in q.vars] == ["i", "j"] and q.range is not None
    assert free_vars(q) == {"s"}
    c = parse_expr("count == |set i: int | 0 <= i < |a| && a[i] == b[i]|")
    assert isinstance(c, Binary) and isinstance(c.right, Card) and isinstance(c.right.operand, SetComp)
    t = parse_expr("set x | x in s :: x * 2")
    assert isinstance(t, SetComp) and t.term is not None
    # the body of an endless expression reaches as far right as possible
    assert parse_expr("a && forall k :: p(k) && q") == Binary(
        "&&", Name("a"), Quant("forall", (BoundVar("k", None),), None, parse_expr("p(k) && q"))
    )
    assert free_vars(parse_expr("var x := y; x + z")) == {"y", "z"}


def test_substitution_respects_shadowing_and_minus() -> None:
    e = parse_expr("x + |set x | x in s && x > y|")
    assert unparse(parse_expr("x + y"), {"x": "-5"}) == "-5 + y"
    assert unparse(parse_expr("-x"), {"x": "-5"}) == "-(-5)"
    assert unparse(parse_expr("x.Floor"), {"x": "-2.5"}) == "(-2.5).Floor"
    assert unparse(e, {"x": "1", "y": "3"}) == "1 + |set x | x in s && x > 3|"


@pytest.mark.parametrize(
    "text",
    ["map[1 := 2]", "x => x + 1", "var x, y :| x > y; x", "match x { case _ => 1 }", "seq(3, i => i)",
     "a +", "f(1, 2", "s[1, 2]", "x is int", "()", "iset x | x in s", "forall x <- s :: x > 0"],
)
def test_unsupported_or_malformed_raises_expr_error(text: str) -> None:
    with pytest.raises(ExprError):
        parse_expr(text)


@pytest.mark.dataset
def test_dataset_clauses_and_function_bodies_parse_and_print_back(dataset_root: Path) -> None:
    """Every requires/ensures clause and function body of the development dataset parses, except
    let-such-that (`var x :| ...`), and printing then parsing gives the same tree."""
    parsed, rejected = 0, []
    for path in sorted(dataset_root.glob("*/*/src/*.dfy")):
        f = parse_file(path.read_text(), str(path))
        for d in f.decls:
            texts = [c.text for c in d.clauses if c.kind in ("requires", "ensures")]
            if d.kind.startswith(("function", "predicate")) and d.body is not None:
                texts.append(f.source[d.body[0] + 1 : d.body[1] - 1])
            for text in texts:
                try:
                    e = parse_expr(text)
                except ExprError as err:
                    rejected.append(str(err))
                    continue
                parsed += 1
                assert parse_expr(unparse(e)) == e, text
    assert parsed > 200
    assert set(rejected) <= {"let-such-that (`var x :| ...`) is not supported"}


def test_deep_or_huge_input_raises_expr_error_not_recursion_error() -> None:
    with pytest.raises(ExprError, match="nested"):
        parse_expr("(" * 5000 + "x" + ")" * 5000)
    with pytest.raises(ExprError, match="nested"):
        parse_expr("!" * 5000 + "x")
    with pytest.raises(ExprError, match="nested"):
        parse_expr(" + ".join(["x"] * (MAX_DEPTH + 10)))
    with pytest.raises(ExprError, match="nested"):
        parse_expr("forall x :: " * 3000 + "true")
    # moderately deep input is fine
    assert isinstance(parse_expr("(" * 20 + "x" + ")" * 20), Name)


# -- evaluator ---------------------------------------------------------------------------------------


def test_euclidean_division_and_modulus() -> None:
    # measured with Dafny 2.3: -7 / 2 == -4, -7 % 2 == 1, 7 / -2 == -3, 7 % -2 == 1, -7 / -2 == 4
    assert [ev("-7 / 2"), ev("-7 % 2"), ev("7 / -2"), ev("7 % -2"), ev("-7 / -2"), ev("-7 % -2")] == [
        IntV(-4), IntV(1), IntV(-3), IntV(1), IntV(4), IntV(1)
    ]
    with pytest.raises(NoValue):
        ev("1 / 0")
    assert ev("7.0 / 2.0") == RealV(Fraction(7, 2))
    assert ev("(-2.5).Floor") == IntV(-3)
    with pytest.raises(NoValue):
        ev("2.5 as int")  # Dafny: "the real-based number must be an integer"


def test_operators_on_values() -> None:
    assert ev("2 + 3 * 4 - 1") == IntV(13)
    assert ev("1 <= 2 < 2") == BoolV(False)
    assert ev("(5 as bv8) << 1 == 10 as bv8") == BoolV(True)
    assert ev("-(1 as bv8)") == BvV(8, 255)
    assert ev("!(0 as bv8)") == BvV(8, 255)
    assert ev("s[1 := 9] + s[..1]", s=SeqV((IntV(1), IntV(2)))) == SeqV((IntV(1), IntV(9), IntV(1)))
    assert ev("[1, 2] < [1, 2, 3] && {1} < {1, 2} && 2 in multiset{1, 2} && {1} !! {2}") == BoolV(True)
    assert ev("multiset{1, 1, 2}[1]") == IntV(2)
    assert ev("|multiset([1, 1, 2]) - multiset{1}|") == IntV(2)
    assert ev("(1, (2, 3)).1.0") == IntV(2)
    assert ev("if 1 < 2 then var x := 3; x * x else 0") == IntV(9)
    assert ev("false && 1 / 0 == 1") == BoolV(False)  # short-circuit, as well-formedness demands
    with pytest.raises(NoValue):
        ev("s[5]", s=SeqV((IntV(1),)))
    with pytest.raises(NoValue):
        ev("unknown + 1")


def test_strings_and_chars() -> None:
    s = parse_value('"Hello"', StringT())
    assert ev("s[1..3]", s=s) == parse_value('"el"', StringT())
    assert ev("s + \"!\" == \"Hello!\"", s=s) == BoolV(True)
    assert ev("'A' <= s[0] <= 'Z' && s[0] as int == 72 && 97 as char == 'a'", s=s) == BoolV(True)
    assert ev("|set i | 0 <= i < |s| && s[i] == 'l'|", s=s) == IntV(2)
    assert ev("set c | c in s && 'a' <= c <= 'z'", s=s) == SetV(frozenset(CharV(c) for c in "elo"))


def test_quantifiers_and_comprehensions() -> None:
    s = SeqV(tuple(IntV(x) for x in (3, 1, 4, 1, 5)))
    assert ev("forall i, j :: 0 <= i < j < |s| ==> s[i] <= s[j]", s=s) == BoolV(False)
    assert ev("exists i :: 0 <= i < |s| && s[i] == 4", s=s) == BoolV(True)
    assert ev("forall x | x in s :: x > 0", s=s) == BoolV(True)
    assert ev("exists k :: 2 <= k < n && n % k == 0", n=IntV(97)) == BoolV(False)
    assert ev("forall b: bool :: b || !b") == BoolV(True)
    assert ev("forall k: nat :: k < 3 ==> k * k < 9") == BoolV(True)
    assert ev("set i | 0 <= i < |s| && s[i] == 1", s=s) == SetV(frozenset({IntV(1), IntV(3)}))
    assert ev("set x, y | x in s && y in s && x < y :: y - x", s=s) == SetV(
        frozenset(IntV(d) for d in (1, 2, 3, 4))
    )
    assert ev("multiset(s)", s=s) == MsetV(frozenset({(IntV(3), 1), (IntV(1), 2), (IntV(4), 1), (IntV(5), 1)}))
    with pytest.raises(NoValue):
        ev("forall k :: k * k >= 0")  # unbounded: no value, never a guess
    with pytest.raises(NoValue):
        ev("exists k :: k > 5")


def test_old_reads_the_pre_state_of_arrays() -> None:
    f = parse_file("function sum(a: array<int>, n: int): int requires 0 <= n <= a.Length reads a "
                   "{ if n == 0 then 0 else sum(a, n - 1) + a[n - 1] }")
    t = ArrayT(IntT())
    post = {"a": parse_value("new int[] [2, 3, 4]", t)}
    pre = {"a": parse_value("new int[] [1, 2, 3]", t)}
    types = {"a": t}
    assert evaluate(f, "a[0] - old(a[0])", post, pre, types) == IntV(1)
    assert evaluate(f, "sum(a, a.Length) - old(sum(a, a.Length))", post, pre, types) == IntV(3)
    assert evaluate(f, "old(a[..])", post, pre, types) == parse_value("[1, 2, 3]", SeqT(t.elem))
    facts = ground_facts(f, ["forall i :: 0 <= i < a.Length ==> a[i] == old(a[i]) + 2",
                             "old(sum(a, 2)) == 3"], post, pre, types)
    assert "  assert !(0 <= 0 < a.Length ==> a[0] == old(a[0]) + 2);" in facts.statements
    assert "  assert old(sum(a, 2) == 3);" in facts.statements


RECURSIVE = """
function count(n: int): int
  requires n >= 0
{ if n == 0 then 0 else 1 + count(n - 1) }
function fib(n: nat): nat { if n < 2 then n else fib(n - 1) + fib(n - 2) }
predicate IsUpper(c: char) { 'A' <= c <= 'Z' }
"""


def test_recursion_memoised_and_bounded() -> None:
    f = parse_file(RECURSIVE)
    assert evaluate(f, "fib(60)", {}) == IntV(1548008755920)  # memoised: linear, not exponential
    assert evaluate(f, "count(70)", {}) == IntV(70)
    with pytest.raises(NoValue):
        evaluate(f, "count(-1)", {})  # the precondition is false: no value
    with pytest.raises(NoValue, match="nested deeper"):
        evaluate(f, "count(5000)", {})
    with pytest.raises(NoValue, match="stopped at 50 steps"):
        evaluate(f, "count(100)", {}, budget=50)


def test_budget_is_reported_never_silent() -> None:
    f = parse_file(RECURSIVE)
    out = ground_facts(f, ["r == count(100)", "r == count(3)"], {"r": IntV(100)}, {}, {}, budget=60)
    assert out.limits == ("ground evaluation stopped at 60 steps in `r == count(100)`",)
    assert all(s.startswith("  assert count(") for s in out.statements)  # what was computed, in order
    deep = ground_facts(f, ["r == count(5000)"], {"r": IntV(5000)}, {}, {}, budget=10**6)
    assert len(deep.limits) == 1 and "nested deeper" in deep.limits[0]
    assert ground_facts(f, ["r == count(3)"], {"r": IntV(3)}, {}, {}, budget=0) == GroundFacts((), ())


def test_call_facts_innermost_first_and_only_with_true_requires() -> None:
    f = parse_file(RECURSIVE)
    out = ground_facts(f, ["r == count(n) + count(n - 3)"], {"r": IntV(3), "n": IntV(2)}, {}, {})
    assert out.statements == (
        "  assert count(0) == 0;",
        "  assert count(1) == 1;",
        "  assert count(2) == 2;",
        "  assert count(n) == 2;",
    )  # count(n - 3) = count(-1) violates `requires n >= 0`: never mentioned


def test_facts_are_deterministic_and_sorted() -> None:
    f = parse_file("")
    s = parse_value('["pear", "fig", "apple", "fig"]', SeqT(StringT()))
    out = ground_facts(f, ["|set x | x in s| == 3"], {"s": s}, {}, {"s": SeqT(StringT())})
    assert out.statements == (
        '  assert (set x | x in s) == {"apple", "fig", "pear"};',
        "  assert |set x | x in s| == 3;",
    )
    neg = ground_facts(f, ["exists i :: i in s && i < -2"], {"s": SeqV((IntV(4), IntV(-7)))}, {}, {})
    assert neg.statements == ("  assert -7 in s && -7 < -2;",)


def test_witness_of_nested_quantifier_gets_inner_facts() -> None:
    f = parse_file("predicate P(n: int) { exists d :: 2 <= d < n && n % d == 0 }")
    s = SeqV((IntV(7), IntV(9)))
    out = ground_facts(f, ["exists i :: 0 <= i < |s| && P(s[i])"], {"s": s}, {}, {})
    assert out.statements[-1] == "  assert 0 <= 1 < |s| && P(s[1]);"
    assert "  assert 2 <= 3 < 9 && 9 % 3 == 0;" in out.statements  # P(9)'s own witness
    assert "  assert P(9) == true;" in out.statements


def test_collection_arguments_get_extensionality_facts() -> None:
    f = parse_file("function Max(a: seq<int>): int requires |a| > 0 "
                   "{ if |a| == 1 then a[0] else var m := Max(a[..|a|-1]); if a[|a|-1] >= m then a[|a|-1] else m }")
    out = ground_facts(f, ["m == Max(s)"], {"s": parse_value("[7, 2, 9]", SeqT(IntT())), "m": IntV(9)}, {}, {})
    assert out.statements == (
        "  assert Max([7]) == 7;",
        "  assert [7, 2][..|[7, 2]| - 1] == [7];",
        "  assert Max([7, 2]) == 7;",
        "  assert [7, 2, 9][..|[7, 2, 9]| - 1] == [7, 2];",
        "  assert Max([7, 2, 9]) == 9;",
        "  assert Max(s) == 9;",
    )  # `Max([7][..0])` in the branch not taken violates `requires |a| > 0`: not mentioned


def test_requires_hold_and_recursion_hint_filter() -> None:
    f = parse_file(SUMTO)
    a = parse_value("new int[] [1, 5, -2, 4, 10]", ArrayT(IntT()))
    env: dict[str, Value] = {"a": a, "start": IntV(1)}
    types: dict[str, DafnyType] = {"a": ArrayT(IntT())}
    assert requires_hold(f, "sumTo(a, start, 3)", env, types)
    assert not requires_hold(f, "sumTo(a, start, 0)", env, types)  # start <= end fails
    assert not requires_hold(f, "sumTo(a, start, 9)", env, types)
    assert not requires_hold(f, "sumTo(a, unknown, 3)", env, types)  # cannot evaluate: dropped
    hints = recursion_hints(["r == sumTo(a, start, a.Length)"], ["sumTo"], env, 100, file=f, types=types)
    assert "  assert sumTo(a, start, 0) == sumTo(a, start, 0);" not in hints
    assert "  assert sumTo(a, start, 1) == sumTo(a, start, 1);" in hints
    assert "  assert sumTo(a, 0, a.Length) == sumTo(a, 0, a.Length);" in hints
    unfiltered = recursion_hints(["r == sumTo(a, start, a.Length)"], ["sumTo"], env, 100)
    assert "  assert sumTo(a, start, 0) == sumTo(a, start, 0);" in unfiltered


# -- finite domains confined by a quantifier's body ---------------------------------------------------

REMOVE_DUPLICATES = """
predicate InArray(a: array<int>, x: int) reads a { exists i :: 0 <= i < a.Length && a[i] == x }
predicate InNat(s: seq<int>, x: nat) { x in s }
predicate Positive(x: int) { x > 0 }
method M(a: array<int>) returns (result: seq<int>)
  ensures forall x :: x in result <==> exists i :: 0 <= i < a.Length && a[i] == x
  ensures forall i, j :: 0 <= i < j < |result| ==> result[i] != result[j]
"""
SPEC_572 = "forall x :: x in result <==> exists i :: 0 <= i < a.Length && a[i] == x"


def _case_572(result: str) -> tuple[DafnyFile, dict[str, Value], dict[str, DafnyType]]:
    types: dict[str, DafnyType] = {"a": ArrayT(IntT()), "result": SeqT(IntT())}
    env = {"a": parse_value("new int[] [1, 2, 3, 2, 3, 4, 5]", types["a"]),
           "result": parse_value(result, types["result"])}
    return parse_file(REMOVE_DUPLICATES), env, types


def _ints(*xs: int) -> list[GValue]:
    return [IntV(x) for x in xs]


def test_domain_of_an_iff_is_the_union_of_both_sides() -> None:
    """MBPP-DFY 572: x only matters where `x in result` or some a[i] == x; outside, both sides are false."""
    f, env, types = _case_572("[1, 4, 5]")
    assert quantifier_domain(f, SPEC_572, env, types=types) == _ints(1, 2, 3, 4, 5)
    assert evaluate(f, SPEC_572, env, types=types) == BoolV(False)
    f, env, types = _case_572("[5, 1, 4, 9]")
    assert quantifier_domain(f, SPEC_572, env, types=types) == _ints(1, 2, 3, 4, 5, 9)
    f, env, types = _case_572("[1, 2, 3, 4, 5]")
    assert evaluate(f, SPEC_572, env, types=types) == BoolV(True)
    # the same through a predicate's body, and as a set, a multiset or an array slice
    for text in ["forall x :: x in result <==> InArray(a, x)", "forall x :: x in (set y | y in result) <==> x in a[..]",
                 "forall x :: x in multiset(result) <==> InArray(a, x)"]:
        assert quantifier_domain(f, text, env, types=types) == _ints(1, 2, 3, 4, 5), text
        assert evaluate(f, text, env, types=types) == BoolV(True), text


def test_domain_of_implications_disjunctions_and_exists() -> None:
    f, env, types = _case_572("[1, 9]")
    # `x in result` false makes the body true: only the elements of result matter
    assert quantifier_domain(f, "forall x :: x in result ==> InArray(a, x)", env, types=types) == _ints(1, 9)
    assert evaluate(f, "forall x :: x in result ==> InArray(a, x)", env, types=types) == BoolV(False)
    # the converse: the antecedent confines x through the predicate's body
    converse = "forall x :: InArray(a, x) ==> x in result"
    assert quantifier_domain(f, converse, env, types=types) == _ints(1, 2, 3, 4, 5)
    assert evaluate(f, converse, env, types=types) == BoolV(False)
    assert quantifier_domain(f, "forall x :: !InArray(a, x) || x == 3 || x in result", env, types=types) == _ints(
        1, 2, 3, 4, 5
    )
    # `!=` between truth values: exactly one side holds (a symmetric difference)
    xor = "forall x :: x in result <==> (InArray(a, x) != (x in [2, 7]))"
    assert quantifier_domain(f, xor, env, types=types) == _ints(1, 2, 3, 4, 5, 7, 9)
    assert evaluate(f, xor, env, types=types) == BoolV(False)
    env2 = {**env, "result": parse_value("[1, 3, 4, 5, 7]", SeqT(IntT()))}
    assert evaluate(f, xor, env2, types=types) == BoolV(True)
    witness = "exists x :: (exists i :: 0 <= i < a.Length && a[i] == x) && x !in result && x > 2"
    assert quantifier_domain(f, witness, env, types=types) == _ints(1, 2, 3, 4, 5)
    assert evaluate(f, witness, env, types=types) == BoolV(True)
    assert evaluate(f, "set x | InArray(a, x) && x % 2 == 1", env, types=types) == SetV(frozenset(_ints(1, 3, 5)))
    # if-then-else: either branch's domain; an explicit `nat` drops the negative candidates
    ite = "exists x: nat :: if x in result then x <= 9 else x == -1 || x == 2"
    assert quantifier_domain(f, ite, env, types=types) == _ints(1, 2, 9)
    assert quantifier_domain(f, ite.replace("x: nat", "x"), env, types=types) == _ints(-1, 1, 2, 9)


@pytest.mark.parametrize(
    "text",
    [
        "forall x :: x !in result ==> Positive(x)",  # true at infinitely many x: no finite domain
        "forall x :: x in result || x in a[..]",  # false outside both: a counterexample everywhere
        "forall x :: x in result <==> x !in a[..]",  # both sides false is not the irrelevant case here
        "forall x :: Positive(x) ==> x in result",  # x > 0 alone is not finite
        "forall x :: InNat(result, x) ==> x in a[..]",  # a parameter of a subset type: value unknown below 0
        "exists x :: x !in result",
        "forall x: pos :: x !in result || InArray(a, x)",  # a subset type may not hold every candidate
        "forall x, y :: x in result <==> y in result",  # each side needs both variables
    ],
)
def test_no_domain_where_none_can_be_shown(text: str) -> None:
    f, env, types = _case_572("[1, 9]")
    assert quantifier_domain(f, text, env, types=types) is None
    with pytest.raises(NoValue):
        evaluate(f, text, env, types=types)


def test_domain_inference_stays_within_the_budget() -> None:
    f, env, types = _case_572("[1, 4, 5]")
    out = ground_facts(f, [SPEC_572], env, env, types, budget=20)
    assert out.limits == (f"ground evaluation stopped at 20 steps in `{SPEC_572}`",)
    with pytest.raises(NoValue, match="stopped at 20 steps"):
        evaluate(f, SPEC_572, env, types=types, budget=20)


def test_counterexample_facts_of_the_572_spec() -> None:
    f, env, types = _case_572("[1, 4, 5]")
    m = f.find("M")
    assert m is not None
    out = ground_facts(f, m.clause_texts("ensures"), env, env, types)
    assert out == GroundFacts(
        (
            "  assert 0 <= 1 < a.Length && a[1] == 2;",  # the inner witness, then the counterexample x = 2
            "  assert !(2 in result <==> (exists i :: 0 <= i < a.Length && a[i] == 2));",
        ),
        (),
    )
    f, env, types = _case_572("[1, 2, 3, 4, 5]")
    assert ground_facts(f, m.clause_texts("ensures"), env, env, types) == GroundFacts((), ())  # both true


# -- the real verifier -------------------------------------------------------------------------------

SUMTO = """
function sumTo(a: array<int>, start: int, end: int): int
  requires 0 <= start <= end <= a.Length
  reads a
{ if start == end then 0 else sumTo(a, start, end-1) + a[end-1] }
"""

# (name, declarations and a bodiless method M with the spec, inputs, accepted output, rejected output)
SCENARIOS = [
    (
        "three-sequence-count",
        "method M(a: seq<int>, b: seq<int>, c: seq<int>) returns (count: int)\n"
        "  requires |a| == |b| == |c|\n"
        "  ensures count == |set i: int | 0 <= i < |a| && a[i] == b[i] && b[i] == c[i]|\n",
        {"a": "[5, 1, 9, 9, 2]", "b": "[5, 3, 9, 9, 7]", "c": "[5, 1, 9, 0, 2]"},
        "2",
        "3",
    ),
    (
        "uppercase-count",
        "predicate IsUpper(c: char) { 'A' <= c <= 'Z' }\n"
        "method M(s: string) returns (r: int)\n"
        "  ensures r == |set i | 0 <= i < |s| && IsUpper(s[i])|\n",
        {"s": '"AbcDeFgH"'},
        "4",
        "3",
    ),
    (
        "prime-1003",
        "method M(n: int) returns (r: bool)\n  ensures r <==> forall k :: 2 <= k < n ==> n % k != 0\n",
        {"n": "1003"},
        "false",
        "true",
    ),
    (
        "prime-1009",
        "method M(n: int) returns (r: bool)\n  ensures r <==> forall k :: 2 <= k < n ==> n % k != 0\n",
        {"n": "1009"},
        "true",
        "false",
    ),
    (
        "sumTo-from-1",
        SUMTO + "method M(a: array<int>, start: int) returns (r: int)\n"
        "  requires 0 <= start <= a.Length\n  ensures r == sumTo(a, start, a.Length)\n",
        {"a": "new int[] [1, 5, -2, 4, 10]", "start": "1"},
        "17",
        "18",
    ),
    (
        "max-of-prefixes",  # recursion on `a[..|a|-1]`: needs the slice facts (extensionality)
        "function Max(a: seq<int>): int\n  requires |a| > 0\n{\n  if |a| == 1 then a[0]\n  else\n"
        "    var maxPrefix := Max(a[..|a|-1]);\n    if a[|a|-1] >= maxPrefix then a[|a|-1] else Max(a[..|a|-1])\n}\n"
        "method M(a: array<int>) returns (m: int)\n  requires a.Length > 0\n  ensures m == Max(a[..])\n",
        {"a": "new int[] [7, 2, 9, 4, 11, 3, 8, 1, 5, 6, 12, 0]"},
        "12",
        "11",
    ),
]


def _input_fact(name: str, v: Value, t: DafnyType) -> str:
    """`assume`d input facts, as the harness states them (VERIFIER.md: stable across files)."""
    if isinstance(t, ArrayT):
        assert isinstance(v, ArrayV)
        parts = [f"{name}.Length == {len(v.elems)}"]
        parts += [f"{name}[{i}] == {to_dafny(e, t.elem)}" for i, e in enumerate(v.elems)]
        return " && ".join([*parts, f"{name}[..] == {to_dafny(SeqV(v.elems), SeqT(t.elem))}"])
    return f"{name} == {to_dafny(v, t)}"


def _check_method(
    file: DafnyFile, label: str, inputs: Mapping[str, str], output: str, accept: bool, with_facts: bool = True
) -> tuple[str, GroundFacts]:
    """A method assuming the inputs, assigning the output, then the facts and the question."""
    m = file.find("M")
    assert m is not None
    types = {p.name: p.type for p in (*m.params, *m.returns)}
    env = {p.name: parse_value(inputs[p.name], p.type) for p in m.params}
    out = m.returns[0]
    env[out.name] = parse_value(output, out.type)
    pre = {p.name: env[p.name] for p in m.params}
    facts = ground_facts(file, m.clause_texts("ensures"), env, pre, types)
    params = ", ".join(f"{p.name}: {p.type_text}" for p in m.params)
    goal = " && ".join(f"({t})" for t in m.clause_texts("ensures"))
    lines = [
        f"method {label}({params}) returns ({out.name}: {out.type_text})",
        *(f"  requires {t}" for t in m.clause_texts("requires")),
        "{",
        *(f"  assume {_input_fact(p.name, env[p.name], p.type)};" for p in m.params),
        f"  {out.name} := {output};",
        *(facts.statements if with_facts else ()),
        f"  assert {goal};" if accept else f"  assert !({goal});",
        "}",
    ]
    return "\n".join(lines), facts


def _verify(dafny: str, path: Path, text: str) -> tuple[int, str, float]:
    path.write_text(text)
    start = time.monotonic()
    proc = subprocess.run(
        [dafny, "/compile:0", "/nologo", "/timeLimit:20", str(path)], capture_output=True, text=True, timeout=300
    )
    return proc.returncode, proc.stdout, time.monotonic() - start


@pytest.mark.dafny
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_facts_decide_acceptance_and_rejection(
    scenario: tuple[str, str, dict[str, str], str, str], dafny_command: str, tmp_path: Path
) -> None:
    """Acceptance of the right output and rejection of a wrong one both verify with the facts; the
    control (the acceptance without facts) fails, except for the prime 1009, which z3 proves alone."""
    name, source, inputs, good, bad = scenario
    file = parse_file(source)
    accept, accept_facts = _check_method(file, "Accept", inputs, good, accept=True)
    reject, reject_facts = _check_method(file, "Reject", inputs, bad, accept=False)
    control, _ = _check_method(file, "Control", inputs, good, accept=True, with_facts=False)
    if name == "prime-1009":
        # a true `forall` has no decisive instance; its 1007 instances use up the default budget
        assert accept_facts.statements == () and accept_facts.limits == (
            "ground evaluation stopped at 10000 steps in `r <==> forall k :: 2 <= k < n ==> n % k != 0`",
        )
    else:
        assert accept_facts.statements and not accept_facts.limits and not reject_facts.limits
    text = "\n".join([source, accept, reject, control])
    rc, out, seconds = _verify(dafny_command, tmp_path / f"{name}.dfy", text)
    print(f"{name}: {seconds:.2f} s, facts: {len(accept_facts.statements)} + {len(reject_facts.statements)}")
    control_line = text.splitlines().index(control.splitlines()[0]) + 1
    errors = [int(x.split("(")[1].split(",")[0]) for x in out.splitlines() if ": Error" in x]
    assert all(line > control_line for line in errors), out + "\n" + text  # Accept and Reject verified
    if name == "prime-1009":
        assert rc == 0 and not errors, out
    else:
        assert rc == 4 and len(errors) == 1, out


OLD_STATE = """
function sum(a: array<int>, n: int): int requires 0 <= n <= a.Length reads a
{ if n == 0 then 0 else sum(a, n - 1) + a[n - 1] }
method M(a: array<int>)
  modifies a
  ensures sum(a, a.Length) == old(sum(a, a.Length)) + a.Length
  ensures |set i | 0 <= i < a.Length && a[i] != old(a[i])| == a.Length
"""


@pytest.mark.dafny
def test_old_state_facts_verify_for_an_in_place_method(dafny_command: str, tmp_path: Path) -> None:
    """Facts about the pre-state come wrapped in old(...), after the array was modified in place."""
    file = parse_file(OLD_STATE)
    m = file.find("M")
    assert m is not None
    t = m.params[0].type
    pre = {"a": parse_value("[1, 2, 3, 4]", t)}
    goal = " && ".join(f"({c})" for c in m.clause_texts("ensures"))
    methods = []
    for label, after, accept in [("Accept", [2, 3, 4, 5], True), ("Reject", [2, 3, 4, 4], False)]:
        post = {"a": parse_value(str(after), t)}
        facts = ground_facts(file, m.clause_texts("ensures"), post, pre, {"a": t})
        assert "  assert old(sum(a, a.Length) == 10);" in facts.statements
        methods += [
            f"method {label}(a: array<int>)\n  modifies a\n{{",
            f"  assume {_input_fact('a', pre['a'], t)};",
            *(f"  a[{i}] := {v};" for i, v in enumerate(after)),
            *facts.statements,
            f"  assert {goal};" if accept else f"  assert !({goal});",
            "}",
        ]
    rc, out, seconds = _verify(dafny_command, tmp_path / "old.dfy", OLD_STATE + "\n".join(methods))
    print(f"old-state: {seconds:.2f} s")
    assert rc == 0 and "0 errors" in out, out



# (name, source with a bodiless method M, inputs, accepted output, rejected outputs)
DOMAIN_SCENARIOS = [
    ("remove-duplicates-572", REMOVE_DUPLICATES, {"a": "new int[] [1, 2, 3, 2, 3, 4, 5]"}, "[1, 2, 3, 4, 5]",
     ["[1, 4, 5]"]),
    (
        "array-difference",  # through a predicate's body; one output misses 5, the other adds 7
        "predicate InArray(a: array<int>, x: int) reads a { exists i :: 0 <= i < a.Length && a[i] == x }\n"
        "method M(a: array<int>, b: array<int>) returns (result: seq<int>)\n"
        "  ensures forall x :: x in result <==> InArray(a, x) && !InArray(b, x)\n"
        "  ensures forall i, j :: 0 <= i < j < |result| ==> result[i] != result[j]\n",
        {"a": "new int[] [1, 2, 3, 2, 3, 4, 5]", "b": "new int[] [4, 7, 1]"},
        "[2, 3, 5]",
        ["[2, 3]", "[2, 3, 5, 7]"],
    ),
]


@pytest.mark.dafny
@pytest.mark.parametrize("scenario", DOMAIN_SCENARIOS, ids=[s[0] for s in DOMAIN_SCENARIOS])
def test_inferred_domain_gives_the_counterexample_that_proves_rejection(
    scenario: tuple[str, str, dict[str, str], str, list[str]], dafny_command: str, tmp_path: Path
) -> None:
    """Specs whose `forall x` is bounded only by membership in its body. MBPP-DFY 572 (a wrong spec,
    by its labels): the expected [1, 4, 5] for a = [1, 2, 3, 2, 3, 4, 5] is rejected since x = 2 is in
    a but not in the result. Without facts the verifier proves no rejection (the controls fail); with
    the counterexample found in the domain the body confines x to, every rejection verifies, and the
    acceptance still does."""
    name, source, inputs, good, bads = scenario
    file = parse_file(source)
    accept, accept_facts = _check_method(file, "Accept", inputs, good, accept=True)
    rejects, controls = [], []
    for k, bad in enumerate(bads):
        reject, reject_facts = _check_method(file, f"Reject{k}", inputs, bad, accept=False)
        assert reject_facts.statements[-1].startswith("  assert !(") and not reject_facts.limits
        rejects.append(reject)
        controls.append(_check_method(file, f"Control{k}", inputs, bad, accept=False, with_facts=False)[0])
    if name == "remove-duplicates-572":
        assert accept_facts == GroundFacts((), ())  # a true forall has no decisive instance
        assert reject_facts.statements == (
            "  assert 0 <= 1 < a.Length && a[1] == 2;",
            "  assert !(2 in result <==> (exists i :: 0 <= i < a.Length && a[i] == 2));",
        )
    text = "\n".join([source, accept, *rejects, *controls])
    rc, out, seconds = _verify(dafny_command, tmp_path / f"{name}.dfy", text)
    print(f"{name}: {seconds:.2f} s, facts: {len(accept_facts.statements)} + {len(reject_facts.statements)}")
    control_line = text.splitlines().index(controls[0].splitlines()[0]) + 1
    errors = [int(x.split("(")[1].split(",")[0]) for x in out.splitlines() if ": Error" in x]
    assert rc == 4 and len(errors) == len(bads) and all(line > control_line for line in errors), out + "\n" + text


SET_FOLDS = parse_file("""function SetProduct(s: set<int>): int
{
  if s == {} then 1 else var x :| x in s; x * SetProduct(s - {x})
}
function AnyOf(s: set<int>): int
  requires s != {}
{
  var x :| x in s; x
}
function Fib(n: nat): nat { if n < 2 then n else Fib(n - 1) + Fib(n - 2) }
""", "folds.dfy")


def test_let_such_that_parses_and_prints() -> None:
    e = parse_expr("var x: int :| x in s && x > 0; x * 2")
    assert unparse(e) == "var x: int :| x in s && x > 0; x * 2"
    assert unparse(e, {"x": "9", "s": "{1}"}) == "var x: int :| x in {1} && x > 0; x * 2"  # x is bound inside


def test_let_such_that_has_a_value_only_when_every_choice_agrees() -> None:
    s = SetV(frozenset({IntV(2), IntV(3), IntV(5)}))
    assert evaluate(SET_FOLDS, "SetProduct(s)", {"s": s}) == IntV(30)  # a fold: order-independent
    with pytest.raises(NoValue):
        evaluate(SET_FOLDS, "AnyOf(s)", {"s": s})  # which element Dafny picks is not known
    assert evaluate(SET_FOLDS, "AnyOf(s)", {"s": SetV(frozenset({IntV(4)}))}) == IntV(4)
    # the facts of every choice, so the verifier can follow whichever it takes
    out = ground_facts(SET_FOLDS, ["r == SetProduct(set x | x in a)"], {"r": IntV(30), "a": SeqV(
        (IntV(2), IntV(3), IntV(5)))}, {}, {})
    for fact in ("SetProduct({3, 5}) == 15", "SetProduct({2, 5}) == 10", "SetProduct({2, 3}) == 6",
                 "{2, 3, 5} - {2} == {3, 5}"):
        assert any(fact in line for line in out.statements), (fact, out.statements)


def test_a_function_is_not_evaluated_outside_a_nat_parameter() -> None:
    with pytest.raises(NoValue):
        evaluate(SET_FOLDS, "Fib(-1)", {})
    assert evaluate(SET_FOLDS, "Fib(10)", {}) == IntV(55)
