from __future__ import annotations

import random
from fractions import Fraction

import pytest

from bot.dafny.types import (
    ArrayT,
    BoolT,
    BvT,
    CharT,
    DafnyType,
    IntT,
    NatT,
    RealT,
    SeqT,
    StringT,
    TupleT,
    Unsupported,
    parse_type,
)
from bot.dafny.values import (
    ArrayV,
    BoolV,
    BvV,
    CharV,
    IntV,
    RealV,
    SeqV,
    TupleV,
    Value,
    parse_value,
    show,
    type_check,
)
from bot.symbolic.mutants import Mutant, mutate


def one(text: str, type_text: str, *, count: int = 5, real_tolerance: float = 0.0) -> list[Mutant]:
    """Mutants of one output named `result`, with seed 0."""
    t = parse_type(type_text)
    expected = (parse_value(text, t),)
    return mutate(expected, (t,), ("result",), seed=0, count=count, real_tolerance=real_tolerance)


def ints(*xs: int) -> tuple[Value, ...]:
    return tuple(IntV(x) for x in xs)


def test_seq_mix_includes_drop_and_change() -> None:
    ms = one("[4, 5]", "seq<int>")
    assert len(ms) == 5
    values = [m.values[0] for m in ms]
    assert SeqV(ints(4)) in values or SeqV(ints(5)) in values
    changed = [v for v in values if isinstance(v, SeqV) and len(v.elems) == 2 and v != SeqV(ints(5, 4))]
    assert changed, "an element was changed"
    assert any(m.description.startswith("result: dropped element") for m in ms)
    assert any(m.description.startswith("result[") for m in ms)


def test_seq_mix_includes_insert_but_no_permutation() -> None:
    ms = one("[4, 5]", "seq<int>", count=20)
    values = [m.values[0] for m in ms]
    assert SeqV(ints(5, 4)) not in values
    assert any(isinstance(v, SeqV) and len(v.elems) == 3 for v in values)


def test_descriptions() -> None:
    ms = one("7", "int", count=2)
    assert [m.description for m in ms] == ["result: 7 -> 8", "result: 7 -> 6"]
    ms = one("true", "bool")
    assert [m.description for m in ms] == ["result: true -> false"]
    ms = one("[[1, 2], [3]]", "seq<seq<int>>", count=20)
    assert any(m.description.startswith("result[0][") for m in ms)
    assert any(m.description.startswith("result[1]: ") for m in ms)
    ms = one("(1, 2)", "(int, int)", count=4)
    assert {m.description.split(":")[0] for m in ms} == {"result.0", "result.1"}


def test_deterministic() -> None:
    t = (parse_type("seq<int>"), parse_type("string"))
    v = (parse_value("[1, 2, 3]", t[0]), parse_value('"abc"', t[1]))
    a = mutate(v, t, ("xs", "s"), seed=1, count=8)
    b = mutate(v, t, ("xs", "s"), seed=1, count=8)
    assert a == b


def test_different_seeds_usually_differ() -> None:
    t = (parse_type("seq<int>"),)
    v = (parse_value("[1, 2, 3, 4, 5, 6]", t[0]),)
    lists = {tuple(mutate(v, t, ("xs",), seed=s, count=5)) for s in range(10)}
    assert len(lists) >= 5


def test_salt_changes_the_draw() -> None:
    t = (parse_type("seq<int>"),)
    v = (parse_value("[1, 2, 3, 4, 5, 6]", t[0]),)
    lists = {tuple(mutate(v, t, ("xs",), seed=0, salt=f"case{i}", count=5)) for i in range(10)}
    assert len(lists) >= 5


def test_bool_has_one_mutant() -> None:
    ms = one("true", "bool", count=5)
    assert [m.values for m in ms] == [(BoolV(False),)]


def test_bv1_has_one_mutant() -> None:
    ms = one("0", "bv1")
    assert [m.values for m in ms] == [(BvV(1, 1),)]


def test_bv_wraps() -> None:
    ms = one("0", "bv8", count=20)
    values = {m.values[0] for m in ms}
    assert BvV(8, 255) in values and BvV(8, 1) in values
    assert all(isinstance(v, BvV) and 0 <= v.v < 256 and v.width == 8 for v in values)


def test_int_steps_are_small() -> None:
    ms = one("100", "int", count=30)
    assert len(ms) == 20
    assert {m.values[0] for m in ms} == {IntV(100 + k) for k in range(-10, 11) if k}


