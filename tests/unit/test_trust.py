"""The background's three states, pure: what a spec reaches on the parsed program (calls, function values,
constants, types' constraints and witnesses, datatypes), which reached declarations are trusted axioms (body-less
with `ensures`, `assume`, any attribute not on the allow-list of bot/symbolic/trust.py, on the declaration, inside
it or on its class or module), a method whose own checking is off, and the dialect rewrite that never makes an
axiom. What real Dafny does with each is in tests/verifier/test_trust_real.py."""

from __future__ import annotations

import pytest

from bot.dafny.dialect import Dialect, UnreadableConstruct, to_dialect
from bot.dafny.parser import parse_file
from bot.symbolic.background import axioms, background_status, own_checking_off, reached, read_check
from bot.symbolic.results import Axiom, BackgroundStatus
from bot.symbolic.trust import ALLOWED

SPEC = "method M(x: int) returns (r: int)\n  ensures r == F(x)\n"


def _axioms(text: str, method: str = "M") -> tuple[Axiom, ...]:
    f = parse_file(text, "s.dfy")
    m = f.find(method)
    assert m is not None
    return axioms(m, [f])


def _reached(text: str) -> list[str]:
    f = parse_file(text, "s.dfy")
    m = f.find("M")
    assert m is not None
    return [d.qualified for _, d in reached(m, [f])]


# --- the allow-list: each attribute on it leaves the helper checked ------------------------------------------------

ALLOWED_USES = {
    "trigger": "function F(x: int): int\n  ensures forall i {:trigger F(i)} :: F(i) == F(i)\n{ x }\n",
    "induction": "lemma {:induction x} L(x: nat)\n  ensures x >= 0\n{ }\nfunction F(x: int): int { L(0); x }\n",
    "fuel": "function {:fuel 2, 3} F(x: int): int\n  ensures F(x) == x\n{ x }\n",
    "opaque": "function {:opaque} F(x: int): int\n  ensures F(x) == x\n{ x }\n",
    "timeLimit": "function {:timeLimit 20} F(x: int): int\n  ensures F(x) == x\n{ x }\n",
    "timeLimitMultiplier": "function {:timeLimitMultiplier 2} F(x: int): int\n  ensures F(x) == x\n{ x }\n",
    "split_here": "lemma L(x: int)\n  ensures x == x\n{ assert {:split_here} true; }\n"
                  "function F(x: int): int { L(x); x }\n",
    "verify": "function {:verify true} F(x: int): int\n  ensures F(x) == x\n{ x }\n",
}


def test_every_allowed_attribute_has_a_reason_and_a_use_here() -> None:
    assert sorted(ALLOWED) == sorted(ALLOWED_USES)
    assert all(len(why) > 20 for why in ALLOWED.values())


@pytest.mark.parametrize("name", sorted(ALLOWED_USES))
def test_an_allowed_attribute_is_not_an_axiom(name: str) -> None:
    assert _axioms(ALLOWED_USES[name] + SPEC) == ()


@pytest.mark.parametrize("attribute", [
    "{:selective_checking}", "{:ignore}", "{:inline 1}", "{:verify false}", "{:verify (false)}", "{:verify}",
    "{:axiom}", "{:extern}", "{:termination false}", "{:only}", "{:assumption}", "{:no_such_attribute}",
    "{:autocontracts}",
])
def test_any_other_attribute_on_a_reached_helper_is_a_named_axiom(attribute: str) -> None:
    text = f"\nfunction {attribute} F(x: int): int\n  ensures F(x) == x\n{{ x }}\n" + SPEC
    assert _axioms(text) == (Axiom("F", 2, "s.dfy", attribute),)


@pytest.mark.parametrize("where, text, line", [
    ("in a clause", "function F(x: int): int\n  ensures {:ignore} F(x) == x\n{ x }\n", 2),
    ("in a body statement", "lemma L()\n  ensures true\n{\n  assert {:only} true;\n}\n"
                            "function F(x: int): int { L(); x }\n", 4),
    ("in a quantifier", "function F(x: int): int\n{ if forall i {:inline 1} :: i == i then x else x }\n", 2),
    ("a Dafny 4 attribute", "@Verify(false)\nfunction F(x: int): int\n  ensures F(x) == x\n{ x }\n", 1),
])
def test_an_attribute_anywhere_inside_a_reached_helper_counts(where: str, text: str, line: int) -> None:
    (found,) = _axioms(text + SPEC)
    assert found.line == line, where


