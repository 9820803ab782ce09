"""Ground facts: what a spec's subterms are worth on one concrete case, stated as assertions.

Pure code. The verifier often cannot decide a spec on concrete data by itself: a set cardinality
(`|set i | 0 <= i < |a| && a[i] == b[i]|`), an existential without a good trigger, a recursive
function over an array. This module evaluates those subterms with Dafny's semantics and states
their values (`assert (set i | ...) == {0, 2};`, the witness of an `exists`, the counterexample of a
`forall`, every unfolding of a recursive call). Every statement is checked by the verifier, so an
evaluator bug can only make a program fail; still, nothing is guessed: what cannot be evaluated
(unsupported syntax, an unbounded quantifier, a partial operation) yields no fact.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction

from bot.dafny import values
from bot.dafny.decls import DafnyFile, Decl
from bot.dafny.expr import (
    As,
    Binary,
    BoundVar,
    Call,
    Card,
    Chain,
    Display,
    Expr,
    ExprError,
    Index,
    Ite,
    Let,
    LetSuch,
    Lit,
    Member,
    MultisetOf,
    Name,
    Old,
    Quant,
    SetComp,
    Slice,
    TupleE,
    Unary,
    Update,
    bound_names,
    children,
    conjuncts,
    free_vars,
    parse_expr,
    unparse,
    unparse_operand,
)
from bot.dafny.types import ArrayT, BoolT, CharT, DafnyType, IntT, RealT, StringT
from bot.dafny.values import ArrayV, BoolV, BvV, CharV, DatatypeV, IntV, RealV, SeqV, TupleV, Value, to_dafny

MAX_CHOICES = 4  # most values a `var x :| ...` choice is evaluated for (see Evaluator.let_such)
MAX_EVAL_DEPTH = 240  # nested evaluation, ~3 levels per recursive call; ~2.5 Python frames per level
MAX_STATEMENTS = 200  # facts per call of ground_facts (each one costs verifier time)
MAX_BITS = 4096  # integers (and real numerators/denominators) beyond this are not evaluated ...
MAX_ELEMS = 100_000  # ... nor sequences longer than this: a step can double a value's size
_FUNCTION_KINDS = frozenset({"function", "predicate", "function method", "predicate method"})


class NoValue(Exception):
    """A term without a value here: unsupported, partial (index out of range, division by zero,
    a false or unknown precondition) or over an unbounded range. Never a guess."""


class _Limit(Exception):
    """A bound was hit while evaluating one term: the term is skipped and the message reported."""


class _Stop(_Limit):
    """The step budget is used up: ground evaluation stops altogether."""


class _NoLiteral(Exception):
    """A value without a Dafny literal (an array not named by a parameter)."""


@dataclass(frozen=True)
class ArrRef:
    """An array, by the expression naming it (`a`); its contents are read from the current heap."""

    name: str


@dataclass(frozen=True)
class SetV:
    elems: frozenset[GValue]


@dataclass(frozen=True)
class MsetV:
    counts: frozenset[tuple[GValue, int]]  # each element with its (positive) multiplicity


@dataclass(frozen=True)
class MapG:
    """A map input: its (key, value) pairs, keys distinct."""

    items: frozenset[tuple[GValue, GValue]]


GValue = Value | SetV | MsetV | MapG | ArrRef
_CallKey = tuple[str, tuple[GValue, ...], bool]  # function, arguments, evaluated in the old state


@dataclass(frozen=True)
class GroundFacts:
    statements: tuple[str, ...]  # "  assert ...;", each true under the case's values
    limits: tuple[str, ...]  # where a bound stopped evaluation (never a silent cap)


def ground_facts(
    file: DafnyFile,
    clauses: Sequence[str],
    env: Mapping[str, Value],
    old_env: Mapping[str, Value],
    types: Mapping[str, DafnyType],
    budget: int = 10_000,
) -> GroundFacts:
    """Facts about the closed subterms of the clauses (set comprehensions and their sizes, decisive
    quantifier instances, user-function calls with every unfolding, innermost first).

    env holds the post-state (arrays modified in place have their new contents); old_env the
    pre-state, read inside `old(...)`. At most `budget` evaluation steps in total; 0 turns this off."""
    if budget <= 0:
        return GroundFacts((), ())
    ev = Evaluator(file, env, old_env, types, budget)
    facts = _Facts(ev)
    for text in clauses:
        try:
            e = parse_expr(text)
        except ExprError:
            continue  # unsupported syntax: no facts for this clause
        try:
            facts.walk(e, _Scope(ev.env, frozenset(), frozenset(), False, True))
        except _Stop as stop:
            facts.notes.append(f"{stop} in `{_short(text)}`")
            break
        except RecursionError:  # a backstop: the depth bounds normally stop far earlier
            facts.notes.append(f"ground evaluation ran out of stack in `{_short(text)}`")
    return GroundFacts(tuple(facts.out), tuple(facts.notes))


def evaluate(
    file: DafnyFile,
    text: str,
    env: Mapping[str, Value],
    old_env: Mapping[str, Value] | None = None,
    types: Mapping[str, DafnyType] | None = None,
    budget: int = 10_000,
) -> GValue:
    """The value of one expression; raises NoValue (also for unsupported syntax or a hit bound)."""
    return _value_of(file, _parsed(text), env, old_env, types, budget)


def _parsed(text: str) -> Expr:
    try:
        return parse_expr(text)
    except ExprError as err:
        raise NoValue(str(err)) from err


def _value_of(
    file: DafnyFile,
    e: Expr,
    env: Mapping[str, Value],
    old_env: Mapping[str, Value] | None = None,
    types: Mapping[str, DafnyType] | None = None,
    budget: int = 10_000,
) -> GValue:
    ev = Evaluator(file, env, env if old_env is None else old_env, types or {}, budget)
    try:
        return ev.eval(e, ev.env, False)
    except _Limit as limit:
        raise NoValue(str(limit)) from limit
    except RecursionError as err:  # a backstop: MAX_EVAL_DEPTH normally stops far earlier
        raise NoValue("evaluation ran out of stack") from err


def quantifier_domain(
    file: DafnyFile,
    text: str,
    env: Mapping[str, Value],
    old_env: Mapping[str, Value] | None = None,
    types: Mapping[str, DafnyType] | None = None,
    budget: int = 10_000,
) -> list[GValue] | None:
    """The finite domain that the quantifier `text`'s range and body confine its first variable to
    (what instances fall back to when the guards leave the variable unbounded); None when none is
    known. Raises NoValue for unsupported syntax or a hit bound."""
    e = _parsed(text)
    if not isinstance(e, Quant):
        raise NoValue("not a quantifier")
    ev = Evaluator(file, env, env if old_env is None else old_env, types or {}, budget)
    outer = {k: v for k, v in ev.env.items() if k not in {b.name for b in e.vars}}
    try:
        return ev.domain(e.vars[0], _matter(e), outer, False)
    except _Limit as limit:
        raise NoValue(str(limit)) from limit


_NO_FILE = DafnyFile("", "", ())  # an expression of the case's values alone: no functions, no datatypes


def integer_value(text: str, env: Mapping[str, Value]) -> int:
    """The value of a bound or a count of the hints (`|s| - 1`, `a.Length`, `n / 2 + k`): integer literals, names of
    integers, `|s|`, `|a[..]|`, `a.Length`, `+ - * / %` and unary minus, over the case's values; anything else (and a
    name of another type) raises NoValue, so that a hint stands on the values it always stood on."""
    return integer_of(_parsed(text), env)


def integer_of(e: Expr, env: Mapping[str, Value]) -> int:
    """integer_value of a parsed expression."""
    if not _small_integer(e, env):
        raise NoValue
    v = _value_of(_NO_FILE, e, env)
    if not isinstance(v, IntV):
        raise NoValue
    return v.v


def _small_integer(e: Expr, env: Mapping[str, Value]) -> bool:
    if isinstance(e, Lit):
        return isinstance(e.value, IntV)
    if isinstance(e, Name):
        return isinstance(env.get(e.name), IntV)
    if isinstance(e, Unary):
        return e.op == "-" and _small_integer(e.operand, env)
    if isinstance(e, Binary):
        return e.op in ("+", "-", "*", "/", "%") and _small_integer(e.left, env) and _small_integer(e.right, env)
    if isinstance(e, Card):
        inner = e.operand.seq if isinstance(e.operand, Slice) and e.operand.lo is None and e.operand.hi is None \
            else e.operand
        return isinstance(inner, Name) and isinstance(env.get(inner.name), SeqV | ArrayV)
    if isinstance(e, Member):
        return e.name == "Length" and isinstance(e.obj, Name) and isinstance(env.get(e.obj.name), SeqV | ArrayV)
    return False


def requires_hold(
    file: DafnyFile, call: str, env: Mapping[str, Value], types: Mapping[str, DafnyType], budget: int = 2_000
) -> bool:
    """Whether the call text (`f(a, 0)`) names a function whose preconditions evaluate to true on
    the arguments' concrete values; False when that cannot be established."""
    try:
        e = parse_expr(call)
    except ExprError:
        return False
    if not isinstance(e, Call):
        return False
    ev = Evaluator(file, env, env, types, budget)
    try:
        args = tuple(ev.eval(a, ev.env, False) for a in e.args)
        ev.check_requires(e.name, args, False)
    except (NoValue, _Limit, RecursionError):
        return False
    return True


