"""Typed Dafny values: a literal parser (type-directed) and printers.

Pure code. Strings are sequences of chars (`SeqV` of `CharV`); the type decides how they print.

Printing rule for negative numbers: `to_dafny` writes a bare unary minus (`-5`, `-2.5`), also inside
sequences and tuples. Dafny's unary minus binds tighter than every binary operator, so the text is a
safe operand wherever the harness puts it (`x == -5`, `-5 <= x`, `[-5]`, `(-5, 1)`, `x := -5`). Reals
that are not finite decimals print as a quotient and are always parenthesised: `(1.0 / 3.0)`. A caller
that applies a suffix to a literal (`.0`, `[i]`, `.Length`) must add parentheses itself.

Limits: a number literal has at most `MAX_LITERAL_DIGITS` digits (Python converts at most 4,300 digits
between text and int, and the tool prints every value it reads), a real's quotient at most as many in its
numerator and denominator, and a literal nests at most `MAX_NESTING` brackets deep. Past them
`parse_value` raises `ValueParseError` saying so, like any other malformed literal.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TypeVar

from bot.dafny.lexer import LexError, Token, TokKind, tokenize
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
    TypeTooDeep,
    Unsupported,
    base_constructor,
    constructor,
    constructors,
    map_parts,
    parse_type,
)


@dataclass(frozen=True)
class IntV:
    v: int


@dataclass(frozen=True)
class BoolV:
    v: bool


@dataclass(frozen=True)
class CharV:
    v: str  # exactly one character


@dataclass(frozen=True)
class RealV:
    v: Fraction


@dataclass(frozen=True)
class BvV:
    width: int
    v: int  # 0 <= v < 2**width


@dataclass(frozen=True)
class SeqV:
    elems: tuple[Value, ...]


@dataclass(frozen=True)
class ArrayV:
    elems: tuple[Value, ...]


@dataclass(frozen=True)
class TupleV:
    elems: tuple[Value, ...]


@dataclass(frozen=True)
class SetV:
    """A finite set. Its elements are kept sorted (by `order_key`) and distinct, whatever order they were given in,
    so equal sets are equal values with the same text."""

    elems: tuple[Value, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "elems", tuple(sorted(set(self.elems), key=order_key)))


@dataclass(frozen=True)
class MultisetV:
    """A finite multiset: each distinct element once with its multiplicity (> 0), sorted by element."""

    counts: tuple[tuple[Value, int], ...]

    def __post_init__(self) -> None:
        total: dict[Value, int] = {}
        for e, n in self.counts:
            if n < 0:
                raise ValueError(f"negative multiplicity {n}")
            total[e] = total.get(e, 0) + n
        kept = [(e, n) for e, n in total.items() if n > 0]
        object.__setattr__(self, "counts", tuple(sorted(kept, key=lambda p: order_key(p[0]))))

    @staticmethod
    def of(elems: tuple[Value, ...]) -> MultisetV:
        """The multiset of these elements (repeats count)."""
        return MultisetV(tuple((e, 1) for e in elems))

    @property
    def elems(self) -> tuple[Value, ...]:
        """Every element as many times as it occurs, sorted."""
        return tuple(e for e, n in self.counts for _ in range(n))


@dataclass(frozen=True)
class MapV:
    """A finite map: (key, value) pairs sorted by key; a key given twice with two values is a ValueError."""

    items: tuple[tuple[Value, Value], ...]

    def __post_init__(self) -> None:
        seen: dict[Value, Value] = {}
        for k, v in self.items:
            if k in seen and seen[k] != v:
                raise ValueError(f"key {k!r} given two values")
            seen[k] = v
        object.__setattr__(self, "items", tuple(sorted(seen.items(), key=lambda p: order_key(p[0]))))


@dataclass(frozen=True)
class DatatypeV:
    """A datatype value: its datatype's and constructor's names and its fields' values, in declaration order."""

    datatype: str
    ctor: str
    fields: tuple[Value, ...]


Value = IntV | BoolV | CharV | RealV | BvV | SeqV | ArrayV | SetV | MultisetV | MapV | TupleV | DatatypeV


_OrderKey = tuple[object, ...]


