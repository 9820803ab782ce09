from __future__ import annotations

from pathlib import Path

import pytest

from bot.dafny.decls import DafnyFile, Decl
from bot.dafny.lexer import TokKind, tokenize
from bot.dafny.parser import ANONYMOUS_CONSTRUCTOR, DafnyParseError, parse_file
from bot.dafny.types import (
    ArrayT,
    BoolT,
    CharT,
    IntT,
    MapT,
    NatT,
    SeqT,
    StringT,
    TupleT,
    Unsupported,
    unsupported_parts,
)


def one(src: str, name: str) -> Decl:
    decl = parse_file(src).find(name)
    assert decl is not None, f"{name} not found"
    return decl


def names(src: str) -> list[str]:
    return [d.name for d in parse_file(src).decls]


# -- basic shape -------------------------------------------------------------------------------

BASIC = """\
// helper
method Max(a: int, b: int) returns (m: int)
  requires a >= 0
  ensures m >= a && m >= b
  ensures m == a || m == b
{
  if a > b { m := a; } else { m := b; }
}
"""


def test_method_signature_clauses_and_body() -> None:
    d = one(BASIC, "Max")
    assert d.kind == "method" and not d.ghost and d.container == ""
    assert [(p.name, p.type_text, p.type) for p in d.params] == [("a", "int", IntT()), ("b", "int", IntT())]
    assert [(p.name, p.type) for p in d.returns] == [("m", IntT())]
    assert [(c.kind, c.text, c.line) for c in d.clauses] == [
        ("requires", "a >= 0", 3),
        ("ensures", "m >= a && m >= b", 4),
        ("ensures", "m == a || m == b", 5),
    ]
    assert d.clause_texts("ensures") == ["m >= a && m >= b", "m == a || m == b"]
    assert d.body is not None
    assert BASIC[d.body[0]] == "{" and BASIC[d.body[1] - 1] == "}"
    assert BASIC[d.body[0] : d.body[1]].count("{") == 3
    assert (d.line, d.end_line) == (2, 8)
    assert BASIC[d.start :].startswith("method Max")
    assert d.end == d.body[1]
    assert d.header_end == d.clauses[-1].end
    assert BASIC[d.clauses[0].start :].startswith("requires")


def test_decl_start_includes_modifiers_and_line_is_the_keyword() -> None:
    src = "ghost\nstatic method {:axiom} M()\n"
    d = one(src, "M")
    assert d.start == 0 and d.line == 2 and d.ghost and d.kind == "method" and d.body is None


def test_dafny_file_helpers() -> None:
    f = parse_file(BASIC + "function F(): int { 1 }\n", "x.dfy")
    assert isinstance(f, DafnyFile) and f.path == "x.dfy"
    assert [d.name for d in f.methods()] == ["Max"]
    assert f.find("F") is not None and f.find("nope") is None


# -- lexer-level traps ------------------------------------------------------------------------------


def test_nested_comments_hide_declarations() -> None:
    src = "/* outer /* inner */ method X() {} */\nmethod Y() {}\n// method Z() {}\n"
    assert names(src) == ["Y"]


def test_strings_with_braces_and_slashes() -> None:
    src = 'method M() { var s := "{ // }"; var t := @"}}""{"; }\nmethod N() {}\n'
    m = one(src, "M")
    assert m.body is not None and src[m.body[0] : m.body[1]].endswith('"}}""{"; }')
    assert names(src) == ["M", "N"]


def test_char_literals_with_braces_and_quotes() -> None:
    src = "method M() { var c := '{'; var q := '\\''; var d := '}'; }\nmethod N() {}\n"
    assert names(src) == ["M", "N"]
    assert one(src, "M").end_line == 1