@pytest.mark.parametrize("container", ["module {:verify false} A", "module {:selective_checking} A",
                                       "class {:ignore} A", "datatype {:extern} A = A0"])
def test_an_attribute_on_the_enclosing_class_or_module_counts(container: str) -> None:
    text = f"{container} {{\n  static function F(x: int): int\n    ensures F(x) == x\n  {{ x }}\n}}\n"
    text += "method M(x: int) returns (r: int)\n  ensures r == A.F(x)\n"
    # (a datatype named is reached itself too, and is an axiom of its own)
    (found,) = [a for a in _axioms(text) if a.name == "A.F"]
    assert found.line == 1 and found.why.endswith(f" on {container.split()[0]} A")


# --- body-less declarations with a postcondition --------------------------------------------------------------------


@pytest.mark.parametrize("decl, why", [
    ("ghost method G()\n  ensures false\nlemma L()\n  ensures false\n{ G(); }\n",
     "body-less ghost method with `ensures`"),
    ("lemma L()\n  ensures false\n", "body-less lemma with `ensures`"),
    ("function G(x: int): int\n  ensures false\nlemma L()\n  ensures false\n{ var y := G(0); }\n",
     "body-less function with `ensures`"),
    ("predicate G(x: int)\n  ensures false\nlemma L()\n  ensures false\n{ var y := G(0); }\n",
     "body-less predicate with `ensures`"),
])
def test_a_body_less_declaration_with_ensures_is_an_axiom(decl: str, why: str) -> None:
    text = decl + "function F(x: int): int { L(); x }\n" + SPEC
    assert [a.why for a in _axioms(text) if a.line == 1] == [why]


def test_body_less_without_a_postcondition_is_not_an_axiom() -> None:
    assert _axioms("function F(x: int): int\nlemma L(x: int)\n  requires x > 0\n" + SPEC) == ()


# --- reach on the parsed program ------------------------------------------------------------------------------------

HALF = "function {:verify false} Half(x: int): int\n  ensures Half(x) == x + 1\n{ x / 2 }\n"


def test_a_helper_reached_only_through_a_constant() -> None:
    text = HALF + "const H: int -> int := Half\nfunction F(x: int): int { H(x) }\n" + SPEC
    assert _reached(text) == ["Half", "H", "F"]
    assert _axioms(text) == (Axiom("Half", 1, "s.dfy", "{:verify false}"),)


def test_a_helper_reached_only_as_a_function_value() -> None:
    text = HALF + "function Apply(f: int -> int, x: int): int { f(x) }\n"
    text += "method M(x: int) returns (r: int)\n  ensures r == Apply(Half, x)\n"
    assert _reached(text) == ["Half", "Apply"]
    assert [a.name for a in _axioms(text)] == ["Half"]


def test_a_helper_reached_only_through_a_subset_types_constraint_or_witness() -> None:
    ok = "predicate {:ignore} Ok(x: int)\n  ensures Ok(x) ==> x < 0\n{ x > 0 }\n"
    for typ in ("type Small = x: int | Ok(x) witness 1\n", "newtype Small = x: int | x > 0 witness W()\n"
                "function W(): int { if Ok(1) then 1 else 1 }\n"):
        text = ok + typ + "method M(x: Small) returns (r: int)\n  ensures r == x\n"
        assert "Small" in _reached(text) and "Ok" in _reached(text)
        assert [(a.name, a.why) for a in _axioms(text)] == [("Ok", "{:ignore}")]


def test_a_datatype_is_reached_through_its_constructors_and_its_fields_types() -> None:
    text = ("type Pos = x: int | P(x) witness 1\npredicate P(x: int) { x > 0 }\n"
            "datatype Box = Box(p: Pos) | Empty\n"
            "method M(x: int) returns (r: int)\n  ensures r == 0 ==> Empty != Box(1)\n")
    assert _reached(text) == ["Pos", "P", "Box"]


def test_a_class_constant_and_witness_star_are_reached() -> None:
    text = ("class C {\n  const K: int := assume false; 5\n}\ntype T = x: int | x > 0 witness *\n"
            "method M(x: T) returns (r: int)\n  ensures r == C.K\n")
    assert [(a.name, a.why) for a in _axioms(text)] == [
        ("C.K", "`assume` in its initializer"), ("T", "`witness *`: whether it has values is not checked")]


