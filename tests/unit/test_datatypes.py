"""User-defined datatypes without the verifier: declarations, types, literals, printing, mutants, the ground-fact
evaluator and the test readers."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.dafny.parser import parse_file
from bot.dafny.types import (
    Datatypes,
    DatatypeT,
    IntT,
    Unsupported,
    constructors,
    parse_type,
    unsupported_parts,
)
from bot.dafny.values import (
    BoolV,
    DatatypeV,
    IntV,
    SeqV,
    ValueParseError,
    parse_value,
    placeholder,
    show,
    to_dafny,
    type_check,
)
from bot.runner import with_included_datatypes
from bot.symbolic.harness import evaluate as ground
from bot.symbolic.mutants import mutate, neighbours
from bot.testcases.dfy_methods import read_dfy_tests

SPEC = """
datatype Option<T> = None | Some(value: T)
datatype Color = Red | Green | Blue
datatype List<T> = Nil | Cons(head: T, tail: List<T>)
datatype Res<+T, E(==)> = | Ok(T) | {:attr} Err(err: E) {
  predicate IsOk() { this.Ok? }
}
datatype Pair = Pair(0: int, b: bool)
module M { datatype Shape = Circle(r: int) | Square(side: int) }
datatype Stream = More(next: Stream)
datatype Boxed = Boxed(a: array<int>)

