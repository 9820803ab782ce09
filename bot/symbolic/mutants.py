"""Output mutants: deterministic, type-directed wrong outputs for completeness checks.

Pure code. A mutant replaces one output by a nearby value of the same type (an int off by a few, a
sequence with an element dropped, changed or inserted, a set with an element added, a map with a key's value
changed, a multiset with a multiplicity changed...). Each operator is a lazy
stream of candidates; streams are interleaved round-robin so that a handful of mutants already covers
every kind of change, and so that several outputs take turns.
"""

from __future__ import annotations

import hashlib
import math
import random
import string
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from bot.dafny.types import (
    ArrayT,
    BoolT,
    BvT,
    CharT,
    DafnyType,
    DatatypeT,
    IntT,
    MapT,
    MultisetT,
    NatT,
    RealT,
    SeqT,
    SetT,
    StringT,
    TupleT,
    base_constructor,
    constructor,
    constructors,
    has_finite_value,
    map_parts,
    unsupported_parts,
)
from bot.dafny.values import (
    ArrayV,
    BoolV,
    BvV,
    CharV,
    DatatypeV,
    IntV,
    MapV,
    MultisetV,
    RealV,
    SeqV,
    SetV,
    TupleV,
    Value,
    element_type,
    is_string_type,
    placeholder,
    show,
    to_dafny,
    type_check,
)


@dataclass(frozen=True)
class Mutant:
    values: tuple[Value, ...]  # one value per output (same arity as the expected outputs)
    description: str  # e.g. "result: dropped element 1", "count: 7 -> 8"


# Positions looked at per operator in a long sequence: enough for a few mutants, bounded work.
_MAX_POSITIONS = 20
_INSERT_PASSES = 4


def mutate(
    expected: tuple[Value, ...],
    types: tuple[DafnyType, ...],
    names: tuple[str, ...],
    *,
    seed: int,
    count: int = 5,
    salt: str = "",
    real_tolerance: float = 0.0,
    fixed_length: frozenset[int] = frozenset(),
    real_absolute: Sequence[Fraction | None] = (),
) -> list[Mutant]:
    """Up to `count` distinct mutants of `expected`, none equal to it; the same arguments give the same list.

    Each mutant changes exactly one output; mutants are spread across the outputs. Outputs whose index
    is in `fixed_length` (arrays changed in place) keep their length. Real mutants lie outside the
    relative tolerance: |m - v| > real_tolerance * max(1, |v|), and outside `real_absolute[i]` for output i (the
    test's own tolerance of that output, exact; None or missing: none). Raises ValueError for unsupported types
    or values that do not match their types.
    """
    if not len(expected) == len(types) == len(names):
        raise ValueError(f"{len(expected)} values, {len(types)} types and {len(names)} names given")
    for v, t in zip(expected, types, strict=True):
        bad = unsupported_parts(t)
        if bad:
            raise ValueError(f"cannot mutate values of type {t}: {', '.join(bad)} is not supported")
        if not type_check(v, _relaxed(t)):
            raise ValueError(f"not a value of type {t}: {v!r}")
    if not math.isfinite(real_tolerance):
        raise ValueError(f"real tolerance must be finite, not {real_tolerance}")
    if count <= 0:
        return []
    ctx = _Ctx(_rng(seed, salt, expected, types), Fraction(repr(max(real_tolerance, 0.0))))
    own = [*real_absolute, *(None for _ in range(len(expected) - len(real_absolute)))]
    # one random stream for all outputs (the same draws as ever); each output beyond its own tolerance
    streams = [
        _labelled(i, names[i], _mutants_of(v, t, replace(ctx, absolute=max(own[i] or Fraction(0), Fraction(0))),
                                           fixed=i in fixed_length))
        for i, (v, t) in enumerate(zip(expected, types, strict=True))
    ]
    out: list[Mutant] = []
    for i, c in _round_robin(streams):
        values = expected[:i] + (c.value,) + expected[i + 1 :]
        out.append(Mutant(values, c.text))
        if len(out) == count:
            break
    return out


@dataclass(frozen=True)
class _Cand:
    value: Value
    path: str  # where inside the output the change is: "", "[1]", ".0[2]"
    text: str  # what changed: "7 -> 8", "dropped element 1"


@dataclass(frozen=True)
class _Ctx:
    rng: random.Random
    tolerance: Fraction
    absolute: Fraction = Fraction(0)