def _short(text: str, n: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 3] + "..."


# -- values ------------------------------------------------------------------------------------------


def literal(v: GValue) -> str:
    """Dafny text for a value (an array prints as the name it was read through)."""
    if isinstance(v, ArrRef):
        return v.name
    if isinstance(v, IntV):
        return to_dafny(v, IntT())
    if isinstance(v, BoolV):
        return to_dafny(v, BoolT())
    if isinstance(v, CharV):
        return to_dafny(v, CharT())
    if isinstance(v, RealV):
        return to_dafny(v, RealT())
    if isinstance(v, BvV):
        return str(v.v)  # the context gives a plain literal its bitvector type
    if isinstance(v, SeqV):
        if v.elems and all(isinstance(x, CharV) for x in v.elems):
            return to_dafny(v, StringT())
        return "[" + ", ".join(literal(x) for x in v.elems) + "]"
    if isinstance(v, TupleV):
        return "(" + ", ".join(literal(x) for x in v.elems) + ")"
    if isinstance(v, DatatypeV):
        head = f"{v.datatype}.{v.ctor}"
        return head + ("(" + ", ".join(literal(x) for x in v.fields) + ")" if v.fields else "")
    if isinstance(v, SetV):
        return "{" + ", ".join(literal(x) for x in sorted(v.elems, key=_order)) + "}"
    if isinstance(v, MsetV):
        if sum(c for _, c in v.counts) > MAX_ELEMS:
            raise _NoLiteral
        items = sorted(v.counts, key=lambda xc: _order(xc[0]))
        return "multiset{" + ", ".join(literal(x) for x, c in items for _ in range(c)) + "}"
    if isinstance(v, MapG):
        pairs = sorted(v.items, key=lambda kv: _order(kv[0]))
        return "map[" + ", ".join(f"{literal(k)} := {literal(x)}" for k, x in pairs) + "]"
    raise _NoLiteral


EMPTY_NAME = "SpecScore_empty"


def typed_literal(v: GValue, type_text: str | None) -> str:
    """`literal(v)`, written with its type when it holds an empty collection (`[]`, `{}`): Dafny cannot infer the
    type of `|[]|` or `[][0]` (an "underspecified" resolution error), so an empty value becomes a let of the declared
    type, `(var SpecScore_empty: seq<int> := []; SpecScore_empty)` (measured: Dafny 2.3 reads it). Without a declared
    type there is no literal (_NoLiteral: no fact is made from it)."""
    text = literal(v)
    if not _has_empty(v):
        return text
    if not type_text:
        raise _NoLiteral
    return f"(var {EMPTY_NAME}: {type_text} := {text}; {EMPTY_NAME})"


def _has_empty(v: GValue) -> bool:
    if isinstance(v, SeqV):
        return not v.elems or any(_has_empty(x) for x in v.elems)
    if isinstance(v, TupleV):
        return any(_has_empty(x) for x in v.elems)
    if isinstance(v, DatatypeV):
        return any(_has_empty(x) for x in v.fields)
    if isinstance(v, SetV):
        return not v.elems or any(_has_empty(x) for x in v.elems)
    if isinstance(v, MsetV):
        return not v.counts or any(_has_empty(x) for x, _ in v.counts)
    if isinstance(v, MapG):
        return not v.items or any(_has_empty(k) or _has_empty(x) for k, x in v.items)
    return False


def _order(v: GValue) -> tuple[int, Fraction, str]:
    """A deterministic sort key (frozenset iteration order depends on string hashing)."""
    if isinstance(v, IntV | BvV):
        return (0, Fraction(v.v), "")
    if isinstance(v, RealV):
        return (0, v.v, "")
    if isinstance(v, CharV):
        return (1, Fraction(ord(v.v)), "")
    if isinstance(v, BoolV):
        return (2, Fraction(int(v.v)), "")
    try:
        return (3, Fraction(0), literal(v))
    except _NoLiteral:
        return (4, Fraction(0), repr(v))


def _mset(counts: Mapping[GValue, int]) -> MsetV:
    return MsetV(frozenset((x, c) for x, c in counts.items() if c > 0))


def _counts(v: GValue) -> dict[GValue, int]:
    if isinstance(v, MsetV):
        return dict(v.counts)
    raise NoValue


def _int(v: GValue) -> int:
    if isinstance(v, IntV):
        return v.v
    raise NoValue


def _elems(v: GValue, heap: Mapping[str, tuple[Value, ...]]) -> tuple[Value, ...]:
    """The elements of a sequence or an array (read through the heap)."""
    if isinstance(v, SeqV | ArrayV):
        return v.elems
    if isinstance(v, ArrRef) and v.name in heap:
        return heap[v.name]
    raise NoValue


def _ground(v: GValue) -> GValue | None:
    """An input as the evaluator holds it: a set, multiset or map as its own (top level only); None for a collection
    inside a sequence, tuple, datatype or another collection (which the evaluator would compare as unequal to its
    own)."""
    if isinstance(v, values.MapV):
        if any(_holds_collection(k) or _holds_collection(x) for k, x in v.items):
            return None
        return MapG(frozenset(v.items))
    if isinstance(v, SetV | MsetV | MapG | ArrRef):
        return v  # already the evaluator's
    if isinstance(v, values.SetV):
        return None if any(_holds_collection(e) for e in v.elems) else SetV(frozenset(v.elems))
    if isinstance(v, values.MultisetV):
        if any(_holds_collection(e) for e, _ in v.counts):
            return None
        return MsetV(frozenset(v.counts))
    return None if _holds_collection(v) else v


