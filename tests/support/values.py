"""Random values of every supported type, for property tests (seeded: the same seed gives the same values)."""

from __future__ import annotations

import random
from fractions import Fraction

from bot.dafny.types import (
    ArrayT,
    BoolT,
    BvT,
    CharT,
    DafnyType,
    IntT,
    MapT,
    MultisetT,
    NatT,
    RealT,
    SeqT,
    SetT,
    StringT,
    TupleT,
)
from bot.dafny.values import ArrayV, BoolV, BvV, CharV, IntV, MapV, MultisetV, RealV, SeqV, SetV, TupleV, Value

_SPECIAL_CHARS = "'\"\\\n\r\t\0\x07\x7f \u00e9\u4e2d\U0001f600\ud800"


def random_char(rng: random.Random) -> str:
    if rng.random() < 0.3:
        return rng.choice(_SPECIAL_CHARS)
    return chr(rng.randint(0x20, 0x7E))


def random_value(t: DafnyType, rng: random.Random, depth: int = 0) -> Value:
    size = rng.randint(0, 4 if depth < 2 else 1)
    if isinstance(t, IntT):
        return IntV(rng.choice([0, 1, -1, rng.randint(-100, 100), rng.randint(-(10**20), 10**20)]))
    if isinstance(t, NatT):
        return IntV(rng.choice([0, 1, rng.randint(0, 100), rng.randint(0, 10**20)]))
    if isinstance(t, BoolT):
        return BoolV(rng.random() < 0.5)
    if isinstance(t, CharT):
        return CharV(random_char(rng))
    if isinstance(t, RealT):
        den = rng.choice([1, 2, 3, 4, 5, 7, 8, 10, 1000, 3 * 10**6, 2**40])
        return RealV(Fraction(rng.randint(-(10**7), 10**7), den))
    if isinstance(t, BvT):
        return BvV(t.width, rng.choice([0, 2**t.width - 1, rng.randrange(2**t.width)]))
    if isinstance(t, StringT):
        return SeqV(tuple(CharV(random_char(rng)) for _ in range(size)))
    if isinstance(t, SeqT):
        return SeqV(tuple(random_value(t.elem, rng, depth + 1) for _ in range(size)))
    if isinstance(t, ArrayT):
        return ArrayV(tuple(random_value(t.elem, rng, depth + 1) for _ in range(size)))
    if isinstance(t, TupleT):
        return TupleV(tuple(random_value(e, rng, depth + 1) for e in t.elems))
    if isinstance(t, SetT):
        return SetV(tuple(random_value(t.elem, rng, depth + 1) for _ in range(size)))
    if isinstance(t, MultisetT):
        # repeats on purpose: multiplicities above one
        elems = [random_value(t.elem, rng, depth + 1) for _ in range(size)]
        return MultisetV.of(tuple(elems + elems[: rng.randint(0, len(elems))]))
    if isinstance(t, MapT):
        keys = SetV(tuple(random_value(t.key, rng, depth + 1) for _ in range(size))).elems
        return MapV(tuple((k, random_value(t.value, rng, depth + 1)) for k in keys))
    raise AssertionError(t)


ROUND_TRIP_TYPES = [
    "int", "nat", "bool", "char", "real", "bv1", "bv8", "bv32", "bv64", "string", "seq<char>",
    "seq<int>", "seq<nat>", "seq<bool>", "seq<real>", "seq<bv32>", "seq<seq<int>>", "seq<string>",
    "seq<seq<char>>", "seq<(int,int)>", "array<int>", "array<bool>", "array<char>", "array<real>",
    "array<seq<int>>", "seq<array<int>>", "array<string>", "(int, string)", "(bool, (real, char))",
    "seq<(string, seq<int>)>", "(int, int, int)", "set<int>", "set<string>", "set<(int, bool)>", "seq<set<int>>",
    "multiset<int>", "multiset<char>", "map<int, string>", "map<string, seq<int>>", "map<int, set<real>>",
    "set<map<bool, multiset<int>>>",
]  # fmt: skip