def _rng(seed: int, salt: str, expected: tuple[Value, ...], types: tuple[DafnyType, ...]) -> random.Random:
    # sha256, never hash(): Python salts str hashes per process
    printed = [f"{t}={to_dafny(v, t)}" for v, t in zip(expected, types, strict=True)]
    text = "\0".join([str(seed), salt, *printed])
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))


def _relaxed(t: DafnyType) -> DafnyType:
    """t with nat read as int: noisy data may state a negative nat; its mutants are still >= 0."""
    if isinstance(t, NatT):
        return IntT()
    return map_parts(t, _relaxed)


def _labelled(i: int, name: str, stream: Iterator[_Cand]) -> Iterator[tuple[int, _Cand]]:
    for c in stream:
        yield i, _Cand(c.value, c.path, f"{name}{c.path}: {c.text}")


def _round_robin(streams: list[Iterator[tuple[int, _Cand]]]) -> Iterator[tuple[int, _Cand]]:
    """One item from each stream in turn until all are exhausted."""
    active = streams
    while active:
        still: list[Iterator[tuple[int, _Cand]]] = []
        for s in active:
            item = next(s, None)
            if item is not None:
                yield item
                still.append(s)
        active = still


def _interleave(streams: list[Iterator[_Cand]], original: Value) -> Iterator[_Cand]:
    """One new value from each stream in turn; a stream that has no new value left drops out."""
    seen: set[Value] = {original}
    active = streams
    while active:
        still: list[Iterator[_Cand]] = []
        for s in active:
            for c in s:
                if c.value not in seen:
                    seen.add(c.value)
                    yield c
                    still.append(s)
                    break
        active = still


def _mutants_of(v: Value, t: DafnyType, ctx: _Ctx, fixed: bool = False) -> Iterator[_Cand]:
    """Distinct mutants of v (never v itself), the operators of its type taking turns."""
    return _interleave(_operators(v, t, ctx, fixed), v)


def _operators(v: Value, t: DafnyType, ctx: _Ctx, fixed: bool) -> list[Iterator[_Cand]]:
    rng = ctx.rng
    if isinstance(v, BoolV):
        return [iter([_Cand(BoolV(not v.v), "", f"{show(v, t)} -> {show(BoolV(not v.v), t)}")])]
    if isinstance(v, IntV):
        nat = isinstance(t, NatT)
        return [_int_steps(v.v, +1, nat, rng), _int_steps(v.v, -1, nat, rng)]
    if isinstance(v, BvV):
        return [_bv_steps(v, +1, rng), _bv_steps(v, -1, rng)]
    if isinstance(v, CharV):
        return [_char_stream(v, rng)]
    if isinstance(v, RealV):
        return [_real_steps(v.v, +1, ctx), _real_steps(v.v, -1, ctx)]
    if isinstance(v, TupleV):
        assert isinstance(t, TupleT)
        return [_component(v, i, t.elems[i], ctx) for i in range(len(v.elems))]
    if isinstance(v, DatatypeV):
        assert isinstance(t, DatatypeT)
        c = constructor(t, v.ctor)
        assert c is not None
        fields = [_field(v, i, c.names[i] or str(i), c.types[i], ctx) for i in range(len(v.fields))]
        return [_switch(v, t, ctx), *fields]
    if isinstance(v, SetV):
        assert isinstance(t, SetT)
        return [_set_change(v, t.elem, ctx), _set_drop(v, t.elem, rng), _set_add(v, t.elem, ctx)]
    if isinstance(v, MultisetV):
        assert isinstance(t, MultisetT)
        return [_multiplicity(v, t.elem, +1, rng), _multiplicity(v, t.elem, -1, rng), _multiset_add(v, t.elem, ctx)]
    if isinstance(v, MapV):
        assert isinstance(t, MapT)
        return [_map_value(v, t, ctx), _map_drop(v, t, rng), _map_add(v, t, ctx)]
    if isinstance(v, SeqV | ArrayV):
        elem = element_type(t)
        if is_string_type(t):
            ops = [_replace(v, elem, ctx)]
            if not fixed:
                ops += [_drop(v, elem, rng, chars=True), _append_char(v, rng)]
            return ops
        ops = [_replace(v, elem, ctx)]
        if not fixed:
            return [*ops, _drop(v, elem, rng, chars=False), _insert(v, elem, ctx)]
        # a permutation is no mutant where order may not matter (shared elements, sets as seqs); only
        # arrays changed in place, which can neither grow nor shrink, get swaps
        return [*ops, _swap(v, rng)]
    raise ValueError(f"cannot mutate {v!r} of type {t}")