def test_comments_inside_and_between_clauses() -> None:
    src = """\
method M(a: array<int>) returns (r: int)
  requires a.Length > 0 // a comment with { and method X
  /* between clauses */
  ensures r >= 0 &&
          /* inside */ r < 10 // trailing
  // ensures commented_out
  ensures forall n /* name */ :: 0 <= n < a.Length ==> a[n] <= r
{
  r := 0;
}
"""
    d = one(src, "M")
    texts = [c.text for c in d.clauses]
    assert texts[0] == "a.Length > 0"
    assert texts[1].replace("\n", " ").split() == ["r", ">=", "0", "&&", "r", "<", "10"]
    assert texts[2] == "forall n   :: 0 <= n < a.Length ==> a[n] <= r"
    assert len(d.clauses) == 3


def test_attributes_anywhere_before_the_name_and_after_clause_keywords() -> None:
    src = """\
method {:axiom} A()
lemma {:induction false} {:timeLimit 3} L(n: nat)
  ensures {:induction false} n >= 0
  decreases {:attr} n
{}
function {:opaque} F(x: int): int { x }
@IsolateAssertions method B() {}
"""
    assert names(src) == ["A", "L", "F", "B"]
    lemma = one(src, "L")
    assert [(c.kind, c.text) for c in lemma.clauses] == [("ensures", "n >= 0"), ("decreases", "n")]
    assert one(src, "A").body is None


# -- types and parameters --------------------------------------------------------------------------


def test_generic_and_nested_types() -> None:
    src = (
        "method M<T(==), U>(a: seq<seq<int>>, b: array<seq<int>>, c: (int, int), d: array2<int>, "
        "e: map<int, seq<int>>, f: seq<T>, g: seq<(int, char)>) returns (r: array<array<bool>>)\n"
    )
    d = one(src, "M")
    assert [p.name for p in d.params] == ["a", "b", "c", "d", "e", "f", "g"]
    types = [p.type for p in d.params]
    assert types[0] == SeqT(SeqT(IntT()))
    assert types[1] == ArrayT(SeqT(IntT()))
    assert types[2] == TupleT((IntT(), IntT()))
    assert types[3] == Unsupported("array2<int>")
    assert d.params[4].type_text == "map<int, seq<int>>" and types[4] == MapT(IntT(), SeqT(IntT()))
    assert unsupported_parts(types[5]) == ["T"]
    assert types[6] == SeqT(TupleT((IntT(), CharT())))
    assert d.returns[0].type == ArrayT(ArrayT(BoolT()))


def test_parameter_modifiers_and_default_values() -> None:
    src = 'method M(ghost g: int, nameonly n: nat := 3, older o: seq<int>, b: bool := 1 < 2, s: string := "a,b")\n'
    d = one(src, "M")
    assert [(p.name, p.type) for p in d.params] == [
        ("g", IntT()),
        ("n", NatT()),
        ("o", SeqT(IntT())),
        ("b", BoolT()),
        ("s", StringT()),
    ]


def test_type_text_is_as_written() -> None:
    d = one("method M(s: set <int>, t: seq< int >)\n", "M")
    assert [p.type_text for p in d.params] == ["set <int>", "seq< int >"]
    assert d.params[1].type == SeqT(IntT())


def test_function_results() -> None:
    src = """\
function F(x: int): int { x }
function Named(x: int): (r: nat) ensures r >= 0 { 0 }
function Pair(): (int, int) { (1, 2) }
function Arrow(): int -> int { x => x }
predicate P(x: int) { x > 0 }
function method FM(x: int): seq<int> { [x] }
predicate method PM(x: int) { true }
"""
    f = parse_file(src)
    got = {d.name: (d.kind, [(p.name, p.type_text) for p in d.returns]) for d in f.decls}
    assert got == {
        "F": ("function", [("", "int")]),
        "Named": ("function", [("", "nat")]),
        "Pair": ("function", [("", "(int, int)")]),
        "Arrow": ("function", [("", "int -> int")]),
        "P": ("predicate", [("", "bool")]),
        "FM": ("function method", [("", "seq<int>")]),
        "PM": ("predicate method", [("", "bool")]),
    }
    named = f.find("Named")
    assert named is not None and named.clause_texts("ensures") == ["r >= 0"]
    pair = f.find("Pair")
    assert pair is not None and pair.returns[0].type == TupleT((IntT(), IntT()))