method Find(s: seq<int>, x: int) returns (r: Option<nat>)
method Paint(c: Color, l: List<int>, p: Pair) returns (q: Res<int, string>, s: M.Shape, o: Option)
method Odd(x: Stream, y: Boxed, z: seq<Option<Option<bool>>>)
"""


@pytest.fixture(scope="module")
def scope() -> Datatypes:
    return parse_file(SPEC).datatypes


def t_of(scope: Datatypes, text: str) -> DatatypeT:
    t = parse_type(text, scope)
    assert isinstance(t, DatatypeT), t
    return t


def test_declarations_generic_recursive_enumerations_members_and_attributes(scope: Datatypes) -> None:
    names = [d.name for d in scope.decls]
    assert names == ["Option", "Color", "List", "Res", "Pair", "Shape", "Stream", "Boxed"]
    res = scope.get("Res")
    assert res is not None and res.params == ("T", "E") and [c.name for c in res.ctors] == ["Ok", "Err"]
    assert [(f.name, f.type_text) for f in res.ctors[0].fields] == [("", "T")]
    pair = scope.get("Pair")
    assert pair is not None and [f.name for f in pair.ctors[0].fields] == ["0", "b"]
    cons = constructors(t_of(scope, "List<string>"))[1]
    assert (cons.name, cons.names) == ("Cons", ("head", "tail"))
    assert [str(t) for t in cons.types] == ["string", "List<string>"]


def test_signature_types_and_what_stays_unsupported(scope: Datatypes) -> None:
    f = parse_file(SPEC)
    paint = f.find("Paint")
    assert paint is not None
    assert [str(p.type) for p in paint.params] == ["Color", "List<int>", "Pair"]
    q, s, o = (p.type for p in paint.returns)
    assert isinstance(q, DatatypeT) and str(q) == "Res<int, string>"
    assert isinstance(s, Unsupported)  # a qualified name is not followed
    assert isinstance(o, Unsupported) and "type argument" in o.text  # left to inference: unknown here
    odd = f.find("Odd")
    assert odd is not None
    bad = [unsupported_parts(p.type) for p in odd.params]
    assert "no finite value" in bad[0][0] and "array inside a datatype" in bad[1][0] and bad[2] == []
    # a name two files (or modules) declare names neither
    twice = Datatypes((*scope.decls, *parse_file("datatype Color = Cyan").datatypes.decls))
    assert isinstance(parse_type("Color", twice), Unsupported)


def test_datatypes_of_an_included_file() -> None:
    inc = parse_file("datatype Option<T> = None | Some(value: T)").datatypes
    f = parse_file("method M() returns (r: Option<int>)", included=inc)
    m = f.find("M")
    assert m is not None and isinstance(m.returns[0].type, DatatypeT)


@pytest.mark.parametrize(("text", "type_text", "printed", "shown"), [
    ("Some(3)", "Option<int>", "Option.Some(3)", "Some(3)"),
    ("None", "Option<int>", "Option.None", "None"),
    ("Option.Some(value := -4)", "Option<int>", "Option.Some(-4)", "Some(-4)"),
    ("Option<int>.None", "Option<int>", "Option.None", "None"),
    ("(Some((5)))", "Option<int>", "Option.Some(5)", "Some(5)"),
    ('Cons("a", Cons("b", Nil))', "List<string>", 'List.Cons("a", List.Cons("b", List.Nil))',
     'Cons("a", Cons("b", Nil))'),
    ('Err("no")', "Res<int, string>", 'Res.Err("no")', 'Err("no")'),
    ("Pair(1, true)", "Pair", "Pair.Pair(1, true)", "Pair(1, true)"),
    ("Pair.Pair(b := false, 0 := 2)", "Pair", "Pair.Pair(2, false)", "Pair(2, false)"),
    ("[Some(Some(true)), None]", "seq<Option<Option<bool>>>", "[Option.Some(Option.Some(true)), Option.None]",
     "[Some(Some(true)), None]"),
])
def test_literals_parse_and_print(scope: Datatypes, text: str, type_text: str, printed: str, shown: str) -> None:
    t = parse_type(type_text, scope)
    v = parse_value(text, t)
    assert type_check(v, t)
    assert to_dafny(v, t) == printed and show(v, t) == shown
    assert parse_value(printed, t) == v  # what the harness prints reads back


@pytest.mark.parametrize(("text", "type_text", "message"), [
    ("Purple", "Color", "a constructor: Red, Green, Blue"),
    ("Some", "Option<int>", "'(' after Some"),
    ("Some(1, 2)", "Option<int>", "1 field(s) in Some"),
    ("Some(-1)", "Option<nat>", "negative number"),
    ("Some(nope := 1)", "Option<int>", "a field of Some"),
    ("Red", "Option<int>", "a constructor: None, Some"),
])
def test_malformed_literals_say_what_is_wrong(scope: Datatypes, text: str, type_text: str, message: str) -> None:
    with pytest.raises(ValueParseError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_value(text, parse_type(type_text, scope))


def test_values_of_another_datatype_or_constructor_do_not_type_check(scope: Datatypes) -> None:
    opt = t_of(scope, "Option<int>")
    assert not type_check(DatatypeV("Color", "Red", ()), opt)
    assert not type_check(DatatypeV("Option", "Some", ()), opt)
    assert not type_check(DatatypeV("Option", "Some", (BoolV(True),)), opt)
    assert placeholder(t_of(scope, "List<int>")) == DatatypeV("List", "Nil", ())  # the finite constructor
    assert placeholder(t_of(scope, "Res<int, string>")) == DatatypeV("Res", "Ok", (IntV(0),))


def test_mutants_switch_constructors_and_change_fields(scope: Datatypes) -> None:
    t = t_of(scope, "List<int>")
    v = parse_value("Cons(1, Cons(2, Nil))", t)
    found = mutate((v,), (t,), ("l",), seed=7, count=12)
    assert found == mutate((v,), (t,), ("l",), seed=7, count=12)  # deterministic
    texts = [m.description for m in found]
    assert "l: Cons(1, Cons(2, Nil)) -> Nil" in texts
    assert any(d.startswith("l.head: 1 -> ") for d in texts)
    assert any(d.startswith("l.tail.head: 2 -> ") for d in texts)
    assert all(m.values[0] != v and type_check(m.values[0], t) for m in found)
    none = parse_value("None", t_of(scope, "Option<nat>"))
    switched = mutate((none,), (t_of(scope, "Option<nat>"),), ("r",), seed=1, count=5)
    assert switched and all(m.values[0].ctor == "Some" for m in switched if isinstance(m.values[0], DatatypeV))
    assert len({m.values[0] for m in switched}) == len(switched) >= 2
    color = t_of(scope, "Color")
    assert sorted(show(m.values[0], color) for m in mutate((parse_value("Green", color),), (color,), ("c",),
                                                            seed=1, count=5)) == ["Blue", "Red"]
    assert neighbours((parse_value("Some(2)", t_of(scope, "Option<int>")),), (t_of(scope, "Option<int>"),)) == [
        (DatatypeV("Option", "None", ()),)]


def test_the_ground_evaluator_builds_and_reads_datatype_values() -> None:
    f = parse_file(SPEC + "function Get(o: Option<int>, d: int): int { if o.Some? then o.value else d }\n")
    opt = t_of(f.datatypes, "Option<int>")
    env = {"r": parse_value("Some(3)", opt), "n": parse_value("None", opt)}

    def ev(text: str) -> object:
        return ground.evaluate(f, text, env, {}, {})

    assert ev("r.Some? && !n.Some? && n.None?") == BoolV(True)
    assert ev("r.value + 1") == IntV(4)
    assert ev("r == Some(3) && r == Option.Some(3) && n == None && Color.Red == Red") == BoolV(True)
    assert ev("Get(r, 0) + Get(None, 7)") == IntV(10)
    assert ev("Cons(1, Nil).tail") == DatatypeV("List", "Nil", ())
    assert ground.literal(DatatypeV("Option", "Some", (SeqV(()),))) == "Option.Some([])"
    for unknown in ("n.value", "Some(1, 2)", "Purple", "r.nope"):
        with pytest.raises(ground.NoValue):
            ev(unknown)


def test_tests_that_write_values_with_constructors() -> None:
    f = parse_file(SPEC + """