def _holds_collection(v: GValue) -> bool:
    if isinstance(v, values.SetV | values.MultisetV | values.MapV | SetV | MsetV | MapG):
        return True
    if isinstance(v, SeqV | ArrayV | TupleV):
        return any(_holds_collection(e) for e in v.elems)
    if isinstance(v, DatatypeV):
        return any(_holds_collection(f) for f in v.fields)
    return False


def _value(v: GValue) -> Value:
    """v as an element of a sequence or tuple (which hold the project's values only)."""
    if isinstance(v, SetV | MsetV | MapG | ArrRef):
        raise NoValue
    return v


def _has_anonymous_array(v: GValue) -> bool:
    if isinstance(v, ArrayV):
        return True
    if isinstance(v, SeqV | TupleV):
        return any(_has_anonymous_array(x) for x in v.elems)
    return False


def _equal(a: GValue, b: GValue) -> bool:
    # arrays inside sequences are references Dafny compares by identity: unknown here
    if _has_anonymous_array(a) or _has_anonymous_array(b):
        raise NoValue
    return a == b


def _euclid(a: int, b: int) -> tuple[int, int]:
    """Dafny's integer division and modulus: Euclidean (the remainder is never negative)."""
    if b == 0:
        raise NoValue
    q = a // b if b > 0 else -(a // -b)
    return q, a - q * b


def _less(a: GValue, b: GValue, strict: bool) -> bool:
    if isinstance(a, IntV | BvV) and isinstance(b, IntV | BvV) and type(a) is type(b):
        return a.v < b.v if strict else a.v <= b.v
    if isinstance(a, RealV) and isinstance(b, RealV):
        return a.v < b.v if strict else a.v <= b.v
    if isinstance(a, CharV) and isinstance(b, CharV):
        return a.v < b.v if strict else a.v <= b.v
    if isinstance(a, SeqV) and isinstance(b, SeqV):  # prefix order
        n = len(a.elems)
        prefix = n <= len(b.elems) and all(_equal(x, y) for x, y in zip(a.elems, b.elems, strict=False))
        return prefix and (n < len(b.elems) or not strict)
    if isinstance(a, SetV) and isinstance(b, SetV):
        return a.elems < b.elems if strict else a.elems <= b.elems
    if isinstance(a, MsetV) and isinstance(b, MsetV):
        ca, cb = dict(a.counts), dict(b.counts)
        sub = all(c <= cb.get(x, 0) for x, c in ca.items())
        return sub and (not strict or ca != cb)
    raise NoValue


def _compare(op: str, a: GValue, b: GValue) -> bool:
    if op == "==":
        return _equal(a, b)
    if op == "!=":
        return not _equal(a, b)
    if op in ("<", "<="):
        return _less(a, b, op == "<")
    if op in (">", ">="):
        return _less(b, a, op == ">")
    if op in ("in", "!in"):
        if isinstance(b, SeqV):
            found = any(_equal(a, x) for x in b.elems)
        elif isinstance(b, SetV):
            found = a in b.elems
        elif isinstance(b, MsetV):
            found = _counts(b).get(a, 0) > 0
        elif isinstance(b, MapG):
            found = any(_equal(a, k) for k, _ in b.items)
        else:
            raise NoValue
        return found == (op == "in")
    if op == "!!":
        if isinstance(a, SetV) and isinstance(b, SetV):
            return not (a.elems & b.elems)
        if isinstance(a, MsetV) and isinstance(b, MsetV):
            return not (_counts(a).keys() & _counts(b).keys())
    raise NoValue


def _arith(op: str, a: GValue, b: GValue) -> GValue:
    v = _arith_unbounded(op, a, b)
    if isinstance(v, IntV) and v.v.bit_length() > MAX_BITS:
        raise _Limit(f"an integer grew beyond {MAX_BITS} bits")
    if isinstance(v, RealV) and max(v.v.numerator.bit_length(), v.v.denominator.bit_length()) > MAX_BITS:
        raise _Limit(f"a real grew beyond {MAX_BITS} bits")
    if isinstance(v, SeqV) and len(v.elems) > MAX_ELEMS:
        raise _Limit(f"a sequence grew beyond {MAX_ELEMS} elements")
    return v


def _arith_unbounded(op: str, a: GValue, b: GValue) -> GValue:
    if isinstance(a, IntV) and isinstance(b, IntV):
        x, y = a.v, b.v
        if op == "+":
            return IntV(x + y)
        if op == "-":
            return IntV(x - y)
        if op == "*":
            return IntV(x * y)
        if op in ("/", "%"):
            q, r = _euclid(x, y)
            return IntV(q if op == "/" else r)
    elif isinstance(a, RealV) and isinstance(b, RealV):
        if op == "+":
            return RealV(a.v + b.v)
        if op == "-":
            return RealV(a.v - b.v)
        if op == "*":
            return RealV(a.v * b.v)
        if op == "/":
            if b.v == 0:
                raise NoValue
            return RealV(a.v / b.v)
    elif isinstance(a, BvV):
        return _bitvector(op, a, b)
    elif isinstance(a, SeqV) and isinstance(b, SeqV) and op == "+":
        return SeqV(a.elems + b.elems)
    elif isinstance(a, SetV) and isinstance(b, SetV):
        if op == "+":
            return SetV(a.elems | b.elems)
        if op == "-":
            return SetV(a.elems - b.elems)
        if op == "*":
            return SetV(a.elems & b.elems)
    elif isinstance(a, MsetV) and isinstance(b, MsetV):
        ca, cb = _counts(a), _counts(b)
        keys = sorted(ca.keys() | cb.keys(), key=_order)
        if op == "+":
            return _mset({x: ca.get(x, 0) + cb.get(x, 0) for x in keys})
        if op == "-":
            return _mset({x: ca.get(x, 0) - cb.get(x, 0) for x in keys})
        if op == "*":
            return _mset({x: min(ca.get(x, 0), cb.get(x, 0)) for x in keys})
    raise NoValue