def test_kinds_as_written_without_ghost() -> None:
    src = """\
ghost function G(): int { 1 }
ghost predicate GP() { true }
opaque function O(): int { 1 }
twostate function T(o: object): bool { true }
least predicate L[nat](x: int) { true }
greatest lemma GL(x: int) {}
inductive predicate I(x: int) { true }
copredicate C(x: int) { true }
colemma CL(x: int) {}
abstract method A()
"""
    got = {d.name: (d.kind, d.ghost) for d in parse_file(src).decls}
    assert got == {
        "G": ("function", True),
        "GP": ("predicate", True),
        "O": ("function", False),
        "T": ("twostate function", False),
        "L": ("least predicate", False),
        "GL": ("greatest lemma", False),
        "I": ("inductive predicate", False),
        "C": ("copredicate", False),
        "CL": ("colemma", False),
        "A": ("method", False),
    }


def test_by_method_is_part_of_the_function() -> None:
    src = "function Fib(n: nat): nat { if n < 2 then n else Fib(n - 1) } by method {\n  return 0;\n}\n"
    d = one(src, "Fib")
    assert d.body is not None and src[d.body[1] - 1] == "}"
    assert src[d.body[1] :].startswith(" by method")
    assert d.end == len(src) - 1 and d.end_line == 3


# -- containers and skipped declarations ----------------------------------------------------------


def test_module_class_trait_datatype_members() -> None:
    src = """\
include "other.dfy"
module A {
  import opened B
  module Inner.Deep {
    method M() {}
  }
  class {:autocontracts} C<T> extends Tr {
    var f: int
    ghost var g: seq<T>
    const k := 3
    constructor () {}
    constructor Init(x: int) ensures f == x { f := x; }
    static method S() {}
  }
  trait Tr { function Id(): int }
  datatype D = A | B(x: int, y: set<int> := {}) {
    function Size(): nat { 0 }
  }
}
method Top() {}
"""
    got = [(d.container, d.name) for d in parse_file(src).decls]
    assert got == [
        ("module A.module Inner.Deep", "M"),
        ("module A.class C", ANONYMOUS_CONSTRUCTOR),
        ("module A.class C", "Init"),
        ("module A.class C", "S"),
        ("module A.trait Tr", "Id"),
        ("module A.datatype D", "Size"),
        ("", "Top"),
    ]
    init = parse_file(src).find("Init")
    assert init is not None and init.kind == "constructor" and init.clause_texts("ensures") == ["f == x"]


def test_other_declarations_are_skipped() -> None:
    src = """\
datatype Color = Red | Green | Blue(shade: int)
codatatype Stream<T> = Cons(head: T, tail: Stream<T>)
type Pos = x: int | x > 0 witness 1
type Abstract
newtype Small = x: int | 0 <= x < 10 && x in {1, 2}
const C: set<int> := {1, 2}
const L := var x := 1; x + 1
iterator Gen(n: nat) yields (x: int) ensures true { yield 1; }
export provides M
method M() {}
"""
    assert names(src) == ["M"]


def test_bodiless_methods() -> None:
    src = """\
class C {
  method A(x: int) returns (y: int)
    ensures y > x
  var field: int
  method B()
    modifies this
  method C2() ensures field == 0
}
method D() requires true
function E(): int
lemma F()
"""
    f = parse_file(src)
    assert [(d.name, d.body) for d in f.decls] == [
        ("A", None),
        ("B", None),
        ("C2", None),
        ("D", None),
        ("E", None),
        ("F", None),
    ]
    a = f.find("A")
    assert a is not None and a.clause_texts("ensures") == ["y > x"] and a.end == a.header_end
    c2 = f.find("C2")
    assert c2 is not None and c2.clause_texts("ensures") == ["field == 0"]


# -- clauses ----------------------------------------------------------------------------------------