def order_key(v: Value) -> _OrderKey:
    """A total order on the values of one type (ints by number, strings by characters, datatypes by constructor
    name, then fields): the order collections print their elements in. Keys of values of one type compare."""
    if isinstance(v, IntV | BoolV | CharV | RealV | BvV):
        return (type(v).__name__, v.v)
    if isinstance(v, SeqV | ArrayV | TupleV | SetV):
        return (type(v).__name__, tuple(order_key(e) for e in v.elems))
    if isinstance(v, MultisetV):
        return ("MultisetV", tuple((order_key(e), n) for e, n in v.counts))
    if isinstance(v, MapV):
        return ("MapV", tuple((order_key(k), order_key(x)) for k, x in v.items))
    return ("DatatypeV", v.datatype, v.ctor, tuple(order_key(f) for f in v.fields))


class ValueParseError(ValueError):
    """Literal text that is not a value of the wanted type; the message says what was expected."""


# Far beyond any test's numbers, and far below Python's 4,300-digit limit on int <-> str conversion, so
# that a value read here can always be printed, also after a mutant adds to it.
MAX_LITERAL_DIGITS = 1000
MAX_NESTING = 100  # brackets, parentheses and signs around one literal
LITERAL_TOO_LONG = "literal too long ({digits} digits; at most {limit})"
LITERAL_TOO_DEEP = "literal nested more than {limit} levels deep"
REAL_TOO_LARGE = "real literal too large (its quotient has {digits} digits; at most {limit})"


def parse_value(text: str, t: DafnyType) -> Value:
    """Parse Dafny literal text (e.g. `new int[] [1, 2]`, `"ab"`, `-3`, `[(1, 2)]`) as a value of type t."""
    if isinstance(t, Unsupported):
        raise ValueParseError(f"cannot build values of type {t}")
    try:
        toks = [tok for tok in tokenize(text) if tok.kind is not TokKind.COMMENT]
    except LexError as e:
        raise ValueParseError(f"expected {t} literal, found malformed text ({e.message})") from e
    p = _Parser(toks)
    try:
        v = p.value(t)
    except RecursionError as e:  # a backstop: MAX_NESTING stops far earlier
        raise ValueParseError(LITERAL_TOO_DEEP.format(limit=MAX_NESTING)) from e
    if p.k < len(toks):
        raise ValueParseError(f"expected end of {t} literal, found {_describe(toks[p.k])}")
    return v


def placeholder(t: DafnyType) -> Value:
    """Some value of type t (0, false, 'a', empty collections): where a value is needed but means nothing."""
    if isinstance(t, BoolT):
        return BoolV(False)
    if isinstance(t, CharT):
        return CharV("a")
    if isinstance(t, RealT):
        return RealV(Fraction(0))
    if isinstance(t, BvT):
        return BvV(t.width, 0)
    if isinstance(t, StringT | SeqT):
        return SeqV(())
    if isinstance(t, ArrayT):
        return ArrayV(())
    if isinstance(t, SetT):
        return SetV(())
    if isinstance(t, MultisetT):
        return MultisetV(())
    if isinstance(t, MapT):
        return MapV(())
    if isinstance(t, TupleT):
        return TupleV(tuple(placeholder(e) for e in t.elems))
    if isinstance(t, DatatypeT):
        c = base_constructor(t)
        return DatatypeV(t.name, c.name, tuple(placeholder(ft) for ft in c.types))
    return IntV(0)


def to_dafny(v: Value, t: DafnyType) -> str:
    """A Dafny expression denoting v at type t (arrays print as their sequence literal)."""
    return _print(v, t, for_humans=False)


def show(v: Value, t: DafnyType) -> str:
    """Human-readable text for reports: `to_dafny`, but printable non-ASCII characters stay as they are."""
    return _print(v, t, for_humans=True)