# -- scalars


def _ks(rng: random.Random) -> list[int]:
    # +-1 first (the closest wrong answer), then the other distances in a seeded order
    rest = list(range(2, 11))
    rng.shuffle(rest)
    return [1, *rest]


def _int_steps(n: int, sign: int, nat: bool, rng: random.Random) -> Iterator[_Cand]:
    for k in _ks(rng):
        m = n + sign * k
        if nat and m < 0:
            continue
        yield _Cand(IntV(m), "", f"{n} -> {m}")


def _bv_steps(v: BvV, sign: int, rng: random.Random) -> Iterator[_Cand]:
    for k in _ks(rng):
        m = (v.v + sign * k) % 2**v.width
        yield _Cand(BvV(v.width, m), "", f"{v.v} -> {m}")


def _real_steps(x: Fraction, sign: int, ctx: _Ctx) -> Iterator[_Cand]:
    bound = max(ctx.tolerance * max(Fraction(1), abs(x)), ctx.absolute)
    deltas = [d for d in _NICE_DELTAS if d > bound]
    if bound > 0:
        # a wide tolerance: step out of it by a margin, in round numbers
        deltas += [_round_up(bound * k) for k in (2, 3, 5, 10, 20, 50, 100)]
    deltas = sorted(set(deltas))
    first, rest = deltas[0], deltas[1:]
    ctx.rng.shuffle(rest)
    for d in [first, *rest]:
        m = x + sign * d
        yield _Cand(RealV(m), "", f"{to_dafny(RealV(x), RealT())} -> {to_dafny(RealV(m), RealT())}")


_NICE_DELTAS = tuple(Fraction(d) for d in ("0.01", "0.1", "0.5", "1", "2", "5", "10", "100"))


def _round_up(x: Fraction) -> Fraction:
    """x rounded up to one significant digit (x > 0): 4188.79 -> 5000, 0.0314 -> 0.04."""
    p = Fraction(1)
    while p > x:
        p /= 10
    while p * 10 <= x:
        p *= 10
    return math.ceil(x / p) * p


_CLASSES = (string.ascii_lowercase, string.ascii_uppercase, string.digits)
_PRINTABLE = "".join(chr(c) for c in range(0x20, 0x7F))


def _char_choices(c: str, rng: random.Random) -> list[str]:
    """Other printable ASCII characters, nearby letters/digits of the same kind first."""
    pool = next((cls for cls in _CLASSES if c in cls), _PRINTABLE if c in _PRINTABLE else "")
    if not pool:
        return list(string.ascii_lowercase[:5]) + rng.sample(string.ascii_lowercase[5:], 21)
    at = pool.index(c)
    near = [pool[j] for j in (at + 1, at - 1) if 0 <= j < len(pool)]
    rng.shuffle(near)
    if c.isalpha():
        near.append(c.swapcase())
    rest = [x for x in pool if x != c and x not in near]
    rng.shuffle(rest)
    return near + rest


def _char_stream(v: CharV, rng: random.Random) -> Iterator[_Cand]:
    for x in _char_choices(v.v, rng):
        yield _Cand(CharV(x), "", f"{show(v, CharT())} -> {show(CharV(x), CharT())}")


# -- composites


def _rebuild(v: SeqV | ArrayV, elems: tuple[Value, ...]) -> SeqV | ArrayV:
    return ArrayV(elems) if isinstance(v, ArrayV) else SeqV(elems)


def _positions(n: int, rng: random.Random) -> list[int]:
    idx = list(range(n))
    rng.shuffle(idx)
    return idx[:_MAX_POSITIONS]


def _replace(v: SeqV | ArrayV, elem: DafnyType, ctx: _Ctx) -> Iterator[_Cand]:
    """Each position in turn gets its next mutant (so early mutants touch different elements)."""
    streams = [_replace_at(v, i, elem, ctx) for i in _positions(len(v.elems), ctx.rng)]
    yield from _interleave(streams, v)


def _replace_at(v: SeqV | ArrayV, i: int, elem: DafnyType, ctx: _Ctx) -> Iterator[_Cand]:
    for c in _mutants_of(v.elems[i], elem, ctx):
        elems = v.elems[:i] + (c.value,) + v.elems[i + 1 :]
        yield _Cand(_rebuild(v, elems), f"[{i}]{c.path}", c.text)