def test_optional_semicolons_and_decreases_star() -> None:
    src = """\
method M(a: array<int>)
  requires a != null;
  modifies a;
  decreases *;
{ }
method N() decreases * { }
function F(n: nat): nat reads {} decreases n { n }
"""
    m = one(src, "M")
    assert [(c.kind, c.text) for c in m.clauses] == [
        ("requires", "a != null"),
        ("modifies", "a"),
        ("decreases", "*"),
    ]
    assert src[m.clauses[0].end - 1] == ";"
    assert one(src, "N").clause_texts("decreases") == ["*"] and one(src, "N").body is not None
    f = one(src, "F")
    assert [(c.kind, c.text) for c in f.clauses] == [("reads", "{}"), ("decreases", "n")]


def test_set_displays_in_clauses_are_not_bodies() -> None:
    src = """\
method M(s: set<int>) returns (r: set<int>)
  requires s == {1, 2}
  ensures r == s + {3} && |{1}| == 1 && multiset{1} == multiset{1}
  ensures var t := {4}; t <= r || r == {}
{
  r := s + {3, 4};
}
"""
    d = one(src, "M")
    assert d.clause_texts("requires") == ["s == {1, 2}"]
    assert d.clause_texts("ensures") == [
        "r == s + {3} && |{1}| == 1 && multiset{1} == multiset{1}",
        "var t := {4}; t <= r || r == {}",
    ]
    assert d.body is not None and src[d.body[0] :].startswith("{\n  r :=")


def test_reads_and_requires_as_members_are_not_clauses() -> None:
    src = "function Apply(f: int ~> int, x: int): int\n  requires f.requires(x)\n  reads f.reads(x)\n{ 0 }\n"
    d = one(src, "Apply")
    assert [(c.kind, c.text) for c in d.clauses] == [("requires", "f.requires(x)"), ("reads", "f.reads(x)")]
    assert d.params[0].type_text == "int ~> int"


def test_multiline_clause_keeps_its_lines() -> None:
    src = "method M(a: seq<int>)\n  ensures forall i ::\n    0 <= i < |a| ==>\n    a[i] > 0\n{}\n"
    d = one(src, "M")
    assert d.clauses[0].text == "forall i ::\n    0 <= i < |a| ==>\n    a[i] > 0"
    assert d.clauses[0].line == 2


def test_header_end_without_clauses() -> None:
    src = "method M(x: int) returns (y: int) { y := x; }\nfunction F(): seq<int> { [] }\n"
    m, f = one(src, "M"), one(src, "F")
    assert src[: m.header_end].endswith("returns (y: int)")
    assert src[: f.header_end].endswith("seq<int>")


# -- errors ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("src", "line", "needle"),
    [
        ("method M() {\n  if x {\n}\n", 1, "never closed"),
        ("method M() {}\n}\n", 2, "unmatched '}'"),
        ("method M() {\n  var x := (1];\n}\n", 2, "closes '(' opened at line 2"),
        ("method (x: int) {}\n", 1, "without a name"),
        ("method M {\n}\n", 1, "'(' expected"),
        ("\n\nfunction F(): { 1 }\n", 3, "result type expected"),
        ("method M()\n  requires\n  ensures true\n{}\n", 2, "without an expression"),
        ("method M() {}\n/* unterminated\n", 2, "unterminated"),
        ('method M() { var s := "abc\n}\n', 1, "unterminated string"),
        ("class {\n}\n", 1, "without a name"),
        ("method M()\nghost\n", 2, "without a declaration"),
        ("method M(x) returns (y: int) {}\nmethod N(x:) {}\n", 2, "has no type"),
    ],
)
def test_malformed_input_names_the_line(src: str, line: int, needle: str) -> None:
    with pytest.raises(DafnyParseError) as info:
        parse_file(src, "bad.dfy")
    err = info.value
    assert err.line == line and err.path == "bad.dfy" and needle in err.message
    assert str(err).startswith(f"bad.dfy:{line}:{err.col}: {err.message} (") and str(err).endswith(")")


def test_parse_error_is_a_value_error() -> None:
    assert issubclass(DafnyParseError, ValueError)
    assert str(DafnyParseError("f.dfy", 3, 4, "boom", "fix it")) == "f.dfy:3:4: boom (fix it)"


def test_stray_tokens_at_top_level_are_tolerated() -> None:
    assert names("method M() {};\n;\nmethod N() {}\n") == ["M", "N"]