def type_check(v: Value, t: DafnyType) -> bool:
    """Whether v is a value of type t (an array's value may also be given as a `SeqV`)."""
    if isinstance(t, IntT):
        return isinstance(v, IntV)
    if isinstance(t, NatT):
        return isinstance(v, IntV) and v.v >= 0
    if isinstance(t, BoolT):
        return isinstance(v, BoolV)
    if isinstance(t, CharT):
        return isinstance(v, CharV) and len(v.v) == 1
    if isinstance(t, RealT):
        return isinstance(v, RealV)
    if isinstance(t, BvT):
        return isinstance(v, BvV) and v.width == t.width and _fits(v.v, t.width)
    if isinstance(t, StringT):
        return isinstance(v, SeqV) and all(type_check(e, CharT()) for e in v.elems)
    if isinstance(t, SeqT):
        return isinstance(v, SeqV) and all(type_check(e, t.elem) for e in v.elems)
    if isinstance(t, ArrayT):
        return isinstance(v, ArrayV | SeqV) and all(type_check(e, t.elem) for e in v.elems)
    if isinstance(t, SetT):
        return isinstance(v, SetV) and all(type_check(e, t.elem) for e in v.elems)
    if isinstance(t, MultisetT):
        return isinstance(v, MultisetV) and all(type_check(e, t.elem) for e, _ in v.counts)
    if isinstance(t, MapT):
        return isinstance(v, MapV) and all(type_check(k, t.key) and type_check(x, t.value) for k, x in v.items)
    if isinstance(t, TupleT):
        return (
            isinstance(v, TupleV)
            and len(v.elems) == len(t.elems)
            and all(type_check(e, et) for e, et in zip(v.elems, t.elems, strict=True))
        )
    if isinstance(t, DatatypeT):
        if not isinstance(v, DatatypeV) or v.datatype != t.name:
            return False
        c = constructor(t, v.ctor)
        return (
            c is not None
            and len(v.fields) == len(c.types)
            and all(type_check(f, ft) for f, ft in zip(v.fields, c.types, strict=True))
        )
    return False


def is_string_type(t: DafnyType) -> bool:
    """`string` and `seq<char>`: values print as string literals."""
    return isinstance(t, StringT) or (isinstance(t, SeqT) and isinstance(t.elem, CharT))


def element_type(t: DafnyType) -> DafnyType:
    """The element type of a string, seq or array type."""
    if isinstance(t, StringT):
        return CharT()
    if isinstance(t, SeqT | ArrayT):
        return t.elem
    raise ValueError(f"{t} has no elements")


# ---------------------------------------------------------------------------------------------------
# printing


def _print(v: Value, t: DafnyType, for_humans: bool) -> str:
    if isinstance(t, IntT | NatT):
        return str(_expect(v, IntV, t).v)
    if isinstance(t, BoolT):
        return "true" if _expect(v, BoolV, t).v else "false"
    if isinstance(t, CharT):
        return "'" + _escape(_expect(v, CharV, t).v, "'", for_humans) + "'"
    if isinstance(t, RealT):
        return _real_text(_expect(v, RealV, t).v)
    if isinstance(t, BvT):
        # a plain literal: Dafny gives it the bitvector type from the context
        return str(_expect(v, BvV, t).v)
    if isinstance(t, SeqT | StringT | ArrayT):
        if not isinstance(v, SeqV | ArrayV):
            raise ValueError(f"not a value of type {t}: {v!r}")
        elem = element_type(t)
        if is_string_type(t) and not isinstance(t, ArrayT):
            chars = [_expect(e, CharV, elem).v for e in v.elems]
            return '"' + "".join(_escape(c, '"', for_humans) for c in chars) + '"'
        return "[" + ", ".join(_print(e, elem, for_humans) for e in v.elems) + "]"
    # collections print their elements in `order_key` order: the same value, the same text
    if isinstance(t, SetT):
        return "{" + ", ".join(_print(e, t.elem, for_humans) for e in _expect(v, SetV, t).elems) + "}"
    if isinstance(t, MultisetT):
        return "multiset{" + ", ".join(_print(e, t.elem, for_humans) for e in _expect(v, MultisetV, t).elems) + "}"
    if isinstance(t, MapT):
        items = _expect(v, MapV, t).items
        pairs = [f"{_print(k, t.key, for_humans)} := {_print(x, t.value, for_humans)}" for k, x in items]
        return "map[" + ", ".join(pairs) + "]"
    if isinstance(t, TupleT):
        tv = _expect(v, TupleV, t)
        if len(tv.elems) != len(t.elems):
            raise ValueError(f"not a value of type {t}: {v!r}")
        parts = [_print(e, et, for_humans) for e, et in zip(tv.elems, t.elems, strict=True)]
        return "(" + ", ".join(parts) + ")"
    if isinstance(t, DatatypeT):
        dv = _expect(v, DatatypeV, t)
        c = constructor(t, dv.ctor)
        if c is None or dv.datatype != t.name or len(c.types) != len(dv.fields):
            raise ValueError(f"not a value of type {t}: {v!r}")
        # qualified for the verifier: another datatype in scope may have a constructor of the same name
        head = c.name if for_humans else f"{t.name}.{c.name}"
        if not c.types:
            return head
        return head + "(" + ", ".join(_print(f, ft, for_humans) for f, ft in zip(dv.fields, c.types, strict=True)) + ")"
    raise ValueError(f"cannot print values of type {t}")