method TestFind() {
  var r := Find([3, 1, 3], 1);
  expect r == Some(1);
  var none: Option<nat> := None;
  var r2 := Find([], 1);
  expect r2 == none;
  var r3 := Find([5], 5);
  assert r3 == Option.Some(value := 0);
  var r4 := Find([5], 6);
  expect r4 == Nothing(0);
}
""")
    read = read_dfy_tests(f, f.find("Find"))
    t = t_of(f.datatypes, "Option<nat>")
    assert [c.expected for c in read.cases] == [
        (parse_value("Some(1)", t),), (parse_value("None", t),), (parse_value("Some(0)", t),)]
    assert len(read.problems) == 1 and "Nothing" in read.problems[0].reason, read.problems


def test_int_types_inside_datatypes_are_resolved_per_use(scope: Datatypes) -> None:
    some = constructors(t_of(scope, "Option<Option<int>>"))[1]
    assert some.types == (t_of(scope, "Option<int>"),) and constructors(t_of(scope, "Option<int>"))[1].types == (
        IntT(),)


def test_a_datatype_whose_type_grows_with_each_level_is_unsupported_by_name() -> None:
    f = parse_file("datatype N<T> = L(T) | M(N<seq<T>>)\nmethod X(n: N<int>)\n")
    x = f.find("X")
    assert x is not None
    assert unsupported_parts(x.params[0].type) == ["N (its values nest its type ever deeper)"]


def test_a_constructor_name_another_declaration_takes_is_read_only_qualified() -> None:
    """Dafny reads a bare name that a function (or a constant) also declares as that declaration: `Some(3)` below is
    `None`. Such a literal is refused, never read as the constructor; the qualified one is read."""
    f = parse_file("datatype Option = None | Some(v: int)\nfunction method Some(x: int): Option { None }\n"
                   "method F(x: int) returns (r: Option)\n")
    t = t_of(f.datatypes, "Option")
    with pytest.raises(ValueParseError, match="write `Option.Some` for the constructor"):
        parse_value("Some(3)", t)
    assert parse_value("Option.Some(3)", t) == DatatypeV("Option", "Some", (IntV(3),))
    assert parse_value("None", t) == DatatypeV("Option", "None", ())
    assert ground.evaluate(f, "Some(3)", {}, {}, {}) == DatatypeV("Option", "None", ())  # the function's value
    # a test file declaring the name: its bare use there is not the constructor either
    tests = parse_file("const None: Option := Option.Some(3)\nmethod T() {\n  var r := F(3);\n  expect r == None;\n"
                       "  var q := F(4);\n  expect q == Option.None;\n}\n")
    read = read_dfy_tests(tests, f.find("F"))
    assert [c.expected for c in read.cases] == [(DatatypeV("Option", "None", ()),)]
    assert len(read.problems) == 1 and "declared by the test file too" in read.problems[0].reason


def test_finite_values_are_worked_out_once_for_many_mutually_recursive_datatypes() -> None:
    n = 12  # each datatype names every other: a search without memory takes factorial time here
    decls = "\n".join(f"datatype D{i} = C{i}(" + ", ".join(f"f{j}: D{j}" for j in range(n) if j != i)
                      + f", me: D{i}) | E{i}" for i in range(n))
    f = parse_file(decls + "\nmethod F(x: D0) returns (r: D0)\n")
    x = f.find("F")
    assert x is not None
    t = x.params[0].type
    assert unsupported_parts(t) == [] and placeholder(t) == DatatypeV("D0", "E0", ())
    # a constructor whose fields reach back to its own type is never the one a placeholder follows
    g = parse_file("datatype A = A1(b: B) | A2(a: A)\ndatatype B = B1(a: A) | B2\nmethod G(x: A)\n").find("G")
    assert g is not None
    assert placeholder(g.params[0].type) == DatatypeV("A", "A1", (DatatypeV("B", "B2", ()),))


def test_literals_dafny_would_not_parse_are_refused(scope: Datatypes) -> None:
    with pytest.raises(ValueParseError, match="a field after ','"):
        parse_value("Some(1,)", t_of(scope, "Option<int>"))
    with pytest.raises(ValueParseError, match="unbalanced"):
        parse_value("Option<int>>.None", t_of(scope, "Option<int>"))


def test_an_unsupported_field_type_is_named_alone() -> None:
    f = parse_file("datatype D = A(s: iset<int>) | B(d: D)\nmethod M(x: D)\n")
    m = f.find("M")
    assert m is not None
    assert unsupported_parts(m.params[0].type) == ["iset<int>"]


def test_a_function_of_an_included_file_hides_a_constructor_of_the_same_name(tmp_path: Path) -> None:
    (tmp_path / "types.dfy").write_text("datatype Option = None | Some(v: int)\n"
                                        "function method Some(x: int): Option { None }\n")
    spec = tmp_path / "spec.dfy"
    spec.write_text('include "types.dfy"\nmethod F(x: int) returns (r: Option)\n')
    f = with_included_datatypes(parse_file(spec.read_text(), str(spec)), tmp_path, spec)
    m = f.find("F")
    assert m is not None
    t = m.returns[0].type
    assert isinstance(t, DatatypeT) and "Some" in f.datatypes.shadowed
    with pytest.raises(ValueParseError, match="write `Option.Some` for the constructor"):
        parse_value("Some(3)", t)
    assert parse_value("Option.Some(3)", t) == DatatypeV("Option", "Some", (IntV(3),))