def test_nat_stays_non_negative() -> None:
    for text in ["0", "1", "3"]:
        ms = one(text, "nat", count=30)
        assert ms and all(isinstance(m.values[0], IntV) and m.values[0].v >= 0 for m in ms)
    ms = one("[0, 1, 0]", "seq<nat>", count=40)
    for m in ms:
        v = m.values[0]
        assert isinstance(v, SeqV) and all(isinstance(e, IntV) and e.v >= 0 for e in v.elems)


def test_char_prefers_nearby_printable() -> None:
    ms = one("'m'", "char", count=2)
    assert {m.values[0] for m in ms} == {CharV("l"), CharV("n")}
    ms = one("'5'", "char", count=2)
    assert {m.values[0] for m in ms} == {CharV("4"), CharV("6")}
    ms = one("'\\u00e9'", "char", count=10)
    assert all(isinstance(m.values[0], CharV) and 0x20 <= ord(m.values[0].v) < 0x7F for m in ms)


@pytest.mark.parametrize("type_text", ["string", "seq<char>"])
def test_string_operators(type_text: str) -> None:
    ms = one('"hello"', type_text, count=6)
    texts = [show(m.values[0], parse_type(type_text)) for m in ms]
    assert any(len(s) == len('"hello"') - 1 for s in texts)  # dropped
    assert any(len(s) == len('"hello"') + 1 for s in texts)  # appended
    assert any(len(s) == len('"hello"') for s in texts)  # replaced
    assert all(s.startswith('"') for s in texts)


def test_empty_values_still_mutate() -> None:
    ms = one('""', "string")
    assert len(ms) == 5 and all(isinstance(m.values[0], SeqV) and len(m.values[0].elems) == 1 for m in ms)
    ms = one("[]", "seq<int>", count=3)
    assert len(ms) == 3 and all(m.description.startswith("result: inserted") for m in ms)


def test_real_outside_tolerance() -> None:
    for text in ["3.14159", "0.0", "-2.5", "4188.790204786391", "(1.0 / 3.0)"]:
        for tol in [0.0, 1e-9, 0.001, 0.01, 0.5, 3.0]:
            ms = one(text, "real", count=10, real_tolerance=tol)
            v = parse_value(text, RealT())
            assert isinstance(v, RealV)
            assert len(ms) == 10
            for m in ms:
                x = m.values[0]
                assert isinstance(x, RealV)
                assert abs(x.v - v.v) > Fraction(repr(tol)) * max(Fraction(1), abs(v.v))


def test_multi_output_one_at_a_time() -> None:
    types = (IntT(), BoolT(), SeqT(IntT()))
    expected: tuple[Value, ...] = (IntV(7), BoolV(True), SeqV(ints(1, 2)))
    ms = mutate(expected, types, ("count", "ok", "xs"), seed=3, count=7)
    assert len(ms) == 7
    changed = []
    for m in ms:
        assert len(m.values) == 3
        diff = [i for i in range(3) if m.values[i] != expected[i]]
        assert len(diff) == 1
        changed.append(diff[0])
        assert m.description.startswith(("count", "ok", "xs")[diff[0]])
    # spread: the first three mutants touch three different outputs
    assert sorted(changed[:3]) == [0, 1, 2]
    assert changed.count(1) == 1


def test_fixed_length_keeps_array_length() -> None:
    t = (ArrayT(IntT()),)
    v: tuple[Value, ...] = (ArrayV(ints(3, 1, 2)),)
    ms = mutate(v, t, ("a",), seed=0, count=10, fixed_length=frozenset({0}))
    assert len(ms) == 10
    assert all(isinstance(m.values[0], ArrayV) and len(m.values[0].elems) == 3 for m in ms)


def test_arrays_stay_arrays() -> None:
    ms = one("new int[] [1, 2]", "array<int>", count=10)
    assert all(isinstance(m.values[0], ArrayV) for m in ms)
    ms = one("[new int[] [1], new int[] [2, 3]]", "seq<array<int>>", count=10)
    for m in ms:
        v = m.values[0]
        assert isinstance(v, SeqV) and all(isinstance(e, ArrayV) for e in v.elems)


def test_count() -> None:
    ms = one("[1, 2, 3]", "seq<int>", count=0)
    assert ms == []
    ms = one("[1, 2, 3]", "seq<int>", count=1)
    assert len(ms) == 1
    ms = one("[1, 2, 3]", "seq<int>", count=40)
    assert len(ms) == 40