def _drop(v: SeqV | ArrayV, elem: DafnyType, rng: random.Random, chars: bool) -> Iterator[_Cand]:
    for i in _positions(len(v.elems), rng):
        what = f"dropped char {i} {show(v.elems[i], elem)}" if chars else f"dropped element {i}"
        yield _Cand(_rebuild(v, v.elems[:i] + v.elems[i + 1 :]), "", what)


def _append_char(v: SeqV | ArrayV, rng: random.Random) -> Iterator[_Cand]:
    last = v.elems[-1] if v.elems else CharV("a")
    assert isinstance(last, CharV)
    choices = ([] if v.elems else ["a"]) + _char_choices(last.v, rng)
    for x in choices:
        yield _Cand(_rebuild(v, (*v.elems, CharV(x))), "", f"appended {show(CharV(x), CharT())}")


def _insert(v: SeqV | ArrayV, elem: DafnyType, ctx: _Ctx) -> Iterator[_Cand]:
    """A mutant of a neighbour first (a plausible extra element), then fresh values."""
    n = len(v.elems)
    spots = _positions(n + 1, ctx.rng)
    # an empty or one-element sequence has few positions: draw more fresh values instead
    for pass_no in range(_INSERT_PASSES if n >= 2 else 3 * _INSERT_PASSES):
        for p in spots:
            x: Value | None = None
            if pass_no == 0 and n:
                neighbour = v.elems[p - 1] if p > 0 else v.elems[p]
                x = next((c.value for c in _mutants_of(neighbour, elem, ctx)), None)
            if x is None:
                x = _fresh(elem, ctx.rng)
            yield _Cand(_rebuild(v, v.elems[:p] + (x,) + v.elems[p:]), "", f"inserted {show(x, elem)} at {p}")


def _swap(v: SeqV | ArrayV, rng: random.Random) -> Iterator[_Cand]:
    idx = sorted(_positions(len(v.elems), rng))
    pairs = [(i, j) for i in idx for j in idx if i < j and v.elems[i] != v.elems[j]]
    rng.shuffle(pairs)
    for i, j in pairs:
        elems = list(v.elems)
        elems[i], elems[j] = elems[j], elems[i]
        yield _Cand(_rebuild(v, tuple(elems)), "", f"swapped elements {i} and {j}")


# -- collections: their values are canonical (sorted, distinct), so a changed element that lands on another one is
# a smaller collection, and `_interleave` drops a candidate equal to the original


def _set_change(v: SetV, elem: DafnyType, ctx: _Ctx) -> Iterator[_Cand]:
    """One element replaced by a mutant of it, the elements taking turns."""
    def at(i: int) -> Iterator[_Cand]:
        x = v.elems[i]
        for c in _mutants_of(x, elem, ctx):
            if c.value not in v.elems:
                rest = v.elems[:i] + v.elems[i + 1 :]
                yield _Cand(SetV((*rest, c.value)), "", f"element {show(x, elem)} -> {show(c.value, elem)}")
    yield from _interleave([at(i) for i in _positions(len(v.elems), ctx.rng)], v)


def _set_drop(v: SetV, elem: DafnyType, rng: random.Random) -> Iterator[_Cand]:
    for i in _positions(len(v.elems), rng):
        yield _Cand(SetV(v.elems[:i] + v.elems[i + 1 :]), "", f"dropped element {show(v.elems[i], elem)}")


def _new_elements(have: tuple[Value, ...], elem: DafnyType, ctx: _Ctx) -> Iterator[Value]:
    """Values of type elem not in `have`: mutants of its elements first (plausible extras), then fresh values."""
    for i in _positions(len(have), ctx.rng):
        x = next((c.value for c in _mutants_of(have[i], elem, ctx) if c.value not in have), None)
        if x is not None:
            yield x
    for _ in range(_FRESH_DRAWS):
        x = _fresh(elem, ctx.rng)
        if x not in have:
            yield x


_FRESH_DRAWS = 40  # fresh values drawn for a collection's new element (an empty one has no neighbours to mutate)


def _set_add(v: SetV, elem: DafnyType, ctx: _Ctx) -> Iterator[_Cand]:
    for x in _new_elements(v.elems, elem, ctx):
        yield _Cand(SetV((*v.elems, x)), "", f"added element {show(x, elem)}")