# -- the development dataset ---------------------------------------------------------------------------


def called(f: DafnyFile, d: Decl) -> list[Decl]:
    """Declarations of f called from d's body, in order of first call."""
    assert d.body is not None
    toks = tokenize(f.source[d.body[0] : d.body[1]])
    out: list[Decl] = []
    for a, b in zip(toks, toks[1:], strict=False):
        target = f.find(a.text) if a.kind is TokKind.IDENT and b.text == "(" else None
        if target is not None and target not in out:
            out.append(target)
    return out


def main_method(test_file: DafnyFile) -> Decl:
    """The method under test: called from the test method, which Main calls."""
    main = test_file.find("Main")
    assert main is not None, f"{test_file.path}: no Main"
    tests = [d for d in called(test_file, main) if d.kind == "method"]
    assert tests, f"{test_file.path}: Main calls no test method"
    candidates = [d for d in called(test_file, tests[0]) if d.kind == "method"]
    by_name = [d for d in candidates if d.name + "Test" == tests[0].name]
    chosen = by_name or [d for d in candidates if d.clauses]
    assert chosen, f"{test_file.path}: no method under test called from {tests[0].name}"
    return chosen[0]


@pytest.mark.dataset
def test_every_dataset_file_parses_and_every_main_method_has_supported_types(dataset_root: Path) -> None:
    files = sorted(dataset_root.rglob("*.dfy"))
    assert files, f"no .dfy files under {dataset_root}"
    parsed = {path: parse_file(path.read_text(encoding="utf-8"), str(path)) for path in files}
    tests = [p for p in files if p.parent.name == "test" and p.parent.parent.name == "MBPP-DFY-153"]
    assert len(tests) >= 40
    unsupported: list[str] = []
    for test_path in tests:
        method = main_method(parsed[test_path])
        src = parsed.get(test_path.parent.parent / "src" / test_path.name)
        assert src is not None, f"{test_path}: no src twin"
        twin = src.find(method.name)
        assert twin is not None and twin.kind == "method", f"{test_path}: {method.name} not in src"
        assert [(p.name, p.type) for p in twin.params] == [(p.name, p.type) for p in method.params]
        assert [(p.name, p.type) for p in twin.returns] == [(p.name, p.type) for p in method.returns]
        assert twin.clauses, f"{test_path}: {method.name} has no specification"
        for p in (*method.params, *method.returns):
            where = f"{test_path.parent.parent.parent.name}/{test_path.name} {method.name} {p.name}"
            unsupported += [f"{where}: {u}" for u in unsupported_parts(p.type)]
    assert unsupported == []


def test_body_after_cardinality_and_comprehensions() -> None:
    src = """\
method M(s: seq<seq<int>>) returns (n: int)
  ensures forall x | x in s :: n >= |x|
{ n := 0; }
method N(s: set<int>) returns (n: int)
  ensures n == |{1, 2}| + |s|
{ n := 2 + |s|; }
"""
    m, n = one(src, "M"), one(src, "N")
    assert m.clause_texts("ensures") == ["forall x | x in s :: n >= |x|"] and m.body is not None
    assert n.clause_texts("ensures") == ["n == |{1, 2}| + |s|"] and n.body is not None


def test_members_of_types_and_newtypes() -> None:
    src = """\
newtype Digit = x: int | 0 <= x < 10 && x in {1, 2} witness 1 {
  function Twice(): int { 2 * (this as int) }
}
type Opaque {
  predicate P() { true }
}
type Pos = x: int | x > 0 witness 1
method M() {}
"""
    got = [(d.container, d.name) for d in parse_file(src).decls]
    assert got == [("newtype Digit", "Twice"), ("type Opaque", "P"), ("", "M")]


def test_labelled_clause_drops_the_label() -> None:
    d = one("method M(x: int)\n  requires Pos: x > 0\n  ensures x > 0\n{ reveal Pos; }\n", "M")
    assert [(c.kind, c.text) for c in d.clauses] == [("requires", "x > 0"), ("ensures", "x > 0")]