def test_a_name_reaches_the_declarations_of_every_enclosing_scope() -> None:
    # inside class C of module A, `F` is A's F, which Dafny takes on trust; the top level's F is harmless
    text = ("function F(x: int): int { x }\nmodule A {\n  function F(x: int): int\n    ensures F(x) > x\n"
            "  class C {\n  method M(x: int) returns (r: int)\n    ensures r == F(x)\n}\n}\n")
    f = parse_file(text, "s.dfy")
    m = f.find("A.C.M")
    assert m is not None
    assert [a.name for a in axioms(m, [f])] == ["A.F"]


def test_a_name_that_reaches_nothing_trusted_changes_nothing() -> None:
    text = "function Sq(x: int): int { x * x }\n" + SPEC.replace("F(x)", "Sq(x)")
    assert _reached(text) == ["Sq"] and _axioms(text) == ()


# --- three states: a declaration that must have a check and has none is not concluded --------------------------------


def test_a_helper_without_its_check_is_not_concluded() -> None:
    f = parse_file("lemma L()\n  ensures true\n{ }\nfunction F(x: int): int { L(); x }\n" + SPEC, "s.dfy")
    m = f.find("M")
    assert m is not None
    missing = read_check("check F: ok\ncheck-run: finished")
    assert background_status(m, [f], missing) == (BackgroundStatus.UNKNOWN, "L: Dafny reported no check of it")
    both = read_check("check F: ok\ncheck L: ok\ncheck-run: finished")
    assert background_status(m, [f], both) == (BackgroundStatus.VERIFIED, "")


# --- the method's own checking ------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, off", [
    ("method {:selective_checking} M(x: int) returns (r: int)\n  ensures r == x\n{ r := x; }\n", True),
    ("method {:ignore} M(x: int) returns (r: int)\n  ensures r == x\n{ r := x; }\n", True),
    ("method {:verify false} M(x: int) returns (r: int)\n  ensures r == x\n{ r := x; }\n", True),
    ("class {:ignore} C {\n  method M(x: int) returns (r: int)\n    ensures r == x\n  { r := x; }\n}\n", True),
    ("module {:verify false} A {\n  method M(x: int) returns (r: int)\n    ensures r == x\n  { r := x; }\n}\n", True),
    ("method M(x: int) returns (r: int)\n  ensures r == x\n{ assume false; r := 0; }\n", True),
    ("method M(x: int) returns (r: int)\n  ensures r == x\n{ assert {:mystery} true; r := x; }\n", True),
    ("method M(x: int) returns (r: int)\n  ensures r == x\n{ expect false; }\n", True),
    ("method {:timeLimit 30} M(x: int) returns (r: int)\n  ensures r == x\n{ r := x; }\n", False),
])
def test_a_method_whose_own_checking_is_off(text: str, off: bool) -> None:
    f = parse_file(text, "s.dfy")
    m = next(d for d in f.decls if d.name == "M")
    assert bool(own_checking_off(m, f)) is off


def test_an_attribute_on_the_scored_method_is_an_axiom_of_its_verdicts() -> None:
    text = "method {:selective_checking} M(x: int) returns (r: int)\n  ensures r == x\n"
    assert _axioms(text) == (Axiom("M", 1, "s.dfy", "{:selective_checking}"),)


# --- the dialect rewrite never makes an axiom ---------------------------------------------------------------------


@pytest.mark.parametrize("text, line, where", [
    ("lemma L()\n  ensures false\n{\n  expect false;\n}\n", 4, "lemma L"),
    ("ghost method G()\n  ensures false\n{\n  expect false, \"no\";\n}\n", 4, "ghost method G"),
    ("method M(x: int)\n{\n  assert x == x by {\n    expect false;\n  }\n}\n", 4, "a `by` block"),
])
def test_expect_in_ghost_code_makes_the_file_unreadable(text: str, line: int, where: str) -> None:
    with pytest.raises(UnreadableConstruct) as e:
        to_dialect(text, Dialect.DAFNY2, Dialect.DAFNY4, path="f.dfy")
    assert str(e.value).startswith(f"f.dfy line {line}: `expect` in ghost code ({where})")


def test_expect_in_a_compiled_method_is_still_read() -> None:
    r = to_dialect("method M(x: int)\n{\n  expect x == 1;\n}\n", Dialect.DAFNY2, Dialect.DAFNY4, path="f.dfy")
    assert "assume {:axiom} x == 1;" in r.text