def _multiplicity(v: MultisetV, elem: DafnyType, step: int, rng: random.Random) -> Iterator[_Cand]:
    """One element's multiplicity one more (step +1) or one less (-1: dropped when it was 1)."""
    for i in _positions(len(v.counts), rng):
        x, n = v.counts[i]
        w = MultisetV(v.counts[:i] + ((x, n + step),) + v.counts[i + 1 :])
        yield _Cand(w, "", f"multiplicity of {show(x, elem)}: {n} -> {n + step}")


def _multiset_add(v: MultisetV, elem: DafnyType, ctx: _Ctx) -> Iterator[_Cand]:
    for x in _new_elements(tuple(e for e, _ in v.counts), elem, ctx):
        yield _Cand(MultisetV((*v.counts, (x, 1))), "", f"added element {show(x, elem)}")


def _map_value(v: MapV, t: MapT, ctx: _Ctx) -> Iterator[_Cand]:
    """One key's value replaced by a mutant of it, the keys taking turns."""
    def at(i: int) -> Iterator[_Cand]:
        k, x = v.items[i]
        for c in _mutants_of(x, t.value, ctx):
            items = v.items[:i] + ((k, c.value),) + v.items[i + 1 :]
            yield _Cand(MapV(items), f"[{show(k, t.key)}]{c.path}", c.text)
    yield from _interleave([at(i) for i in _positions(len(v.items), ctx.rng)], v)


def _map_drop(v: MapV, t: MapT, rng: random.Random) -> Iterator[_Cand]:
    for i in _positions(len(v.items), rng):
        yield _Cand(MapV(v.items[:i] + v.items[i + 1 :]), "", f"dropped key {show(v.items[i][0], t.key)}")


def _map_add(v: MapV, t: MapT, ctx: _Ctx) -> Iterator[_Cand]:
    """A new key, with the value of a neighbouring key (a plausible extra entry) or a fresh one."""
    keys = tuple(k for k, _ in v.items)
    for k in _new_elements(keys, t.key, ctx):
        x = v.items[ctx.rng.randrange(len(v.items))][1] if v.items else _fresh(t.value, ctx.rng)
        yield _Cand(MapV((*v.items, (k, x))), "", f"added key {show(k, t.key)} := {show(x, t.value)}")


def _component(v: TupleV, i: int, t: DafnyType, ctx: _Ctx) -> Iterator[_Cand]:
    for c in _mutants_of(v.elems[i], t, ctx):
        yield _Cand(TupleV(v.elems[:i] + (c.value,) + v.elems[i + 1 :]), f".{i}{c.path}", c.text)


def _switch(v: DatatypeV, t: DatatypeT, ctx: _Ctx) -> Iterator[_Cand]:
    """v's value under each other constructor (in a seeded order), fields fresh."""
    others = [c for c in constructors(t) if c.name != v.ctor and all(has_finite_value(ft) for ft in c.types)]
    ctx.rng.shuffle(others)
    for round_no in range(_SWITCH_ROUNDS):
        for c in others:
            if round_no and not c.types:
                continue  # a constructor without fields has one value only
            w = DatatypeV(t.name, c.name, tuple(_fresh(ft, ctx.rng) for ft in c.types))
            yield _Cand(w, "", f"{show(v, t)} -> {show(w, t)}")


_SWITCH_ROUNDS = 3  # values drawn per other constructor (fresh fields each time)


def _field(v: DatatypeV, i: int, name: str, t: DafnyType, ctx: _Ctx) -> Iterator[_Cand]:
    for c in _mutants_of(v.fields[i], t, ctx):
        fields = v.fields[:i] + (c.value,) + v.fields[i + 1 :]
        yield _Cand(DatatypeV(v.datatype, v.ctor, fields), f".{name}{c.path}", c.text)


_FRESH_DEPTH = 2  # nested datatype values drawn before only base constructors are used