_V = TypeVar("_V", IntV, BoolV, CharV, RealV, BvV, SetV, MultisetV, MapV, TupleV, DatatypeV)


def _expect(v: Value, cls: type[_V], t: DafnyType) -> _V:
    if not isinstance(v, cls):
        raise ValueError(f"not a value of type {t}: {v!r}")
    return v


_SIMPLE_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\0": "\\0", "\\": "\\\\"}


def _escape(c: str, quote: str, for_humans: bool) -> str:
    if c == quote:
        return "\\" + c
    if c in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[c]
    code = ord(c)
    if 0x20 <= code < 0x7F:
        return c
    if for_humans and c.isprintable():
        return c
    # Dafny 2.3 rejects non-ASCII characters in char literals; \u works in every dialect
    if code <= 0xFFFF:
        return f"\\u{code:04X}"
    return f"\\U{{{code:X}}}"  # only Dafny 4's unicode-char mode has characters beyond the BMP


def _real_text(f: Fraction) -> str:
    den = f.denominator
    twos = fives = 0
    while den % 2 == 0:
        den //= 2
        twos += 1
    while den % 5 == 0:
        den //= 5
        fives += 1
    if den == 1:
        digits = max(twos, fives, 1)
        scaled = abs(f.numerator) * 10**digits // f.denominator
        whole, frac = divmod(scaled, 10**digits)
        frac_text = str(frac).rjust(digits, "0").rstrip("0") or "0"
        return f"{'-' if f < 0 else ''}{whole}.{frac_text}"
    return f"({f.numerator}.0 / {f.denominator}.0)"


# ---------------------------------------------------------------------------------------------------
# parsing


def _fits(n: int, width: int) -> bool:
    """0 <= n < 2**width, without computing 2**width (a type may say `bv99999999999`)."""
    return n >= 0 and n.bit_length() <= width


_SHOWN = 40  # characters of a token quoted in a message


def _clip(text: str) -> str:
    return text if len(text) <= _SHOWN else f"{text[: _SHOWN - 3]}... ({len(text)} characters)"


def _describe(tok: Token | None) -> str:
    if tok is None:
        return "end of text"
    if tok.kind is TokKind.IDENT:
        if tok.text in ("true", "false"):
            return f"bool '{tok.text}'"
        return f"identifier '{_clip(tok.text)}'"
    if tok.kind is TokKind.NUMBER:
        return f"number '{_clip(tok.text)}'"
    if tok.kind is TokKind.STRING:
        return f"string {_clip(tok.text)}"
    if tok.kind is TokKind.CHAR:
        return f"char {_clip(tok.text)}"
    return f"'{tok.text}'"


def _number(text: str) -> int | Fraction:
    """The value of a NUMBER token: an int, or a Fraction for a decimal literal. Raises ValueParseError
    for a literal of more than MAX_LITERAL_DIGITS digits and for `0x` without digits."""
    clean = text.replace("_", "")
    hex_digits = clean[2:] if clean[:2] in ("0x", "0X") else None
    digits = len(hex_digits) if hex_digits is not None else len(clean.replace(".", ""))
    if digits > MAX_LITERAL_DIGITS:
        raise ValueParseError(LITERAL_TOO_LONG.format(digits=digits, limit=MAX_LITERAL_DIGITS))
    try:
        if hex_digits is not None:
            return int(hex_digits, 16)
        if "." in clean:
            return Fraction(clean)
        return int(clean)
    except ValueError as e:  # `0x` without digits
        raise ValueParseError(f"malformed number '{_clip(text)}'") from e


