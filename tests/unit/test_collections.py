"""Sets, multisets and maps as values: types, literals, printing, mutants and what the model decoder refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.dafny.parser import parse_file
from bot.dafny.types import (
    ArrayT,
    DafnyType,
    IntT,
    MapT,
    MultisetT,
    SeqT,
    SetT,
    StringT,
    TupleT,
    Unsupported,
    parse_type,
    unsupported_parts,
)
from bot.dafny.values import (
    BoolV,
    CharV,
    DatatypeV,
    IntV,
    MapV,
    MultisetV,
    SeqV,
    SetV,
    Value,
    ValueParseError,
    parse_value,
    placeholder,
    show,
    to_dafny,
    type_check,
)
from bot.runner import with_included_datatypes
from bot.symbolic.counterexamples import decode, unreadable_types
from bot.symbolic.harness.evaluate import NoValue, evaluate
from bot.symbolic.mutants import mutate, neighbours
from bot.testcases.splitting import StmtKind, parse_statements


def pv(text: str, type_text: str) -> Value:
    return parse_value(text, parse_type(type_text))


def ints(*xs: int) -> tuple[Value, ...]:
    return tuple(IntV(x) for x in xs)


def test_collection_types_parse_and_infinite_ones_stay_unsupported() -> None:
    assert parse_type("set<int>") == SetT(IntT())
    assert parse_type("multiset<seq<int>>") == MultisetT(SeqT(IntT()))
    assert parse_type("map<string, set<int>>") == MapT(StringT(), SetT(IntT()))
    assert parse_type("map<int, map<int, int>>") == MapT(IntT(), MapT(IntT(), IntT()))
    assert str(parse_type("map<int,seq<bool>>")) == "map<int, seq<bool>>"
    assert isinstance(parse_type("iset<int>"), Unsupported)
    assert isinstance(parse_type("imap<int, int>"), Unsupported)
    assert isinstance(parse_type("map<int>"), Unsupported)
    assert unsupported_parts(parse_type("map<iset<int>, int>")) == ["iset<int>"]
    # an array in a set is a reference: its value says nothing the tool can compare
    assert unsupported_parts(parse_type("set<array<int>>")) == [
        "set<array<int>> (an array inside a set is a reference the tool cannot compare)"]
    assert unsupported_parts(parse_type("map<int, array<int>>"))
    assert unsupported_parts(parse_type("map<int, seq<char>>")) == []


def test_set_literals_are_read_in_any_order_and_printed_sorted() -> None:
    v = pv("{3, 1, -2, 1}", "set<int>")
    assert v == SetV(ints(-2, 1, 3)) == SetV(ints(3, -2, 1))
    assert to_dafny(v, SetT(IntT())) == "{-2, 1, 3}"
    assert to_dafny(pv("{}", "set<int>"), SetT(IntT())) == "{}"
    assert to_dafny(pv('{"b", "a", ""}', "set<string>"), SetT(StringT())) == '{"", "a", "b"}'
    assert to_dafny(pv("{{2}, {}, {1, 2}}", "set<set<int>>"), parse_type("set<set<int>>")) == "{{}, {1, 2}, {2}}"
    assert to_dafny(pv("({1})", "set<int>"), SetT(IntT())) == "{1}"


def test_multiset_literals_keep_multiplicities() -> None:
    t = parse_type("multiset<int>")
    v = pv("multiset{2, 1, 2}", "multiset<int>")
    assert v == MultisetV(((IntV(1), 1), (IntV(2), 2)))
    assert to_dafny(v, t) == "multiset{1, 2, 2}"
    assert pv("multiset([2, 2, 1])", "multiset<int>") == v
    assert pv("multiset({2, 2, 1})", "multiset<int>") == MultisetV.of(ints(1, 2))  # a set: each once
    assert to_dafny(placeholder(t), t) == "multiset{}"
    with pytest.raises(ValueError, match="negative multiplicity"):
        MultisetV(((IntV(1), -1),))


def test_map_literals_sorted_by_key_and_a_key_given_two_values_refused() -> None:
    t = parse_type("map<int, string>")
    v = pv('map[2 := "b", -1 := "a"]', "map<int, string>")
    assert to_dafny(v, t) == 'map[-1 := "a", 2 := "b"]'
    assert pv('map[-1 := "a", 2 := "b", 2 := "b"]', "map<int, string>") == v
    assert to_dafny(pv("map[]", "map<int, string>"), t) == "map[]"
    with pytest.raises(ValueParseError, match="gives a key two values"):
        pv("map[1 := 2, 1 := 3]", "map<int, int>")
    with pytest.raises(ValueParseError, match="expected ':='"):
        pv("map[1, 2]", "map<int, int>")
    with pytest.raises(ValueParseError, match="a key after ','"):
        pv("map[1 := 2,]", "map<int, int>")


@pytest.mark.parametrize(("text", "type_text", "message"), [
    ("{1,}", "set<int>", "expected int literal"),
    ("{1", "set<int>", "',' or '}'"),
    ("[1]", "set<int>", "expected set<int> literal"),
    ("{1}", "multiset<int>", "expected multiset<int> literal"),
    ("multiset{true}", "multiset<int>", "expected int literal"),
    ("{1 := 2}", "map<int, int>", "expected map<int, int> literal"),
    ("map[1 := true]", "map<int, int>", "expected int literal"),
])
def test_malformed_collection_literals_say_what_was_expected(text: str, type_text: str, message: str) -> None:
    with pytest.raises(ValueParseError, match=message):
        pv(text, type_text)


def test_type_check_and_human_text() -> None:
    assert type_check(SetV(ints(1)), SetT(IntT()))
    assert not type_check(SetV(ints(-1)), parse_type("set<nat>"))
    assert not type_check(SeqV(ints(1)), SetT(IntT()))
    assert type_check(MapV(((IntV(1), SetV(())),)), parse_type("map<int, set<int>>"))
    assert not type_check(MapV(((IntV(1), IntV(2)),)), parse_type("map<int, set<int>>"))
    t = parse_type("set<char>")
    assert show(SetV((CharV("é"), CharV("a"))), t) == "{'a', 'é'}"
    assert to_dafny(SetV((CharV("é"), CharV("a"))), t) == "{'a', '\\u00E9'}"


def test_a_datatype_holding_a_map_reads_and_prints() -> None:
    f = parse_file("datatype Dict = Dict(entries: map<int, int>, name: string) | Empty\nmethod M(d: Dict)\n")
    m = f.find("M")
    assert m is not None
    t = m.params[0].type
    assert unsupported_parts(t) == []
    v = parse_value('Dict(map[3 := 4, 1 := 2], "a")', t)
    assert v == DatatypeV("Dict", "Dict", (MapV(((IntV(1), IntV(2)), (IntV(3), IntV(4)))), SeqV((CharV("a"),))))
    assert to_dafny(v, t) == 'Dict.Dict(map[1 := 2, 3 := 4], "a")'
    assert to_dafny(placeholder(t), t) == 'Dict.Dict(map[], "")'
    muts = mutate((v,), (t,), ("r",), seed=3, count=12)
    assert any(".entries" in x.description for x in muts)


@pytest.mark.parametrize(("type_text", "text"), [
    ("set<int>", "{1, 3, 5}"), ("set<int>", "{}"), ("multiset<nat>", "multiset{0, 0, 2}"),
    ("map<int, string>", 'map[1 := "a", 2 := "b"]'), ("map<int, bool>", "map[]"),
    ("set<set<int>>", "{{}, {1}}"), ("map<char, multiset<int>>", "map['a' := multiset{1, 1}]"),
])
def test_mutants_of_collections_are_distinct_typed_and_seeded(type_text: str, text: str) -> None:
    t = parse_type(type_text)
    v = parse_value(text, t)
    muts = mutate((v,), (t,), ("r",), seed=7, count=10)
    values = [m.values[0] for m in muts]
    assert len(values) == 10 and v not in values and len(set(values)) == len(values)
    assert all(type_check(w, t) for w in values)
    again = mutate((v,), (t,), ("r",), seed=7, count=10)
    assert [(m.values, m.description) for m in again] == [(m.values, m.description) for m in muts]
    other = mutate((v,), (t,), ("r",), seed=8, count=10)
    assert [m.values for m in other] != [m.values for m in muts] or not values


def test_each_kind_of_collection_change_is_made() -> None:
    s = parse_type("set<int>")
    descriptions = [m.description for m in mutate((pv("{1, 3}", "set<int>"),), (s,), ("r",), seed=1, count=9)]
    assert {d.split(" ")[1] for d in descriptions} == {"element", "dropped", "added"}, descriptions
    ms = parse_type("multiset<int>")
    described = [m.description for m in mutate((pv("multiset{1, 1}", "multiset<int>"),), (ms,), ("q",), seed=1)]
    assert "q: multiplicity of 1: 2 -> 3" in described and "q: multiplicity of 1: 2 -> 1" in described
    mt = parse_type("map<int, int>")
    muts = mutate((pv("map[1 := 5]", "map<int, int>"),), (mt,), ("m",), seed=1, count=9)
    texts = {m.description: to_dafny(m.values[0], mt) for m in muts}
    assert texts["m[1]: 5 -> 6"] == "map[1 := 6]"
    assert texts["m: dropped key 1"] == "map[]"
    assert any(d.startswith("m: added key ") for d in texts)


def test_neighbours_of_collections() -> None:
    t = parse_type("set<int>")
    near = [to_dafny(w[0], t) for w in neighbours((pv("{2, 4}", "set<int>"),), (t,))]
    assert near == ["{}", "{4}", "{2}"]
    mt = parse_type("multiset<int>")
    near = [to_dafny(w[0], mt) for w in neighbours((pv("multiset{1, 1}", "multiset<int>"),), (mt,))]
    assert near == ["multiset{}", "multiset{1, 1, 1}", "multiset{1}"]


MODEL = """*** MODEL
r#0 -> T@U!val!54
[2] -> {
  T@U!val!54 T@U!val!77 -> T@U!val!79
  else -> 0
}
*** END_MODEL
"""
CONSOLE = """Counterexample for first failing assertion:
f.dfy(4,0): initial state:
f.dfy(6,2):
\tr : set<int> = {1, 2}
"""


def test_the_decoder_refuses_collections_and_names_them() -> None:
    for text in (MODEL, CONSOLE):
        assert decode(text, "r", parse_type("set<int>")) is None
        assert decode(text, "r", parse_type("seq<map<int, int>>")) is None
    f = parse_file("datatype D = D(m: map<int, int>) | E\nmethod M(d: D, a: array<int>)\n")
    m = f.find("M")
    assert m is not None
    assert unreadable_types([IntT(), *(p.type for p in m.params), parse_type("(multiset<int>, set<int>)")]) == [
        "map<int, int>", "multiset<int>", "set<int>"]
    assert unreadable_types([ArrayT(IntT()), SeqT(IntT())]) == []


def test_the_ground_evaluator_reads_collection_inputs_and_leaves_nested_ones_alone() -> None:
    empty = parse_file("")
    s = pv("{1, 5, 7}", "set<int>")
    assert evaluate(empty, "|s|", {"s": s}) == IntV(3)
    assert evaluate(empty, "|set x | x in s && x > 2|", {"s": s}) == IntV(2)
    assert evaluate(empty, "s == {7, 5, 1}", {"s": s}) == BoolV(True)
    assert evaluate(empty, "ms[2]", {"ms": pv("multiset{2, 2, 3}", "multiset<int>")}) == IntV(2)
    m = pv('map["a" := 1, "B" := 2, "c" := 1]', "map<string, int>")
    assert evaluate(empty, "|m|", {"m": m}) == IntV(3)
    assert evaluate(empty, 'm["B"] + m["c"]', {"m": m}) == IntV(3)
    assert evaluate(empty, '"B" in m && "b" !in m', {"m": m}) == BoolV(True)
    assert evaluate(empty, "|m.Values| == 2 && m.Keys == {\"a\", \"B\", \"c\"}", {"m": m}) == BoolV(True)
    assert evaluate(empty, "exists k :: k in m && m[k] == 2", {"m": m}) == BoolV(True)
    assert evaluate(empty, "forall k :: k in m ==> m[k] == 1", {"m": m}) == BoolV(False)
    # no value rather than a wrong one: a key the map does not have, and collections inside other values
    with pytest.raises(NoValue):
        evaluate(empty, 'm["z"]', {"m": m})
    with pytest.raises(NoValue):
        evaluate(empty, "|m|", {"m": pv("map[1 := {2}]", "map<int, set<int>>")})
    with pytest.raises(NoValue):
        evaluate(empty, "q[0] == {1}", {"q": pv("[{1}]", "seq<set<int>>")})


def test_a_set_display_first_in_a_check_is_an_operand_not_a_block() -> None:
    stmts = parse_statements("var s := {1, 2};\nassert {2} == r;\nexpect {} == r2, \"m\";\nassert {:axiom} r3 == {};\n"
                             "if r == {} { assert r == {}; }\n")
    assert [s.kind for s in stmts] == [StmtKind.VAR, StmtKind.ASSERT, StmtKind.EXPECT, StmtKind.ASSERT,
                                       StmtKind.OTHER, StmtKind.ASSERT]
    assert stmts[1].expr == "{2} == r" and stmts[2].expr == "{} == r2"
    assert stmts[4].expr == "r == {}" and stmts[5].scope  # the `if` body is still a block
    assert not any(s.problem for s in stmts)


def param_type(src: str, name: str = "M") -> DafnyType:
    m = parse_file(src).find(name)
    assert m is not None
    return m.params[0].type


def test_type_synonyms_are_read_as_the_type_they_name() -> None:
    assert param_type("type DictCase = map<string, string>\nmethod M(d: DictCase)\n") == MapT(StringT(), StringT())
    assert param_type("type Rows = seq<(int, int)>\nmethod M(d: Rows)\n") == SeqT(TupleT((IntT(), IntT())))
    assert param_type("type P<T> = (T, T)\ntype Q = P<set<int>>\nmethod M(d: seq<Q>)\n") == SeqT(
        TupleT((SetT(IntT()), SetT(IntT()))))
    d = parse_file("datatype D = D(m: Dict)\ntype Dict = map<int, int>\nmethod M(d: D)\n").find("M")
    assert d is not None and unsupported_parts(d.params[0].type) == []
    assert parse_value("D(map[1 := 2])", d.params[0].type) == DatatypeV("D", "D", (MapV(((IntV(1), IntV(2)),)),))


@pytest.mark.parametrize(("src", "named"), [
    ("type Pos = x: int | x > 0\nmethod M(d: Pos)\n", "Pos"),  # a subset type: its values are constrained
    ("type Opaque\nmethod M(d: Opaque)\n", "Opaque"),
    ("type P<T> = (T, T)\nmethod M(d: P)\n", "P (give its 1 type argument(s))"),
    ("type A = B\ntype B = A\nmethod M(d: A)\n", "A (= B)"),  # a cycle: not a type
    ("type S = iset<int>\nmethod M(d: S)\n", "S (= iset<int>)"),
    ("type X = int\ndatatype X = X\nmethod M(d: X)\n", "X"),  # two declarations of one name: neither
])
def test_synonyms_the_tool_cannot_read_stay_unsupported_and_named(src: str, named: str) -> None:
    assert unsupported_parts(param_type(src)) == [named]


def test_synonyms_that_double_per_level_are_bounded() -> None:
    lines = ["type A0 = int", *(f"type A{i} = (A{i - 1}, A{i - 1})" for i in range(1, 40)), "method M(d: A39)"]
    bad = unsupported_parts(param_type("\n".join(lines) + "\n"))
    assert bad == ["A39 (its synonyms expand to more than 1000 uses)"]


def test_a_synonym_of_an_included_file(tmp_path: Path) -> None:
    (tmp_path / "types.dfy").write_text("type Dict = map<string, int>\n")
    spec = tmp_path / "spec.dfy"
    spec.write_text('include "types.dfy"\nmethod M(d: Dict)\n')
    f = with_included_datatypes(parse_file(spec.read_text(), str(spec)), tmp_path, spec)
    m = f.find("M")
    assert m is not None and m.params[0].type == MapT(StringT(), IntT())