def _fresh(t: DafnyType, rng: random.Random, depth: int = 0) -> Value:
    """A small arbitrary value of type t."""
    if isinstance(t, DatatypeT):
        if depth >= _FRESH_DEPTH:
            return placeholder(t)
        choices = [c for c in constructors(t) if all(has_finite_value(ft) for ft in c.types)] or [base_constructor(t)]
        c = rng.choice(choices)
        return DatatypeV(t.name, c.name, tuple(_fresh(ft, rng, depth + 1) for ft in c.types))
    if isinstance(t, IntT):
        return IntV(rng.randint(-10, 10))
    if isinstance(t, NatT):
        return IntV(rng.randint(0, 10))
    if isinstance(t, BoolT):
        return BoolV(rng.random() < 0.5)
    if isinstance(t, CharT):
        return CharV(rng.choice(string.ascii_lowercase))
    if isinstance(t, RealT):
        return RealV(Fraction(rng.randint(-20, 20), 2))
    if isinstance(t, BvT):
        return BvV(t.width, rng.randint(0, min(2**t.width - 1, 10)))
    if isinstance(t, TupleT):
        return TupleV(tuple(_fresh(e, rng, depth) for e in t.elems))
    if isinstance(t, StringT | SeqT | ArrayT):
        elem = element_type(t)
        elems = tuple(_fresh(elem, rng, depth + 1) for _ in range(rng.randint(0, 2 if depth < _FRESH_DEPTH else 0)))
        return ArrayV(elems) if isinstance(t, ArrayT) else SeqV(elems)
    if isinstance(t, SetT | MultisetT):
        elems = tuple(_fresh(t.elem, rng, depth + 1) for _ in range(rng.randint(0, 2 if depth < _FRESH_DEPTH else 0)))
        return SetV(elems) if isinstance(t, SetT) else MultisetV.of(elems)
    if isinstance(t, MapT):
        size = rng.randint(0, 2 if depth < _FRESH_DEPTH else 0)
        keys = SetV(tuple(_fresh(t.key, rng, depth + 1) for _ in range(size))).elems
        return MapV(tuple((k, _fresh(t.value, rng, depth + 1)) for k in keys))
    raise ValueError(f"cannot build values of type {t}")


def same_elements(a: tuple[Value, ...], b: tuple[Value, ...]) -> bool:
    """The same outputs up to the order of sequence and array elements."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if isinstance(x, SeqV | ArrayV) and isinstance(y, SeqV | ArrayV):
            if sorted(map(repr, x.elems)) != sorted(map(repr, y.elems)):
                return False
        elif x != y:
            return False
    return True


def neighbours(values: tuple[Value, ...], types: tuple[DafnyType, ...]) -> list[tuple[Value, ...]]:
    """Outputs a weak spec often also accepts: one change to one output (the empty value, a dropped,
    duplicated or swapped element, the reverse, an integer or char one off, the other boolean).
    Deterministic, without a seed: these are a guided search, not samples."""
    out: list[tuple[Value, ...]] = []
    for k, (v, t) in enumerate(zip(values, types, strict=True)):
        for w in _near(v, t):
            if w != v and type_check(w, _relaxed(t)):
                out.append((*values[:k], w, *values[k + 1 :]))
    return list(dict.fromkeys(out))


def _near(v: Value, t: DafnyType) -> list[Value]:
    if isinstance(v, SeqV | ArrayV):
        cls = type(v)
        elems = v.elems
        near: list[Value] = [cls(())]
        if elems:
            near += [cls(elems[:-1]), cls(elems[1:]), cls(elems + elems[-1:]), cls(tuple(reversed(elems)))]
        if len(elems) >= 2:
            near.append(cls((elems[1], elems[0], *elems[2:])))
        return near
    if isinstance(v, SetV):
        return [SetV(()), *(SetV(v.elems[:i] + v.elems[i + 1 :]) for i in range(min(len(v.elems), 2)))]
    if isinstance(v, MultisetV):
        near_m: list[Value] = [MultisetV(())]
        if v.counts:
            x, n = v.counts[0]
            near_m += [MultisetV(((x, n + 1), *v.counts[1:])), MultisetV(((x, n - 1), *v.counts[1:]))]
        return near_m
    if isinstance(v, MapV):
        return [MapV(()), *(MapV(v.items[:i] + v.items[i + 1 :]) for i in range(min(len(v.items), 2)))]
    if isinstance(v, IntV):
        return [IntV(v.v + 1), IntV(v.v - 1), IntV(0)]
    if isinstance(v, BoolV):
        return [BoolV(not v.v)]
    if isinstance(v, CharV):
        return [CharV(chr(ord(v.v) + 1))] if ord(v.v) + 1 < 0xD800 else []
    if isinstance(v, DatatypeV) and isinstance(t, DatatypeT):
        # each other constructor with placeholder fields: `None` where the spec should say `Some`
        return [
            DatatypeV(t.name, c.name, tuple(placeholder(ft) for ft in c.types))
            for c in constructors(t)
            if c.name != v.ctor and all(has_finite_value(ft) for ft in c.types)
        ]
    return []