def _check_real(r: Fraction) -> Fraction:
    """r, unless its numerator or denominator has too many digits to be printed (see MAX_LITERAL_DIGITS)."""
    # 0.302 decimal digits per bit: an estimate that is never below the true count by more than one
    digits = max(abs(r.numerator).bit_length(), r.denominator.bit_length()) * 302 // 1000 + 1
    if digits > 2 * MAX_LITERAL_DIGITS:
        raise ValueParseError(REAL_TOO_LARGE.format(digits=digits, limit=2 * MAX_LITERAL_DIGITS))
    return r


_ESCAPES = {"'": "'", '"': '"', "\\": "\\", "0": "\0", "n": "\n", "r": "\r", "t": "\t"}
_HEX = frozenset("0123456789abcdefABCDEF")


def _unescape(body: str, what: str) -> str:
    """The characters of a (non-verbatim) char or string literal body."""
    out: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        nxt = body[i + 1 : i + 2]
        if nxt in _ESCAPES and nxt:
            out.append(_ESCAPES[nxt])
            i += 2
        elif nxt == "u" and len(body) >= i + 6 and all(h in _HEX for h in body[i + 2 : i + 6]):
            out.append(chr(int(body[i + 2 : i + 6], 16)))
            i += 6
        elif nxt == "U" and body[i + 2 : i + 3] == "{" and "}" in body[i + 3 :]:
            end = body.index("}", i + 3)
            digits = body[i + 3 : end]
            if not digits or not all(h in _HEX for h in digits) or int(digits, 16) > 0x10FFFF:
                raise ValueParseError(f"expected {what}, found bad escape '\\U{{{digits}}}'")
            out.append(chr(int(digits, 16)))
            i = end + 1
        else:
            raise ValueParseError(f"expected {what}, found bad escape '\\{nxt}'")
    return "".join(out)


def _string_chars(tok: Token) -> str:
    if tok.text.startswith("@"):
        return tok.text[2:-1].replace('""', '"')
    return _unescape(tok.text[1:-1], "string literal")


def _normal(t: DafnyType) -> DafnyType:
    """t with `string` spelled `seq<char>` and `nat` as `int`: for comparing `new T[]` types."""
    if isinstance(t, StringT):
        return SeqT(CharT())
    if isinstance(t, NatT):
        return IntT()
    return map_parts(t, _normal)