def test_errors() -> None:
    with pytest.raises(ValueError, match="cannot mutate values of type set<int>"):
        mutate((IntV(1),), (Unsupported("set<int>"),), ("s",), seed=0)
    with pytest.raises(ValueError, match="cannot mutate values of type seq<map<int, int>>"):
        mutate((SeqV(()),), (SeqT(Unsupported("map<int, int>")),), ("m",), seed=0)
    with pytest.raises(ValueError, match="not a value of type int"):
        mutate((BoolV(True),), (IntT(),), ("x",), seed=0)
    with pytest.raises(ValueError, match="1 values, 2 types and 1 names"):
        mutate((IntV(1),), (IntT(), IntT()), ("x",), seed=0)


def test_negative_nat_in_noisy_data_is_mutated_to_nats() -> None:
    ms = mutate((IntV(-3),), (NatT(),), ("n",), seed=0, count=10)
    assert ms and all(isinstance(m.values[0], IntV) and m.values[0].v >= 0 for m in ms)


# -- property-style: random values of every supported type


def random_value(t: DafnyType, rng: random.Random, depth: int = 0) -> Value:
    size = rng.randint(0, 4 if depth < 2 else 1)
    if isinstance(t, IntT):
        return IntV(rng.randint(-50, 50))
    if isinstance(t, NatT):
        return IntV(rng.randint(0, 50))
    if isinstance(t, BoolT):
        return BoolV(rng.random() < 0.5)
    if isinstance(t, CharT):
        return CharV(rng.choice("azAZ09 '\"\\\n\u00e9"))
    if isinstance(t, RealT):
        return RealV(Fraction(rng.randint(-1000, 1000), rng.choice([1, 3, 10, 100])))
    if isinstance(t, BvT):
        return BvV(t.width, rng.randrange(2**t.width))
    if isinstance(t, StringT):
        return SeqV(tuple(random_value(CharT(), rng) for _ in range(size)))
    if isinstance(t, SeqT):
        return SeqV(tuple(random_value(t.elem, rng, depth + 1) for _ in range(size)))
    if isinstance(t, ArrayT):
        return ArrayV(tuple(random_value(t.elem, rng, depth + 1) for _ in range(size)))
    if isinstance(t, TupleT):
        return TupleV(tuple(random_value(e, rng, depth + 1) for e in t.elems))
    raise AssertionError(t)


PROPERTY_TYPES = [
    "int", "nat", "bool", "char", "real", "bv1", "bv8", "bv32", "string", "seq<char>", "seq<int>",
    "seq<nat>", "seq<bool>", "seq<seq<int>>", "seq<string>", "seq<(int,int)>", "array<int>",
    "array<char>", "array<bool>", "array<seq<int>>", "seq<array<int>>", "(int, string)",
    "(bool, (real, char))", "seq<seq<nat>>",
]  # fmt: skip


@pytest.mark.parametrize("type_text", PROPERTY_TYPES)
def test_properties(type_text: str) -> None:
    t = parse_type(type_text)
    rng = random.Random(f"mutants {type_text}")
    for trial in range(60):
        v = random_value(t, rng)
        tol = rng.choice([0.0, 0.001, 0.1])
        fixed = frozenset({0}) if isinstance(t, ArrayT) and trial % 2 else frozenset()
        ms = mutate((v,), (t,), ("r",), seed=trial, count=5, real_tolerance=tol, fixed_length=fixed)
        again = mutate((v,), (t,), ("r",), seed=trial, count=5, real_tolerance=tol, fixed_length=fixed)
        assert ms == again
        values = [m.values for m in ms]
        assert len(set(values)) == len(values)
        assert (v,) not in values
        assert len(ms) <= 5
        # fewer than 5 may exist: tiny types, arrays that keep their length, empty seq<bool>
        empty_bools = isinstance(t, SeqT | ArrayT) and isinstance(t.elem, BoolT)
        few = isinstance(t, BoolT | BvT) or bool(fixed) or (empty_bools and v in (SeqV(()), ArrayV(())))
        if not few:
            assert len(ms) == 5, (type_text, v)
        for m in ms:
            assert len(m.values) == 1
            assert type_check(m.values[0], t), (type_text, m)
            assert type(m.values[0]) is type(v)
            assert m.description.startswith("r")
            if fixed:
                assert isinstance(m.values[0], ArrayV) and isinstance(v, ArrayV)
                assert len(m.values[0].elems) == len(v.elems)
            if isinstance(t, RealT):
                assert isinstance(v, RealV) and isinstance(m.values[0], RealV)
                assert abs(m.values[0].v - v.v) > Fraction(repr(tol)) * max(Fraction(1), abs(v.v))