def _bitvector(op: str, a: BvV, b: GValue) -> BvV:
    mod = 2**a.width
    if op in ("<<", ">>"):
        if not isinstance(b, IntV | BvV) or not 0 <= b.v <= a.width:
            raise NoValue
        return BvV(a.width, (a.v << b.v) % mod if op == "<<" else a.v >> b.v)
    if not isinstance(b, BvV) or b.width != a.width:
        raise NoValue
    x, y = a.v, b.v
    if op in ("/", "%"):
        if y == 0:
            raise NoValue
        return BvV(a.width, x // y if op == "/" else x % y)
    results = {"+": x + y, "-": x - y, "*": x * y, "&": x & y, "|": x | y, "^": x ^ y}
    if op not in results:
        raise NoValue
    return BvV(a.width, results[op] % mod)


def _convert(v: GValue, type_text: str) -> GValue:
    """`e as T` for numeric and char types; Dafny rejects lossy conversions, so do we."""
    t = type_text.strip()
    if isinstance(v, IntV | BvV):
        n = v.v
    elif isinstance(v, CharV):
        n = ord(v.v)
    elif isinstance(v, RealV):
        if v.v.denominator != 1:  # "the real-based number must be an integer"
            raise NoValue
        n = v.v.numerator
        if t == "real":
            return v
    else:
        raise NoValue
    if t == "int":
        return IntV(n)
    if t == "nat" and n >= 0:
        return IntV(n)
    if t == "real" and isinstance(v, IntV):
        return RealV(Fraction(n))
    if t == "char" and 0 <= n < 0x10000:
        return CharV(chr(n))
    if t.startswith("bv") and t[2:].isdigit() and 0 <= n < 2 ** int(t[2:]):
        return BvV(int(t[2:]), n)
    raise NoValue


# -- the evaluator -----------------------------------------------------------------------------------


def _guards(q: Quant) -> list[Expr]:
    """Conditions every instance that matters satisfies: the range, and for a `forall` the
    antecedents of its implications, for an `exists` the conjuncts of its body."""
    out = conjuncts(q.range)
    body = q.body
    if q.kind == "exists":
        return out + conjuncts(body)
    while isinstance(body, Binary) and body.op == "==>":
        out += conjuncts(body.left)
        body = body.right
    return out


def _matter(q: Quant) -> Expr:
    """True exactly at the instances that decide q: an `exists`' witnesses, a `forall`'s counterexamples."""
    body: Expr = q.body if q.kind == "exists" else Unary("!", q.body)
    return body if q.range is None else Binary("&&", q.range, body)


# Types whose every value a bound variable (or a function parameter) ranges over: the values a domain
# is built from are of the variable's base type, which a subset type such as `nat` may not contain all of.
_DOMAIN_TYPES = frozenset({"int", "nat", "bool", "char", "real", "string"})
_Support = list[GValue] | None
_BOOLEAN_OPS = frozenset({"<==>", "==>", "<==", "&&", "||", "==", "!=", "<", "<=", ">", ">=", "in", "!in", "!!"})


def _union(*parts: _Support) -> _Support:
    """The support of a value that needs one of the parts: all of them must be known."""
    out: dict[GValue, None] = {}
    for part in parts:
        if part is None:
            return None
        out.update(dict.fromkeys(part))
    return list(out)


def _meet(*parts: _Support) -> _Support:
    """The support of a value that needs all of the parts: any known one bounds it."""
    known = [set(p) for p in parts if p is not None]
    if not known:
        return None
    first = next(p for p in parts if p is not None)
    return [x for x in first if all(x in k for k in known)]


class Evaluator:
    """Evaluates expressions over concrete values, calling the file's functions by their bodies.

    Counts one step per evaluated node against the budget; memoises function calls and logs each
    call it completes (`log`), innermost first, so callers can state every unfolding."""

    def __init__(
        self,
        file: DafnyFile,
        env: Mapping[str, Value],
        old_env: Mapping[str, Value],
        types: Mapping[str, DafnyType],
        budget: int,
    ) -> None:
        self.source = file.source
        self.datatypes = file.datatypes
        self.functions = {d.name: d for d in file.decls if d.kind in _FUNCTION_KINDS and d.body is not None}
        self.parsed: dict[str, tuple[tuple[str, ...], tuple[Expr, ...], Expr] | None] = {}
        self.budget = budget
        self.steps = 0
        self.depth = 0
        self.memo: dict[_CallKey, GValue] = {}
        self.log: list[_CallKey] = []
        self.heaps: dict[bool, dict[str, tuple[Value, ...]]] = {False: {}, True: {}}
        self.env: dict[str, GValue] = {}
        for name, v in env.items():
            if isinstance(types.get(name), ArrayT) or isinstance(v, ArrayV):
                if not isinstance(v, ArrayV | SeqV):
                    continue
                self.heaps[False][name] = v.elems
                self.env[name] = ArrRef(name)
            else:
                g = _ground(v)
                if g is not None:
                    self.env[name] = g
        for name, v in old_env.items():
            if isinstance(self.env.get(name), ArrRef) and isinstance(v, ArrayV | SeqV):
                self.heaps[True][name] = v.elems

    def remaining(self) -> int:
        return self.budget - self.steps

    def truth(self, e: Expr, env: Mapping[str, GValue], old: bool) -> bool:
        v = self.eval(e, env, old)
        if not isinstance(v, BoolV):
            raise NoValue
        return v.v

    def eval(self, e: Expr, env: Mapping[str, GValue], old: bool) -> GValue:
        self.tick()
        if self.depth >= MAX_EVAL_DEPTH:
            raise _Limit(f"evaluation nested deeper than {MAX_EVAL_DEPTH} levels (recursive calls)")
        self.depth += 1
        try:
            return self._eval(e, env, old)
        finally:
            self.depth -= 1

    def _eval(self, e: Expr, env: Mapping[str, GValue], old: bool) -> GValue:
        if isinstance(e, Lit):
            return e.value
        if isinstance(e, Name):
            if e.name not in env:
                return self.construct(e.name, ())
            return env[e.name]
        if isinstance(e, Binary):
            return self.binary(e, env, old)
        if isinstance(e, Chain):
            prev = self.eval(e.operands[0], env, old)
            for op, x in zip(e.ops, e.operands[1:], strict=True):
                cur = self.eval(x, env, old)
                if not _compare(op, prev, cur):
                    return BoolV(False)
                prev = cur
            return BoolV(True)
        if isinstance(e, Unary):
            v = self.eval(e.operand, env, old)
            if e.op == "!" and isinstance(v, BoolV):
                return BoolV(not v.v)
            if e.op == "-" and isinstance(v, IntV):
                return IntV(-v.v)
            if e.op == "-" and isinstance(v, RealV):
                return RealV(-v.v)
            if isinstance(v, BvV):
                mask = 2**v.width - 1
                return BvV(v.width, (-v.v) & mask if e.op == "-" else v.v ^ mask)
            raise NoValue
        if isinstance(e, Ite):
            return self.eval(e.then if self.truth(e.cond, env, old) else e.els, env, old)
        if isinstance(e, Let):
            values = [self.eval(x, env, old) for x in e.values]
            return self.eval(e.body, {**env, **dict(zip(e.names, values, strict=True))}, old)
        if isinstance(e, LetSuch):
            return self.let_such(e, env, old)
        if isinstance(e, Call):
            args = tuple(self.eval(a, env, old) for a in e.args)
            if e.name not in self.functions:
                return self.construct(e.name, args)
            return self.call(e.name, args, old)
        if isinstance(e, Member):
            if isinstance(e.obj, Name) and e.obj.name not in env and self.datatypes.get(e.obj.name) is not None:
                return self.construct(f"{e.obj.name}.{e.name}", ())  # `Color.Red`
            return self.member(self.eval(e.obj, env, old), e.name, old)
        if isinstance(e, Index):
            return self.index(self.eval(e.seq, env, old), self.eval(e.index, env, old), old)
        if isinstance(e, Slice):
            elems = _elems(self.eval(e.seq, env, old), self.heaps[old])
            lo = 0 if e.lo is None else _int(self.eval(e.lo, env, old))
            hi = len(elems) if e.hi is None else _int(self.eval(e.hi, env, old))
            if not 0 <= lo <= hi <= len(elems):
                raise NoValue
            return SeqV(elems[lo:hi])
        if isinstance(e, Update):
            target = self.eval(e.seq, env, old)
            key = self.eval(e.index, env, old)
            value = self.eval(e.value, env, old)
            if isinstance(target, SeqV):
                i = _int(key)
                if not 0 <= i < len(target.elems):
                    raise NoValue
                return SeqV(target.elems[:i] + (_value(value),) + target.elems[i + 1 :])
            if isinstance(target, MsetV) and isinstance(value, IntV) and value.v >= 0:
                return _mset({**_counts(target), key: value.v})
            raise NoValue
        if isinstance(e, Card):
            v = self.eval(e.operand, env, old)
            if isinstance(v, SeqV):
                return IntV(len(v.elems))
            if isinstance(v, SetV):
                return IntV(len(v.elems))
            if isinstance(v, MsetV):
                return IntV(sum(c for _, c in v.counts))
            if isinstance(v, MapG):
                return IntV(len(v.items))
            raise NoValue
        if isinstance(e, Old):
            return self.eval(e.operand, env, True)
        if isinstance(e, MultisetOf):
            v = self.eval(e.operand, env, old)
            if isinstance(v, SetV):
                return _mset(dict.fromkeys(v.elems, 1))
            if not isinstance(v, SeqV) or _has_anonymous_array(v):
                raise NoValue
            counts: dict[GValue, int] = {}
            for elem in v.elems:
                counts[elem] = counts.get(elem, 0) + 1
            return _mset(counts)
        if isinstance(e, Display):
            items = [self.eval(x, env, old) for x in e.elems]
            if e.kind != "seq" and any(_has_anonymous_array(item) for item in items):
                raise NoValue  # arrays in sets are compared by identity
            if e.kind == "seq":
                return SeqV(tuple(_value(item) for item in items))
            if e.kind == "set":
                return SetV(frozenset(items))
            counts = {}
            for item in items:
                counts[item] = counts.get(item, 0) + 1
            return _mset(counts)
        if isinstance(e, TupleE):
            return TupleV(tuple(_value(self.eval(x, env, old)) for x in e.elems))
        if isinstance(e, As):
            return _convert(self.eval(e.operand, env, old), e.type_text)
        if isinstance(e, Quant):
            return BoolV(self.quantifier(e, env, old)[0])
        return self.comprehension(e, env, old)

    def binary(self, e: Binary, env: Mapping[str, GValue], old: bool) -> GValue:
        op = e.op
        if op in ("&&", "||", "==>", "<=="):  # short-circuit, as Dafny's well-formedness does
            first, second = (e.right, e.left) if op == "<==" else (e.left, e.right)
            decided = self.truth(first, env, old)
            if (op == "&&" and not decided) or (op == "||" and decided) or (op in ("==>", "<==") and not decided):
                return BoolV(op in ("||", "==>", "<=="))
            return BoolV(self.truth(second, env, old))
        if op == "<==>":
            return BoolV(self.truth(e.left, env, old) == self.truth(e.right, env, old))
        a = self.eval(e.left, env, old)
        b = self.eval(e.right, env, old)
        if op in ("==", "!=", "<", "<=", ">", ">=", "in", "!in", "!!"):
            return BoolV(_compare(op, a, b))
        return _arith(op, a, b)

    def member(self, v: GValue, name: str, old: bool) -> GValue:
        if name == "Length" and isinstance(v, ArrRef | ArrayV):
            return IntV(len(_elems(v, self.heaps[False] if isinstance(v, ArrRef) else {})))
        if name == "Floor" and isinstance(v, RealV):
            return IntV(v.v.numerator // v.v.denominator)
        if name.isdigit() and isinstance(v, TupleV) and int(name) < len(v.elems):
            return v.elems[int(name)]
        if isinstance(v, DatatypeV):
            return self.datatype_member(v, name)
        if isinstance(v, MapG) and name in ("Keys", "Values"):
            return SetV(frozenset(k if name == "Keys" else x for k, x in v.items))
        raise NoValue

    def construct(self, name: str, args: tuple[GValue, ...]) -> DatatypeV:
        """A constructor's value: `Some(3)`, `Option.Some(3)`, `None` (NoValue for any other name, and for a
        constructor name two datatypes share: which one is meant is for the type checker to say)."""
        datatype, _, ctor = name.rpartition(".")
        if not datatype and ctor in self.datatypes.shadowed:
            raise NoValue  # the bare name is another declaration's (a function, a constant)
        owners = [d for d in self.datatypes.ctor_owner(ctor) if not datatype or d.name == datatype]
        if len(owners) != 1:
            raise NoValue
        c = owners[0].ctor(ctor)
        if c is None or len(c.fields) != len(args):
            raise NoValue
        return DatatypeV(owners[0].name, ctor, tuple(_value(a) for a in args))

    def datatype_member(self, v: DatatypeV, name: str) -> GValue:
        """`v.Some?` and `v.value`; a field of another constructor has no value (Dafny rejects the access)."""
        decl = self.datatypes.get(v.datatype)
        if decl is None:
            raise NoValue
        if name.endswith("?") and decl.ctor(name[:-1]) is not None:
            return BoolV(v.ctor == name[:-1])
        c = decl.ctor(v.ctor)
        names = [] if c is None else [f.name for f in c.fields]
        if name and name in names and len(names) == len(v.fields):
            return v.fields[names.index(name)]
        raise NoValue

    def index(self, target: GValue, key: GValue, old: bool) -> GValue:
        if isinstance(target, MsetV):
            return IntV(_counts(target).get(key, 0))
        if isinstance(target, MapG):
            found = [x for k, x in target.items if _equal(k, key)]
            if not found:
                raise NoValue  # not a key: the lookup is not well-defined
            return found[0]
        elems = _elems(target, self.heaps[old])
        i = _int(key)
        if not 0 <= i < len(elems):
            raise NoValue
        return elems[i]

    # -- functions

    def parts(self, name: str) -> tuple[tuple[str, ...], tuple[Expr, ...], Expr]:
        """Parameter names, parsed `requires` and body of a function; NoValue when unusable."""
        if name not in self.parsed:
            self.parsed[name] = self._parse_function(self.functions[name]) if name in self.functions else None
        found = self.parsed[name]
        if found is None:
            raise NoValue
        return found

    def _parse_function(self, d: Decl) -> tuple[tuple[str, ...], tuple[Expr, ...], Expr] | None:
        assert d.body is not None
        try:
            requires = tuple(parse_expr(c.text) for c in d.clauses if c.kind == "requires")
            body = parse_expr(self.source[d.body[0] + 1 : d.body[1] - 1])
        except ExprError:
            return None
        return tuple(p.name for p in d.params), requires, body

    def check_requires(self, name: str, args: tuple[GValue, ...], old: bool) -> dict[str, GValue]:
        """The function's local environment; NoValue unless every `requires` evaluates to true
        (a mention violating a precondition is itself a verification failure)."""
        params, requires, _ = self.parts(name)
        if len(params) != len(args):
            raise NoValue
        for p, a in zip(self.functions[name].params, args, strict=True):
            if p.type_text.strip() == "nat" and isinstance(a, IntV) and a.v < 0:
                raise NoValue  # outside the parameter's subset type: a call Dafny itself would reject
        local: dict[str, GValue] = dict(zip(params, args, strict=True))
        for r in requires:
            if not self.truth(r, local, old):
                raise NoValue
        return local

    def call(self, name: str, args: tuple[GValue, ...], old: bool) -> GValue:
        key = (name, args, old)
        if key not in self.memo:
            local = self.check_requires(name, args, old)
            self.memo[key] = self.eval(self.parts(name)[2], local, old)
        self.log.append(key)
        return self.memo[key]

    def choices(self, e: LetSuch, env: Mapping[str, GValue], old: bool) -> list[dict[str, GValue]]:
        """Every value of `var x :| cond` (over the finite range the condition's guards give, in a fixed order);
        NoValue when some candidate cannot be decided."""
        out = []
        for inst in self.instances((e.var,), conjuncts(e.cond), env, old, e.cond):
            if self.truth(e.cond, {**env, **inst}, old):
                out.append(inst)
        return out

    def let_such(self, e: LetSuch, env: Mapping[str, GValue], old: bool) -> GValue:
        """The body's value when every choice gives the same one (a fold over a set, order-independent); else
        NoValue: which value Dafny picks is not known, so no fact may depend on it."""
        choices = self.choices(e, env, old)
        if len(choices) > MAX_CHOICES:
            # a fold over a set of n elements needs facts for its 2^n subsets: measured (development task 573),
            # a set of 6 ran past the 200 facts a program holds and timed out (20 s) where without facts the
            # verifier gives up at once; a set of 5 was accepted, but each of its mutants timed out (100 s)
            raise NoValue
        values = {self.eval(e.body, {**env, **inst}, old) for inst in choices}
        if len(values) != 1:
            raise NoValue  # no choice (the expression is ill-formed), or choices that differ
        return values.pop()

    # -- quantifiers and comprehensions over the bounded ranges their guards give

    def quantifier(self, q: Quant, env: Mapping[str, GValue], old: bool) -> tuple[bool, dict[str, GValue] | None]:
        """The value, and the decisive instance: an `exists`' witness or a `forall`'s counterexample."""
        unknown = False
        for inst in self.instances(q.vars, _guards(q), env, old, _matter(q)):
            local = {**env, **inst}
            try:
                ok = q.range is None or self.truth(q.range, local, old)
                holds = ok and self.truth(q.body, local, old)
            except NoValue:
                unknown = True  # a later instance may still decide the quantifier
                continue
            if ok and holds == (q.kind == "exists"):
                return q.kind == "exists", inst
        if unknown:
            raise NoValue
        return q.kind == "forall", None

    def comprehension(self, c: SetComp, env: Mapping[str, GValue], old: bool) -> SetV:
        if c.term is None and len(c.vars) != 1:
            raise NoValue
        out: set[GValue] = set()
        for inst in self.instances(c.vars, conjuncts(c.range), env, old, c.range):
            local = {**env, **inst}
            if self.truth(c.range, local, old):
                item = inst[c.vars[0].name] if c.term is None else self.eval(c.term, local, old)
                if _has_anonymous_array(item):
                    raise NoValue  # arrays in sets are compared by identity
                out.add(item)
        return SetV(frozenset(out))

    def instances(
        self, bvs: Sequence[BoundVar], guards: Sequence[Expr], env: Mapping[str, GValue], old: bool,
        matter: Expr | None = None,
    ) -> Iterator[dict[str, GValue]]:
        """Every binding of the variables that can satisfy the guards (a superset, in a
        deterministic order); NoValue when some variable has no finite candidate set.

        matter, when given, is true at every binding that matters (false elsewhere): a variable the
        guards leave unbounded may still get the finite domain it confines (see `domain`)."""
        names = {v.name for v in bvs}
        outer = {k: v for k, v in env.items() if k not in names}  # bound names shadow outer ones
        yield from self._bind(list(bvs), guards, outer, {}, old, matter)

    def _bind(
        self, todo: list[BoundVar], guards: Sequence[Expr], outer: Mapping[str, GValue], done: dict[str, GValue],
        old: bool, matter: Expr | None,
    ) -> Iterator[dict[str, GValue]]:
        if not todo:
            yield dict(done)
            return
        scope = {**outer, **done}
        found: tuple[int, list[GValue]] | None = None
        for i, var in enumerate(todo):  # the first variable whose values are computable now
            cands = self.values_of(var, guards, scope, old)
            if cands is not None:
                found = i, cands
                break
        if found is None and matter is not None:
            for i, var in enumerate(todo):  # else the first one the body confines
                cands = self.domain(var, matter, scope, old)
                if cands is not None:
                    found = i, cands
                    break
        if found is None:
            raise NoValue
        i, cands = found
        rest = todo[:i] + todo[i + 1 :]
        for c in cands:
            self.tick()
            yield from self._bind(rest, guards, outer, {**done, todo[i].name: c}, old, matter)

    def tick(self) -> None:
        self.steps += 1
        if self.steps > self.budget:
            raise _Stop(f"ground evaluation stopped at {self.budget} steps")

    def values_of(
        self, var: BoundVar, guards: Sequence[Expr], env: Mapping[str, GValue], old: bool
    ) -> list[GValue] | None:
        lo: int | None = 0 if var.type_text == "nat" else None
        hi: int | None = None  # inclusive
        chars = False
        finite: list[GValue] | None = [BoolV(False), BoolV(True)] if var.type_text == "bool" else None
        for g in guards:
            if isinstance(g, Binary) and g.op == "in" and g.left == Name(var.name):
                try:
                    coll = self.eval(g.right, env, old)
                except NoValue:
                    continue
                if isinstance(coll, SeqV):
                    finite = list(dict.fromkeys(coll.elems))
                elif isinstance(coll, SetV):
                    finite = sorted(coll.elems, key=_order)
                elif isinstance(coll, MsetV):
                    finite = sorted((x for x, _ in coll.counts), key=_order)
                elif isinstance(coll, MapG):
                    finite = sorted((k for k, _ in coll.items), key=_order)
                continue
            for rel, v in self.bounds(var.name, g, env, old):
                if isinstance(v, CharV):
                    chars, n = True, ord(v.v)
                elif isinstance(v, IntV):
                    n = v.v
                else:
                    if rel == "==":
                        finite = [v]
                    continue
                if rel == "==":
                    finite = [v]
                elif rel in (">", ">="):
                    lo = max(n + (rel == ">"), lo if lo is not None else n)
                else:
                    hi = min(n - (rel == "<"), hi if hi is not None else n)
        if finite is not None:
            return finite
        if lo is None or hi is None:
            return None
        if hi - lo + 1 > self.remaining():
            raise _Limit(f"{hi - lo + 1} instances of `{var.name}` exceed the remaining {self.remaining()} steps")
        return [CharV(chr(n)) for n in range(lo, hi + 1)] if chars else [IntV(n) for n in range(lo, hi + 1)]

    def bounds(self, name: str, g: Expr, env: Mapping[str, GValue], old: bool) -> Iterator[tuple[str, GValue]]:
        """(relation, value) pairs, read `name rel value`, that a comparison chain imposes."""
        ops: tuple[str, ...]
        operands: tuple[Expr, ...]
        if isinstance(g, Binary) and g.op in ("==", "<", "<=", ">", ">="):
            ops, operands = (g.op,), (g.left, g.right)
        elif isinstance(g, Chain):
            ops, operands = g.ops, g.operands
        else:
            return
        for p, x in enumerate(operands):
            if x != Name(name):
                continue
            for q, y in enumerate(operands):
                if q == p or name in free_vars(y):
                    continue
                seg = set(ops[min(p, q) : max(p, q)])
                if seg <= {"<", "<=", "=="}:
                    up = True
                elif seg <= {">", ">=", "=="}:
                    up = False
                else:
                    continue
                try:
                    v = self.eval(y, env, old)
                except NoValue:
                    continue
                if seg == {"=="}:
                    yield "==", v
                    continue
                strict = bool(seg & {"<", ">"})
                below = (q > p) == up  # name is below y
                yield ("<" if strict else "<=") if below else (">" if strict else ">="), v

    # -- finite domains that a quantifier's body confines its variable to

    def domain(
        self, var: BoundVar, matter: Expr, env: Mapping[str, GValue], old: bool
    ) -> list[GValue] | None:
        """A finite superset of the values of var at which matter can be true, in a deterministic
        order: outside it matter is false whatever the other unbound names are, so the instances
        there do not matter (a true `forall` body, a false `exists` body). None when none is known.

        `forall x :: x in r <==> exists i :: 0 <= i < a.Length && a[i] == x` only matters where a
        side is true: x in r, or x one of the a[i]."""
        if var.type_text is not None and var.type_text.strip() not in _DOMAIN_TYPES:
            return None  # a subset type may exclude values of the base type the domain is read from
        found = self.support(matter, True, var, env, old, 0)
        if found is None:
            return None
        if var.type_text is not None and var.type_text.strip() == "nat":
            found = [x for x in found if isinstance(x, IntV) and x.v >= 0]
        if len(found) > self.remaining():
            raise _Limit(f"{len(found)} instances of `{var.name}` exceed the remaining {self.remaining()} steps")
        return sorted(found, key=_order)

    def support(
        self, e: Expr, want: bool, var: BoundVar, env: Mapping[str, GValue], old: bool, inlined: int
    ) -> _Support:
        """A finite list of values of var outside which e cannot evaluate to `want`, whatever the
        names missing from env are; None when no such list is known (never a guess). env holds
        neither var nor the other unbound names, so a term mentioning them has no value here."""
        self.tick()
        if self.depth >= MAX_EVAL_DEPTH:
            return None
        self.depth += 1
        try:
            return self._support(e, want, var, env, old, inlined)
        finally:
            self.depth -= 1

    def _support(
        self, e: Expr, want: bool, var: BoundVar, env: Mapping[str, GValue], old: bool, inlined: int
    ) -> _Support:
        def sup(x: Expr, w: bool, env2: Mapping[str, GValue] = env, old2: bool = old) -> _Support:
            return self.support(x, w, var, env2, old2, inlined)

        if var.name not in free_vars(e):  # constant in var: never `want`, or no bound
            try:
                return [] if self.truth(e, env, old) != want else None
            except NoValue:
                return None
        if isinstance(e, Unary) and e.op == "!":
            return sup(e.operand, not want)
        if isinstance(e, Old):
            return sup(e.operand, want, env, True)
        if isinstance(e, Binary) and e.op in ("!=", "!in"):
            return sup(Binary("==" if e.op == "!=" else "in", e.left, e.right), not want)
        if isinstance(e, Binary) and e.op == "==" and (self.boolean(e.left) or self.boolean(e.right)):
            e = Binary("<==>", e.left, e.right)  # equal truth values (`!=` came here as `==`)
        if isinstance(e, Binary) and e.op in ("&&", "||", "==>", "<==", "<==>"):
            left, right = (e.right, e.left) if e.op == "<==" else (e.left, e.right)
            if e.op == "&&":
                return _meet(sup(left, True), sup(right, True)) if want else _union(sup(left, False), sup(right, False))
            if e.op == "||":
                return _union(sup(left, True), sup(right, True)) if want else _meet(sup(left, False), sup(right, False))
            if e.op in ("==>", "<=="):
                return _union(sup(left, False), sup(right, True)) if want else _meet(sup(left, True), sup(right, False))
            lt, lf, rt, rf = sup(left, True), sup(left, False), sup(right, True), sup(right, False)
            if want:  # both true or both false
                return _union(_meet(lt, rt), _meet(lf, rf))
            return _union(_meet(lt, rf), _meet(lf, rt))
        if isinstance(e, Binary | Chain) and want:  # `x in s`, `x == e`, `lo <= x < hi`
            if isinstance(e, Binary) and e.op not in ("==", "<", "<=", ">", ">=", "in"):
                return None
            try:
                return self.values_of(var, [e], env, old)
            except NoValue:
                return None
            except _Limit as limit:
                if isinstance(limit, _Stop):
                    raise
                return None
        if isinstance(e, Ite):
            if var.name not in free_vars(e.cond):
                try:
                    return sup(e.then if self.truth(e.cond, env, old) else e.els, want)
                except NoValue:
                    return None
            return _union(_meet(sup(e.cond, True), sup(e.then, want)), _meet(sup(e.cond, False), sup(e.els, want)))
        if isinstance(e, Quant):
            return self.quantifier_support(e, want, var, env, old, inlined)
        if isinstance(e, Call):
            return self.call_support(e, want, var, env, old, inlined)
        return None

    def boolean(self, e: Expr) -> bool:
        """Whether e is of type bool by its form (so `e == f` means `e <==> f`)."""
        if isinstance(e, Lit):
            return isinstance(e.value, BoolV)
        if isinstance(e, Unary):
            return e.op == "!"
        if isinstance(e, Binary):
            return e.op in _BOOLEAN_OPS
        if isinstance(e, Call):
            return e.name in self.functions and self.functions[e.name].kind.startswith("predicate")
        return isinstance(e, Chain | Quant)

    def quantifier_support(
        self, q: Quant, want: bool, var: BoundVar, env: Mapping[str, GValue], old: bool, inlined: int
    ) -> _Support:
        """Over the quantifier's own instances (its variable bounded without var): an `exists` is true
        only where some instance's matter is, a `forall` false only where some counterexample is."""
        matter = _matter(q)
        exists_wanted = want == (q.kind == "exists")  # want a witness (exists) / a counterexample (forall)
        parts: list[_Support] = []
        try:
            for inst in self.instances(q.vars, _guards(q), env, old, matter):
                parts.append(self.support(matter, exists_wanted, var, {**env, **inst}, old, inlined))
        except NoValue:
            return None
        except _Limit as limit:
            if isinstance(limit, _Stop):
                raise
            return None
        if exists_wanted:
            return _union(*parts)  # no instance at all: never a witness
        return _meet(*parts) if parts else None

    def call_support(
        self, e: Call, want: bool, var: BoundVar, env: Mapping[str, GValue], old: bool, inlined: int
    ) -> _Support:
        """Through the body of a function whose one argument is var itself, the others concrete,
        the preconditions true regardless of var, and var's parameter of a full type."""
        if inlined >= 8 or e.name not in self.functions:
            return None
        try:
            params, requires, body = self.parts(e.name)
        except NoValue:
            return None
        if len(params) != len(e.args):
            return None
        tracked: str | None = None
        local: dict[str, GValue] = {}
        try:
            for p, arg in zip(params, e.args, strict=True):
                if arg == Name(var.name) and tracked is None:
                    tracked = p
                elif var.name in free_vars(arg):
                    return None
                else:
                    local[p] = self.eval(arg, env, old)
            if tracked is None:
                return None
            types = {p.name: p.type_text.strip() for p in self.functions[e.name].params}
            if types.get(tracked) not in _DOMAIN_TYPES - {"nat"}:
                return None  # outside a parameter's subset type the function's value is unconstrained
            for r in requires:
                if tracked in free_vars(r) or not self.truth(r, local, old):
                    return None
        except NoValue:
            return None
        return self.support(body, want, BoundVar(tracked, types[tracked]), local, old, inlined + 1)


# -- facts -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Scope:
    env: Mapping[str, GValue]
    literal: frozenset[str]  # names printed as their values (function parameters, instance variables)
    unknown: frozenset[str]  # bound names without a value here
    old: bool  # inside old(...): facts are wrapped in old(...)
    source_calls: bool  # state closed calls in the clause's own words (not inside function bodies)
    types: Mapping[str, str] = field(default_factory=dict)  # declared types of literal names, where known


_FactMaker = Callable[[Expr, _Scope], None]


class _Facts:
    def __init__(self, ev: Evaluator) -> None:
        self.ev = ev
        self.out: list[str] = []
        self.seen: set[str] = set()
        self.notes: list[str] = []
        self.done_calls: set[_CallKey] = set()
        self.call_nesting = 0
        # free variables per node walked (free_vars' memo): `walk` asks at every node, and free_vars of each was a
        # walk of its whole subtree
        self.free_of: dict[int, tuple[Expr, frozenset[str]]] = {}

    def emit(self, text: str, old: bool) -> None:
        stmt = f"  assert old({text});" if old else f"  assert {text};"
        if stmt in self.seen:
            return
        self.seen.add(stmt)
        if len(self.out) >= MAX_STATEMENTS:
            self.note(f"ground facts capped at {MAX_STATEMENTS} statements; later ones dropped")
            return
        self.out.append(stmt)

    def subst(self, scope: _Scope) -> dict[str, str]:
        return {n: typed_literal(scope.env[n], scope.types.get(n)) for n in scope.literal}

    def evaluate(self, e: Expr, scope: _Scope) -> GValue:
        """e's value; states the calls the evaluation completed first (even when it fails)."""
        start = len(self.ev.log)
        try:
            v = self.ev.eval(e, scope.env, scope.old)
        except NoValue:
            self.flush(start)
            raise
        except _Limit:
            del self.ev.log[start:]
            raise
        self.flush(start)
        return v

    def flush(self, start: int) -> None:
        calls = self.ev.log[start:]
        del self.ev.log[start:]
        for key in calls:
            self.call_fact(key)

    def call_fact(self, key: _CallKey) -> None:
        """`f(args) == v`, after the facts its body needs with these arguments."""
        if key in self.done_calls:
            return
        self.done_calls.add(key)
        name, args, old = key
        try:
            args_text = ", ".join(literal(a) for a in args)
            value_text = literal(self.ev.memo[key])
        except _NoLiteral:
            return
        params, _, body = self.ev.parts(name)
        if self.call_nesting < 8:  # calls are logged innermost first, so this rarely nests
            self.call_nesting += 1
            try:
                env = dict(zip(params, args, strict=True))
                types = {p.name: p.type_text for p in self.ev.functions[name].params}
                self.walk(body, _Scope(env, frozenset(params), frozenset(), old, False, types))
            finally:
                self.call_nesting -= 1
        if not self.ev.functions[name].generic:
            # a generic function's literal arguments may not fix its type arguments (`Len(List.Nil)`, `Cnt([])`):
            # Dafny rejects such a line, so its value is left to the verifier
            self.emit(f"{name}({args_text}) == {value_text}", old)

    def walk(self, e: Expr, scope: _Scope) -> None:
        """Facts for e's closed subterms, inner ones first."""
        closed = not (free_vars(e, self.free_of) & scope.unknown)
        if isinstance(e, LetSuch) and closed:
            # the verifier does not know which value is chosen: the facts of every choice, each with its value
            with contextlib.suppress(NoValue, _NoLiteral):
                for inst in self.ev.choices(e, scope.env, scope.old):
                    for v in inst.values():
                        literal(v)  # _NoLiteral: no facts for this expression
                    self.walk(e.body, replace(scope, env={**scope.env, **inst}, literal=scope.literal | set(inst),
                                              unknown=scope.unknown - set(inst)))
            return
        if isinstance(e, Let):
            for x in e.values:
                self.walk(x, scope)
            self.walk(e.body, self.let_scope(e, scope) if closed else self.bind(scope, e.names))
            return
        if isinstance(e, Old):
            self.walk(e.operand, replace(scope, old=True))
            return
        if closed and isinstance(e, Card) and isinstance(e.operand, SetComp):
            self.walk_children(e.operand, scope)
            self.guarded(e, scope, self.set_facts)
            return
        self.walk_children(e, scope)
        if closed and isinstance(e, SetComp):
            self.guarded(e, scope, self.set_facts)
        elif closed and isinstance(e, Quant):
            self.guarded(e, scope, self.quantifier_facts)
        elif closed and isinstance(e, Call) and e.name in self.ev.functions:
            self.guarded(e, scope, self.call_facts)

    def walk_children(self, e: Expr, scope: _Scope) -> None:
        inner = self.bind(scope, bound_names(e))
        for c in children(e):
            self.walk(c, inner)

    @staticmethod
    def bind(scope: _Scope, names: tuple[str, ...]) -> _Scope:
        if not names:
            return scope
        return replace(scope, unknown=scope.unknown | set(names), literal=scope.literal - set(names))

    def let_scope(self, e: Let, scope: _Scope) -> _Scope:
        """The let's names bound to their values (printed as literals), when they have values."""
        values: list[GValue] = []

        def bind_values(_: Expr, inner: _Scope) -> None:
            got = [self.evaluate(x, inner) for x in e.values]
            for v in got:
                literal(v)  # _NoLiteral: the names stay unknown
            values.extend(got)

        self.guarded(e, scope, bind_values)
        if len(values) != len(e.names):
            return self.bind(scope, e.names)
        env = {**scope.env, **dict(zip(e.names, values, strict=True))}
        return replace(scope, env=env, literal=scope.literal | set(e.names), unknown=scope.unknown - set(e.names))

    def guarded(self, e: Expr, scope: _Scope, facts: _FactMaker) -> None:
        try:
            facts(e, scope)
        except (NoValue, _NoLiteral):
            pass
        except _Limit as limit:
            if isinstance(limit, _Stop):
                raise
            self.note(f"ground evaluation skipped `{_short(unparse(e))}`: {limit}")

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def set_facts(self, e: Expr, scope: _Scope) -> None:
        comp = e.operand if isinstance(e, Card) else e
        assert isinstance(comp, SetComp)
        subst = self.subst(scope)
        value = self.evaluate(comp, scope)
        assert isinstance(value, SetV)
        self.emit(f"{unparse_operand(comp, subst)} == {literal(value)}", scope.old)
        if isinstance(e, Card):
            self.emit(f"{unparse(e, subst)} == {len(value.elems)}", scope.old)

    def quantifier_facts(self, e: Expr, scope: _Scope) -> None:
        assert isinstance(e, Quant)
        start = len(self.ev.log)
        try:
            _, inst = self.ev.quantifier(e, scope.env, scope.old)
        except NoValue:
            self.flush(start)
            raise
        except _Limit:
            del self.ev.log[start:]
            raise
        self.flush(start)
        if inst is None:
            return  # a true forall or a false exists: no single instance proves it
        names = tuple(v.name for v in e.vars)
        for v in inst.values():
            literal(v)
        inner = replace(
            scope,
            env={**scope.env, **inst},
            literal=scope.literal | set(names),
            unknown=scope.unknown - set(names),
            types={**scope.types, **{v.name: v.type_text for v in e.vars if v.type_text}},
        )
        if e.range is not None:
            self.walk(e.range, inner)
        self.walk(e.body, inner)
        body: Expr = e.body if e.kind == "exists" else Unary("!", e.body)
        fact = body if e.range is None else Binary("&&", e.range, body)
        self.emit(unparse(fact, self.subst(inner)), scope.old)

    def call_facts(self, e: Expr, scope: _Scope) -> None:
        assert isinstance(e, Call)
        subst = self.subst(scope)
        # A collection argument computed from another (`Max(a[..|a| - 1])` inside Max's body, with a
        # literal for `a`) is only matched to the stated call (`Max([7, 2, 9])`) by extensionality,
        # which the solver does not try by itself: measured, `Max` facts failed from 4 elements on
        # without `assert [7, 2, 9, 4][..|[7, 2, 9, 4]| - 1] == [7, 2, 9];` and held for 12 with it.
        args = []
        for arg in e.args:
            if not isinstance(arg, Name | Lit | Display):
                v = self.evaluate(arg, scope)
                if isinstance(v, SeqV | SetV | MsetV):
                    args.append(f"{unparse_operand(arg, subst)} == {literal(v)}")
        value = self.evaluate(e, scope)  # NoValue when a precondition fails: then no argument facts
        for fact in args:
            self.emit(fact, scope.old)
        if scope.source_calls and not (e.name in self.ev.functions and self.ev.functions[e.name].generic):
            self.emit(f"{unparse(e, subst)} == {literal(value)}", scope.old)