class _Parser:
    def __init__(self, toks: list[Token]) -> None:
        self.toks = toks
        self.k = 0
        self.depth = 0  # brackets, parentheses and signs open around the current position

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise ValueParseError(LITERAL_TOO_DEEP.format(limit=MAX_NESTING))

    # -- token helpers

    def peek(self, ahead: int = 0) -> Token | None:
        k = self.k + ahead
        return self.toks[k] if k < len(self.toks) else None

    def at(self, text: str, ahead: int = 0) -> bool:
        tok = self.peek(ahead)
        return tok is not None and tok.kind is TokKind.OP and tok.text == text

    def fail(self, expected: str) -> ValueParseError:
        return ValueParseError(f"expected {expected}, found {_describe(self.peek())}")

    def expect_op(self, text: str, context: str) -> None:
        if not self.at(text):
            raise self.fail(f"'{text}' in {context}")
        self.k += 1

    # -- values

    def value(self, t: DafnyType) -> Value:
        self.enter()
        try:
            return self._value(t)
        finally:
            self.depth -= 1

    def _value(self, t: DafnyType) -> Value:
        if isinstance(t, TupleT):
            return self.tuple_value(t)
        if isinstance(t, DatatypeT) and not self.at("("):
            return self.datatype_value(t)
        if isinstance(t, RealT):
            return RealV(self.real_expr(t))
        if self.at("("):
            # extra parentheses around any literal
            self.k += 1
            v = self.value(t)
            self.expect_op(")", f"{t} literal")
            return v
        if isinstance(t, IntT | NatT):
            n = self.int_literal(t)
            if isinstance(t, NatT) and n < 0:
                raise ValueParseError(f"expected nat literal, found negative number {n}")
            return IntV(n)
        if isinstance(t, BvT):
            start = self.peek()
            n = self.int_literal(t)
            if not _fits(n, t.width):
                where = f" '{_clip(start.text)}'" if start is not None and n >= 0 else f" {_clip(str(n))}"
                raise ValueParseError(f"expected {t} literal, found out-of-range number{where}")
            return BvV(t.width, n)
        if isinstance(t, BoolT):
            tok = self.peek()
            if tok is None or tok.kind is not TokKind.IDENT or tok.text not in ("true", "false"):
                raise self.fail("bool literal")
            self.k += 1
            return BoolV(tok.text == "true")
        if isinstance(t, CharT):
            tok = self.peek()
            if tok is None or tok.kind is not TokKind.CHAR:
                raise self.fail("char literal")
            chars = _unescape(tok.text[1:-1], "char literal")
            if len(chars) != 1:
                raise ValueParseError(f"expected char literal, found {_describe(tok)}")
            self.k += 1
            return CharV(chars)
        if isinstance(t, StringT | SeqT):
            return SeqV(self.elements(t))
        if isinstance(t, ArrayT):
            return ArrayV(self.array_elements(t))
        if isinstance(t, SetT):
            return SetV(self.braced(t.elem, t))
        if isinstance(t, MultisetT):
            return self.multiset_value(t)
        if isinstance(t, MapT):
            return self.map_value(t)
        raise ValueParseError(f"cannot build values of type {t}")

    def int_literal(self, t: DafnyType) -> int:
        """An int literal with optional unary minus and parentheses."""
        self.enter()
        try:
            return self._int_literal(t)
        finally:
            self.depth -= 1

    def _int_literal(self, t: DafnyType) -> int:
        if self.at("-"):
            self.k += 1
            return -self.int_literal(t)
        if self.at("("):
            self.k += 1
            n = self.int_literal(t)
            self.expect_op(")", f"{t} literal")
            return n
        tok = self.peek()
        if tok is None or tok.kind is not TokKind.NUMBER:
            raise self.fail(f"{t} literal")
        num = _number(tok.text)
        if not isinstance(num, int):
            raise ValueParseError(f"expected {t} literal, found real number '{_clip(tok.text)}'")
        self.k += 1
        return num

    def real_expr(self, t: DafnyType) -> Fraction:
        """A real literal, or a quotient of real literals (`1.0 / 3.0`); int literals are accepted."""
        r = self.real_unary(t)
        while self.at("/"):
            self.k += 1
            d = self.real_unary(t)
            if d == 0:
                raise ValueParseError(f"expected {t} literal, found division by zero")
            r = _check_real(r / d)
        return r

    def real_unary(self, t: DafnyType) -> Fraction:
        self.enter()
        try:
            return self._real_unary(t)
        finally:
            self.depth -= 1

    def _real_unary(self, t: DafnyType) -> Fraction:
        if self.at("-"):
            self.k += 1
            return -self.real_unary(t)
        if self.at("("):
            self.k += 1
            r = self.real_expr(t)
            self.expect_op(")", f"{t} literal")
            return r
        tok = self.peek()
        if tok is None or tok.kind is not TokKind.NUMBER:
            raise self.fail(f"{t} literal")
        self.k += 1
        # `5 as real` is how Dafny converts an int literal
        if self.peek_ident("as") and self.peek_ident("real", 1):
            self.k += 2
        return Fraction(_number(tok.text))

    def peek_ident(self, text: str, ahead: int = 0) -> bool:
        tok = self.peek(ahead)
        return tok is not None and tok.kind is TokKind.IDENT and tok.text == text

    def elements(self, t: StringT | SeqT | ArrayT) -> tuple[Value, ...]:
        """A seq display `[a, b]`, or a string literal for sequences of chars."""
        elem = element_type(t)
        tok = self.peek()
        if tok is not None and tok.kind is TokKind.STRING:
            if not isinstance(elem, CharT):
                raise self.fail(f"{t} literal")
            self.k += 1
            return tuple(CharV(c) for c in _string_chars(tok))
        return self.display("[", "]", elem, t)

    def braced(self, elem: DafnyType, t: DafnyType) -> tuple[Value, ...]:
        """A set display `{a, b}` (its elements as written, repeats kept)."""
        return self.display("{", "}", elem, t)

    def display(self, opening: str, closing: str, elem: DafnyType, t: DafnyType) -> tuple[Value, ...]:
        """The elements of a display between `opening` and `closing`, separated by commas, as written."""
        if not self.at(opening):
            raise self.fail(f"{t} literal")
        self.k += 1
        out: list[Value] = []
        if self.at(closing):
            self.k += 1
            return ()
        while True:
            out.append(self.value(elem))
            if self.at(","):
                self.k += 1
                continue
            if self.at(closing):
                self.k += 1
                return tuple(out)
            raise self.fail(f"',' or '{closing}' in {t} literal")

    def multiset_value(self, t: MultisetT) -> MultisetV:
        """`multiset{a, a, b}`, or the multiset of a sequence or set display: `multiset([a, a])`, `multiset({a})`."""
        if not self.peek_ident("multiset"):
            raise self.fail(f"{t} literal")
        self.k += 1
        if self.at("{"):
            return MultisetV.of(self.braced(t.elem, t))
        self.expect_op("(", f"{t} literal")
        self.enter()
        try:
            if self.at("{"):
                elems = SetV(self.braced(t.elem, t)).elems  # a set: each element once
            else:
                elems = self.elements(SeqT(t.elem))
        finally:
            self.depth -= 1
        self.expect_op(")", f"{t} literal")
        return MultisetV.of(elems)

    def map_value(self, t: MapT) -> MapV:
        """`map[k := v, ...]`; a key given twice must have one value."""
        if not (self.peek_ident("map") and self.at("[", 1)):
            raise self.fail(f"{t} literal")
        self.k += 2
        pairs: list[tuple[Value, Value]] = []
        while not self.at("]"):
            key = self.value(t.key)
            self.expect_op(":=", f"{t} literal")
            pairs.append((key, self.value(t.value)))
            if not self.at(","):
                break
            self.k += 1
            if self.at("]"):
                raise self.fail(f"a key after ',' in {t} literal")
        self.expect_op("]", f"{t} literal")
        try:
            return MapV(tuple(pairs))
        except ValueError as e:
            raise ValueParseError(f"{t} literal gives a key two values") from e

    def array_elements(self, t: ArrayT) -> tuple[Value, ...]:
        """`new T[] [..]`, `new T[n] [..]`, `new T[0]`, or (as tests write expected arrays) a seq display."""
        if not self.peek_ident("new"):
            tok = self.peek()
            if self.at("[") or (tok is not None and tok.kind is TokKind.STRING):
                return self.elements(t)
            raise self.fail(f"{t} literal")
        self.k += 1
        start = self.k
        depth = 0
        while True:
            tok = self.peek()
            if tok is None:
                raise self.fail(f"'[' after the element type in {t} literal")
            if tok.kind is TokKind.OP and tok.text == "[" and depth <= 0:
                break
            if tok.kind is TokKind.OP:
                depth += tok.text.count("<") - tok.text.count(">")
            self.k += 1
        type_text = " ".join(x.text for x in self.toks[start : self.k])
        try:
            given = parse_type(type_text)
        except TypeTooDeep as e:
            raise ValueParseError(f"{t} literal: element {e}") from e
        if not type_text or _normal(given) != _normal(t.elem):
            raise ValueParseError(f"expected {t} literal, found 'new {type_text}[...]'")
        self.k += 1
        size: int | None = None
        if not self.at("]"):
            size = self.int_literal(IntT())
        self.expect_op("]", f"{t} literal")
        if not self.at("["):
            if size == 0:
                return ()
            raise self.fail(f"the initial elements of {t} literal")
        elems = self.elements(SeqT(t.elem))
        if size is not None and size != len(elems):
            raise ValueParseError(f"expected {size} elements in {t} literal, found {len(elems)}")
        return elems

    def tuple_value(self, t: TupleT) -> TupleV:
        if not self.at("("):
            raise self.fail(f"{t} literal")
        start = self.k
        try:
            self.k += 1
            out: list[Value] = []
            for i, et in enumerate(t.elems):
                out.append(self.value(et))
                if i + 1 < len(t.elems):
                    self.expect_op(",", f"{t} literal")
            self.expect_op(")", f"{t} literal")
            return TupleV(tuple(out))
        except ValueParseError as first:
            # perhaps extra parentheses around the tuple: `((1, 2))`
            self.k = start + 1
            if not self.at("("):
                raise first from None
            try:
                v = self.value(t)  # counts towards MAX_NESTING like any other parenthesis
                self.expect_op(")", f"{t} literal")
            except ValueParseError:
                raise first from None
            assert isinstance(v, TupleV)  # value() of a tuple type is tuple_value()
            return v

    def datatype_value(self, t: DatatypeT) -> DatatypeV:
        """`Ctor`, `Ctor(a, b)`, `Ctor(f := a)` (Dafny 4), optionally qualified: `Option.None`, `Option<int>.None`."""
        tok = self.peek()
        qualified = self.at(".", 1) or self.at("<", 1)
        if tok is not None and tok.kind is TokKind.IDENT and tok.text == t.name and qualified:
            self.k += 1
            if self.at("<"):
                self.skip_type_arguments(t)
            self.expect_op(".", f"{t} literal")
            tok = self.peek()
        elif tok is not None and tok.kind is TokKind.IDENT and tok.text in t.scope.shadowed:
            # Dafny reads the bare name as the other declaration (a function, a constant ...), not the constructor
            raise ValueParseError(f"`{_clip(tok.text)}` names a constructor of {t.name} and another declaration: "
                                  f"write `{t.name}.{_clip(tok.text)}` for the constructor")
        if tok is None or tok.kind is not TokKind.IDENT:
            raise self.fail(f"{t} literal")
        c = constructor(t, tok.text)
        if c is None:
            names = ", ".join(x.name for x in constructors(t))
            raise ValueParseError(f"expected {t} literal (a constructor: {names}), found {_describe(tok)}")
        self.k += 1
        if not self.at("("):
            if c.types:
                raise self.fail(f"'(' after {c.name} in {t} literal")
            return DatatypeV(t.name, c.name, ())
        self.k += 1
        given: dict[int, Value] = {}
        position = 0
        while not self.at(")") and (c.types or given):
            name = self.peek()
            if name is not None and name.kind in (TokKind.IDENT, TokKind.NUMBER) and self.at(":=", 1):
                if name.text not in c.names or not name.text:
                    raise ValueParseError(f"expected a field of {c.name} in {t} literal, found '{_clip(name.text)}'")
                i = c.names.index(name.text)
                self.k += 2
            else:
                i = position
            if i >= len(c.types) or i in given:
                raise ValueParseError(f"expected {len(c.types)} field(s) in {c.name} of {t} literal")
            given[i] = self.value(c.types[i])
            position = i + 1
            if not self.at(","):
                break
            self.k += 1
            if self.at(")"):
                raise self.fail(f"a field after ',' in {c.name} of {t} literal")
        self.expect_op(")", f"{t} literal")
        if len(given) != len(c.types):
            raise ValueParseError(f"expected {len(c.types)} field(s) in {c.name} of {t} literal, found {len(given)}")
        return DatatypeV(t.name, c.name, tuple(given[i] for i in range(len(c.types))))

    def skip_type_arguments(self, t: DatatypeT) -> None:
        depth = 0
        while True:
            tok = self.peek()
            if tok is None:
                raise self.fail(f"'>' in {t} literal")
            if tok.kind is TokKind.OP:
                depth += tok.text.count("<") - tok.text.count(">")
            self.k += 1
            if depth < 0:
                raise ValueParseError(f"expected {t} literal, found unbalanced '>'")
            if depth == 0:
                return
