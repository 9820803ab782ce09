"""Dafny expressions: a parser over the project's lexer into a small frozen AST, and a printer.

Pure code. It covers what specifications use: literals, names, unary and binary operators with
Dafny's precedence (chained comparisons included), `if`/`var` expressions, calls, `.Length`,
`.Floor`, tuple selection, indexing, slices, sequence updates, `|e|`, `old`, `multiset`, displays,
tuples, `as` conversions, quantifiers and set comprehensions. Anything else (maps, lambdas, `match`,
`:|`, datatypes, generic calls...) raises ExprError naming what was found, so a caller skips the
clause instead of guessing. Nesting is bounded so a huge input raises ExprError, never RecursionError.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, fields, replace
from fractions import Fraction
from functools import partial
from typing import TypeVar

from bot.dafny.lexer import LexError, Token, TokKind, matching_close, significant, tokenize
from bot.dafny.types import CharT, StringT
from bot.dafny.values import BoolV, IntV, RealV, Value, ValueParseError, parse_value

MAX_NESTING = 32  # brackets/binders/prefix operators inside each other (each costs ~12 Python frames)
MAX_DEPTH = 150  # AST depth (long left-assoc chains such as a + b + c + ...); printers and evaluators recurse on it


class ExprError(ValueError):
    """Text that is not an expression this parser supports; the message says what and where."""


# -- AST ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Lit:
    value: Value
    text: str  # as written (`0x1F`, `"ab"`, `'c'`, `1.5`)


@dataclass(frozen=True)
class Name:
    name: str


@dataclass(frozen=True)
class Unary:
    op: str  # "!" | "-"
    operand: Expr


@dataclass(frozen=True)
class Binary:
    op: str  # <==> ==> <== && || == != < <= > >= in !in !! << >> + - * / % & | ^
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Chain:
    """`a <= b < c`: two or more comparisons, meaning their conjunction (each operand evaluated once)."""

    ops: tuple[str, ...]
    operands: tuple[Expr, ...]


@dataclass(frozen=True)
class Ite:
    cond: Expr
    then: Expr
    els: Expr


@dataclass(frozen=True)
class Let:
    names: tuple[str, ...]
    values: tuple[Expr, ...]
    body: Expr
    types: tuple[str | None, ...] = ()  # each name's type as written (`var n: int := ..`), None or none: inferred


@dataclass(frozen=True)
class LetSuch:
    """`var x :| cond; body`: body with x some value satisfying cond (which one is Dafny's choice)."""

    var: BoundVar
    cond: Expr
    body: Expr


@dataclass(frozen=True)
class Call:
    name: str
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class Member:
    obj: Expr
    name: str  # "Length", "Floor", "0", "1", ...


@dataclass(frozen=True)
class Index:
    seq: Expr
    index: Expr


@dataclass(frozen=True)
class Slice:
    seq: Expr
    lo: Expr | None
    hi: Expr | None


@dataclass(frozen=True)
class Update:
    seq: Expr
    index: Expr
    value: Expr


@dataclass(frozen=True)
class Card:
    operand: Expr


@dataclass(frozen=True)
class Old:
    operand: Expr


@dataclass(frozen=True)
class MultisetOf:
    operand: Expr


@dataclass(frozen=True)
class Display:
    kind: str  # "seq" | "set" | "multiset"
    elems: tuple[Expr, ...]


@dataclass(frozen=True)
class TupleE:
    elems: tuple[Expr, ...]


@dataclass(frozen=True)
class As:
    operand: Expr
    type_text: str


@dataclass(frozen=True)
class BoundVar:
    name: str
    type_text: str | None


@dataclass(frozen=True)
class Quant:
    kind: str  # "forall" | "exists"
    vars: tuple[BoundVar, ...]
    range: Expr | None
    body: Expr


@dataclass(frozen=True)
class SetComp:
    vars: tuple[BoundVar, ...]
    range: Expr
    term: Expr | None


Expr = (
    Lit | Name | Unary | Binary | Chain | Ite | Let | LetSuch | Call | Member | Index | Slice | Update | Card | Old
    | MultisetOf | Display | TupleE | As | Quant | SetComp
)
_EXPR_TYPES = (
    Lit, Name, Unary, Binary, Chain, Ite, Let, LetSuch, Call, Member, Index, Slice, Update, Card, Old, MultisetOf,
    Display, TupleE, As, Quant, SetComp,
)


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}  # per node class (`fields` is slow, and asked for every node walked)


def _field_names(e: Expr) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(type(e))
    if names is None:
        names = _FIELD_NAMES[type(e)] = tuple(f.name for f in fields(e))
    return names


def children(e: Expr) -> list[Expr]:
    """The direct subexpressions of e, in source order."""
    out: list[Expr] = []
    for name in _field_names(e):
        x = getattr(e, name)
        if isinstance(x, _EXPR_TYPES):
            out.append(x)
        elif isinstance(x, tuple):
            out += [y for y in x if isinstance(y, _EXPR_TYPES)]
    return out


def map_children(e: Expr, f: Callable[[Expr], Expr]) -> Expr:
    """e with `f` applied to each of its direct subexpressions (the rest of it as it is)."""
    changes: dict[str, object] = {}
    for name in _field_names(e):
        x = getattr(e, name)
        if isinstance(x, _EXPR_TYPES):
            changes[name] = f(x)
        elif isinstance(x, tuple) and any(isinstance(y, _EXPR_TYPES) for y in x):
            changes[name] = tuple(f(y) if isinstance(y, _EXPR_TYPES) else y for y in x)
    return replace(e, **changes) if changes else e  # type: ignore[arg-type]  # each a field of its own class


def bound_names(e: Expr) -> tuple[str, ...]:
    """Names e binds for (some of) its children: quantifier, comprehension and let variables."""
    if isinstance(e, Quant | SetComp):
        return tuple(v.name for v in e.vars)
    if isinstance(e, Let):
        return e.names
    if isinstance(e, LetSuch):
        return (e.var.name,)
    return ()


def conjuncts(e: Expr | None) -> list[Expr]:
    """The operands of e's top-level `&&`s, left to right (none for None)."""
    if e is None:
        return []
    if isinstance(e, Binary) and e.op == "&&":
        return conjuncts(e.left) + conjuncts(e.right)
    return [e]


def free_vars(e: Expr, memo: dict[int, tuple[Expr, frozenset[str]]] | None = None) -> frozenset[str]:
    """Names used in e and not bound inside it (function names of calls are not variables). `memo`: each subterm's,
    by id with the node kept (so no id is reused while it is there), for a caller that asks of every node of a tree."""
    if memo is not None:
        hit = memo.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
    if isinstance(e, Name):
        found = frozenset({e.name})
    elif isinstance(e, Let):
        found = (free_vars(e.body, memo) - frozenset(e.names)).union(*(free_vars(v, memo) for v in e.values))
    else:
        found = frozenset[str]().union(*(free_vars(c, memo) for c in children(e))) - frozenset(bound_names(e))
    if memo is not None:
        memo[id(e)] = (e, found)
    return found


def subterms(e: Expr) -> Iterator[Expr]:
    """e and every expression inside it, without recursion."""
    todo = [e]
    while todo:
        x = todo.pop()
        yield x
        todo += children(x)


def depth(e: Expr) -> int:
    """The AST depth of e, computed without recursion."""
    best = 0
    stack = [(e, 1)]
    while stack:
        node, d = stack.pop()
        best = max(best, d)
        stack += [(c, d + 1) for c in children(node)]
    return best


# -- parser ------------------------------------------------------------------------------------------

_LOGICAL, _REL, _SHIFT, _ADD, _MUL, _BIT = 3, 4, 5, 6, 7, 8
_BINARY_PREC = {"&&": _LOGICAL, "||": _LOGICAL, "<<": _SHIFT, ">>": _SHIFT, "+": _ADD, "-": _ADD,
                "*": _MUL, "/": _MUL, "%": _MUL, "&": _BIT, "|": _BIT, "^": _BIT}
_REL_OPS = frozenset({"==", "!=", "<", "<=", ">", ">=", "!in", "!!"})
# words that start a construct this parser does not support, with what to say about it
_UNSUPPORTED_WORDS = {
    "map": "map displays and comprehensions", "imap": "imap", "iset": "iset", "match": "match expressions",
    "seq": "seq(n, f) constructions",
    "assert": "assert expressions", "assume": "assume expressions", "calc": "calc", "reveal": "reveal",
    "expect": "expect", "new": "new",
}
_T = TypeVar("_T")


def parse_expr(text: str) -> Expr:
    """The AST of one Dafny expression; raises ExprError for unsupported or malformed text."""
    try:
        p = _Parser(text)
        e = p.expression()
        if p.k < len(p.toks):
            raise p.error("end of expression")
    except RecursionError as err:  # a backstop: MAX_NESTING normally stops far earlier
        raise ExprError("expression nested too deeply") from err
    if depth(e) > MAX_DEPTH:
        raise ExprError(f"expression nested more than {MAX_DEPTH} levels deep")
    return e


class _Parser:
    def __init__(self, text: str) -> None:
        try:
            self.toks = significant(tokenize(text))
        except LexError as e:
            raise ExprError(f"cannot read the expression: {e}") from e
        self.src = text
        self.k = 0
        self.nesting = 0
        self.bar_is_or = True  # `|` is bitwise-or, except inside `|...|` where it closes the cardinality

    # -- tokens

    def peek(self, ahead: int = 0) -> Token | None:
        k = self.k + ahead
        return self.toks[k] if k < len(self.toks) else None

    def at(self, text: str, ahead: int = 0) -> bool:
        t = self.peek(ahead)
        return t is not None and t.kind is TokKind.OP and t.text == text

    def at_word(self, text: str, ahead: int = 0) -> bool:
        t = self.peek(ahead)
        return t is not None and t.kind is TokKind.IDENT and t.text == text

    def error(self, expected: str) -> ExprError:
        t = self.peek()
        if t is None:
            return ExprError(f"expected {expected}, found the end of the expression")
        return ExprError(f"expected {expected}, found '{t.text}' at column {t.col}")

    def expect(self, text: str) -> None:
        if not self.at(text):
            raise self.error(f"'{text}'")
        self.k += 1

    def ident(self) -> str:
        t = self.peek()
        if t is None or t.kind is not TokKind.IDENT:
            raise self.error("a name")
        self.k += 1
        return t.text

    def nested(self, parse: Callable[[], _T], bar_is_or: bool | None = None) -> _T:
        """Run a sub-parse one nesting level deeper (bounded, so Python's stack never overflows).
        Brackets make `|` bitwise-or again (bar_is_or=True); binders inherit the current meaning."""
        self.nesting += 1
        if self.nesting > MAX_NESTING:
            raise ExprError(f"expression nested more than {MAX_NESTING} levels deep")
        saved = self.bar_is_or
        self.bar_is_or = saved if bar_is_or is None else bar_is_or
        try:
            return parse()
        finally:
            self.bar_is_or = saved
            self.nesting -= 1

    # -- expressions, weakest first

    def expression(self) -> Expr:
        e = self.implies()
        while self.at("<==>"):
            self.k += 1
            e = Binary("<==>", e, self.implies())
        return e

    def implies(self) -> Expr:
        e = self.binary(_LOGICAL)
        if self.at("==>"):  # right-associative: collect, then fold from the right
            parts = [e]
            while self.at("==>"):
                self.k += 1
                parts.append(self.binary(_LOGICAL))
            e = parts[-1]
            for left in reversed(parts[:-1]):
                e = Binary("==>", left, e)
        while self.at("<=="):
            self.k += 1
            e = Binary("<==", e, self.binary(_LOGICAL))
        return e

    def binary_op(self) -> str | None:
        t = self.peek()
        if t is None:
            return None
        if t.kind is TokKind.IDENT:
            return "in" if t.text == "in" else None
        if t.kind is not TokKind.OP:
            return None
        if t.text in _REL_OPS:
            return t.text
        if t.text == "|" and not self.bar_is_or:
            return None
        return t.text if t.text in _BINARY_PREC else None

    def binary(self, min_prec: int) -> Expr:
        """Precedence climbing over the levels from `&&`/`||` to the bitwise operators."""
        left = self.as_expr()
        while True:
            op = self.binary_op()
            if op is None:
                return left
            prec = _REL if op in _REL_OPS or op == "in" else _BINARY_PREC[op]
            if prec < min_prec:
                return left
            if prec == _REL:
                ops, operands = [], [left]
                while (rel := self.binary_op()) is not None and (rel in _REL_OPS or rel == "in"):
                    self.k += 1
                    ops.append(rel)
                    operands.append(self.binary(_REL + 1))
                left = Binary(ops[0], operands[0], operands[1]) if len(ops) == 1 else Chain(tuple(ops), tuple(operands))
                continue
            self.k += 1
            left = Binary(op, left, self.binary(prec + 1))

    def as_expr(self) -> Expr:
        e = self.unary()
        while self.at_word("as") or self.at_word("is"):
            if self.at_word("is"):
                raise ExprError("`is` type tests are not supported")
            self.k += 1
            e = As(e, self.type_text())
        return e

    def unary(self) -> Expr:
        if self.at("!") or self.at("-"):
            op = self.toks[self.k].text
            self.k += 1
            return Unary(op, self.nested(self.unary))
        if self.at("!!"):  # the lexer reads `!!x` as the disjointness operator
            self.k += 1
            return Unary("!", Unary("!", self.nested(self.unary)))
        return self.suffixes(self.primary())

    def suffixes(self, e: Expr) -> Expr:
        while True:
            if self.at("."):
                t = self.peek(1)
                if t is None or t.kind not in (TokKind.IDENT, TokKind.NUMBER):
                    raise self.error("a member name after '.'")
                self.k += 2
                if self.at("(") and isinstance(e, Name) and t.kind is TokKind.IDENT:
                    # `Option.Some(3)`, `M.F(x)`: a qualified call (whoever evaluates it resolves the name)
                    self.k += 1
                    e = Call(f"{e.name}.{t.text}", self.nested(lambda: self.items(")"), bar_is_or=True))
                    continue
                for part in t.text.split("."):  # `t.0.1` lexes as `t` `.` `0.1`
                    e = Member(e, part)
                if self.at("("):
                    raise ExprError(f"calls of members (`.{t.text}(...)`) are not supported")
            elif self.at("["):
                self.k += 1
                e = self.nested(partial(self.selection, e), bar_is_or=True)
            else:
                return e

    def selection(self, obj: Expr) -> Expr:
        """After `[`: an index, slice or update, through the closing `]`."""
        if self.at(".."):
            self.k += 1
            hi = None if self.at("]") else self.expression()
            self.expect("]")
            return Slice(obj, None, hi)
        first = self.expression()
        if self.at(":="):
            self.k += 1
            value = self.expression()
            self.expect("]")
            return Update(obj, first, value)
        if self.at(".."):
            self.k += 1
            hi = None if self.at("]") else self.expression()
            self.expect("]")
            return Slice(obj, first, hi)
        if self.at(",") or self.at(":"):
            raise ExprError("multi-dimensional indexing and slices with ':' are not supported")
        self.expect("]")
        return Index(obj, first)

    def primary(self) -> Expr:
        t = self.peek()
        if t is None:
            raise self.error("an expression")
        if t.kind is TokKind.NUMBER:
            self.k += 1
            clean = t.text.replace("_", "")
            try:
                if clean[:2] in ("0x", "0X"):
                    return Lit(IntV(int(clean[2:], 16)), t.text)
                if "." in clean:
                    return Lit(RealV(Fraction(clean)), t.text)
                return Lit(IntV(int(clean)), t.text)
            except ValueError as e:  # `0x` without digits; more than 4300 digits
                raise ExprError(f"bad number '{t.text}' at column {t.col}") from e
        if t.kind in (TokKind.STRING, TokKind.CHAR):
            self.k += 1
            try:
                return Lit(parse_value(t.text, StringT() if t.kind is TokKind.STRING else CharT()), t.text)
            except ValueParseError as e:
                raise ExprError(f"bad literal {t.text}: {e}") from e
        if t.kind is TokKind.OP:
            return self.bracketed(t)
        word = t.text
        if word in ("true", "false"):
            self.k += 1
            return Lit(BoolV(word == "true"), word)
        if word in ("forall", "exists"):
            self.k += 1
            return self.nested(lambda: self.quantifier(word))
        if word == "set" and self.peek(1) is not None and self.toks[self.k + 1].kind is TokKind.IDENT:
            self.k += 1
            return self.nested(self.comprehension)
        if word == "if":
            self.k += 1
            return self.nested(self.ite)
        if word == "var":
            self.k += 1
            return self.nested(self.let)
        if word in ("old", "multiset") and self.at("(", 1):
            self.k += 2
            inner = self.nested(self.expression, bar_is_or=True)
            self.expect(")")
            return Old(inner) if word == "old" else MultisetOf(inner)
        if word == "multiset" and self.at("{", 1):
            self.k += 2
            return Display("multiset", self.nested(lambda: self.items("}"), bar_is_or=True))
        if word in _UNSUPPORTED_WORDS or (word == "old" and self.at("@", 1)):
            raise ExprError(f"{_UNSUPPORTED_WORDS.get(word, 'old@label')} not supported (column {t.col})")
        self.k += 1
        if self.at("=>"):
            raise ExprError(f"lambda expressions are not supported (column {t.col})")
        if self.at("("):
            self.k += 1
            return Call(word, self.nested(lambda: self.items(")"), bar_is_or=True))
        return Name(word)

    def bracketed(self, t: Token) -> Expr:
        if t.text == "(":
            self.k += 1
            elems = self.nested(lambda: self.items(")"), bar_is_or=True)
            if not elems:
                raise ExprError(f"the unit value () is not supported (column {t.col})")
            return elems[0] if len(elems) == 1 else TupleE(elems)
        if t.text == "[":
            self.k += 1
            return Display("seq", self.nested(lambda: self.items("]"), bar_is_or=True))
        if t.text == "{":
            self.k += 1
            return Display("set", self.nested(lambda: self.items("}"), bar_is_or=True))
        if t.text == "|":
            self.k += 1
            inner = self.nested(self.expression, bar_is_or=False)
            self.expect("|")
            return Card(inner)
        raise self.error("an expression")

    def items(self, close: str) -> tuple[Expr, ...]:
        """Comma-separated expressions through the closing bracket."""
        out: list[Expr] = []
        if self.at(close):
            self.k += 1
            return ()
        while True:
            out.append(self.expression())
            if self.at(","):
                self.k += 1
                continue
            self.expect(close)
            return tuple(out)

    # -- endless expressions: their last part reaches as far right as possible

    def bound_vars(self) -> tuple[BoundVar, ...]:
        out = []
        while True:
            name = self.ident()
            typ = None
            if self.at(":"):
                self.k += 1
                typ = self.type_text()
            out.append(BoundVar(name, typ))
            if not self.at(","):
                break
            self.k += 1
        self.skip_attributes()
        return tuple(out)

    def skip_attributes(self) -> None:
        while self.at("{:"):  # `{:trigger ...}` and the like: hints for the solver, no meaning
            close = matching_close(self.toks, self.k)
            if close < 0:
                raise self.error("'}' closing the attribute")
            self.k = close + 1

    def quantifier(self, kind: str) -> Expr:
        names = self.bound_vars()
        rng = None
        if self.at("|"):
            self.k += 1
            rng = self.expression()
            self.skip_attributes()
        if self.at("<") and self.at("-", 1):
            raise ExprError("`x <- s` quantifier domains are not supported")
        self.expect("::")
        return Quant(kind, names, rng, self.expression())

    def comprehension(self) -> Expr:
        names = self.bound_vars()
        self.expect("|")
        rng = self.expression()
        term = None
        if self.at("::"):
            self.k += 1
            term = self.expression()
        return SetComp(names, rng, term)

    def ite(self) -> Expr:
        cond = self.expression()
        if not self.at_word("then"):
            raise self.error("'then'")
        self.k += 1
        then = self.expression()
        if not self.at_word("else"):
            raise self.error("'else'")
        self.k += 1
        return Ite(cond, then, self.expression())

    def let(self) -> Expr:
        names = []
        types: list[str | None] = []
        while True:
            names.append(self.ident())
            types.append(None)
            if self.at(":"):
                self.k += 1
                types[-1] = self.type_text()
            if not self.at(","):
                break
            self.k += 1
        if self.at(":|"):
            if len(names) != 1:
                raise ExprError("let-such-that (`var x :| ...`) of several variables is not supported")
            self.k += 1
            cond = self.expression()
            self.expect(";")
            return LetSuch(BoundVar(names[0], types[0]), cond, self.expression())
        self.expect(":=")
        values = [self.expression()]
        while self.at(","):
            self.k += 1
            values.append(self.expression())
        self.expect(";")
        if len(values) != len(names):
            raise ExprError(f"`var` binds {len(names)} names to {len(values)} values")
        return Let(tuple(names), tuple(values), self.expression(), tuple(types) if any(types) else ())

    def _type_arguments_follow(self) -> bool:
        """At `<`: whether a closing `>` follows with only type words between (`seq<array<int>>`), so that
        `x as int < y` is a comparison, not type arguments."""
        level = 0
        for t in self.toks[self.k:]:
            if t.text in ("<", ">", ">>"):
                level += t.text.count("<") - t.text.count(">")
                if level <= 0:
                    return True
            elif not (t.kind is TokKind.IDENT or t.text in (",", "(", ")", ".", "?")):
                return False
        return False

    def type_text(self) -> str:
        """The source text of a type (`int`, `seq<array<int>>`, `(int, bool)`, `M.T`)."""
        first = self.peek()
        if first is None:
            raise self.error("a type")
        if self.at("("):
            close = matching_close(self.toks, self.k)
            if close < 0:
                raise self.error("')' closing the tuple type")
            self.k = close + 1
        else:
            self.ident()
            while self.at(".") and self.peek(1) is not None and self.toks[self.k + 1].kind is TokKind.IDENT:
                self.k += 2
            if self.at("<") and self._type_arguments_follow():
                level = 0
                while self.k < len(self.toks):
                    text = self.toks[self.k].text
                    level += text.count("<") - text.count(">") if text in ("<", ">", ">>") else 0
                    self.k += 1
                    if level <= 0:
                        break
        return self.src[first.start : self.toks[self.k - 1].end]


# -- printer -----------------------------------------------------------------------------------------

_PRIMARY, _UNARY, _AS = 11, 10, 9


def _prec(e: Expr) -> int:
    if isinstance(e, Binary):
        if e.op == "<==>":
            return 1
        if e.op in ("==>", "<=="):
            return 2
        return _REL if e.op in _REL_OPS or e.op == "in" else _BINARY_PREC[e.op]
    if isinstance(e, Chain):
        return _REL
    if isinstance(e, Unary):
        return _UNARY
    if isinstance(e, As):
        return _AS
    if isinstance(e, Quant | SetComp | Ite | Let | LetSuch):
        return 0  # endless: parenthesised wherever something may follow
    return _PRIMARY


def unparse(e: Expr, subst: Mapping[str, str] | None = None) -> str:
    """Dafny text for e; free occurrences of the names in subst are replaced by the given text
    (literals printed by `to_dafny`: a leading minus is parenthesised only before a suffix or
    after a unary operator, as elsewhere it binds tighter than every binary operator)."""
    return _Printer(dict(subst or {})).show(e)


def unparse_operand(e: Expr, subst: Mapping[str, str] | None = None) -> str:
    """unparse(e), parenthesised unless it binds tighter than a comparison (for `e == value`)."""
    text = unparse(e, subst)
    return text if _prec(e) > _REL else f"({text})"


class _Printer:
    def __init__(self, subst: dict[str, str]) -> None:
        self.subst = subst

    def operand(self, e: Expr, min_prec: int, same_op: str | None = None) -> str:
        text = self.show(e)
        p = _prec(e)
        if p > min_prec or (p == min_prec and isinstance(e, Binary) and same_op in ("", e.op)):
            return text
        return f"({text})"

    def primary(self, e: Expr) -> str:
        """e as the target of a suffix (`.Length`, `[i]`): numbers and compound forms in parentheses."""
        text = self.show(e)
        if _prec(e) < _PRIMARY or text.startswith("-") or (isinstance(e, Lit) and isinstance(e.value, IntV | RealV)):
            return f"({text})"
        return text

    def shadowed(self, names: tuple[str, ...]) -> _Printer:
        return _Printer({k: v for k, v in self.subst.items() if k not in names})

    def join(self, items: tuple[Expr, ...]) -> str:
        return ", ".join(self.show(x) for x in items)

    def binders(self, vs: tuple[BoundVar, ...]) -> str:
        return ", ".join(v.name + (f": {v.type_text}" if v.type_text else "") for v in vs)

    def show(self, e: Expr) -> str:
        if isinstance(e, Lit):
            return e.text
        if isinstance(e, Name):
            return self.subst.get(e.name, e.name)
        if isinstance(e, Unary):
            text = self.show(e.operand)
            if _prec(e.operand) < _PRIMARY or text.startswith("-"):
                text = f"({text})"
            return e.op + text
        if isinstance(e, Binary):
            p = _prec(e)
            if e.op == "==>":
                return f"{self.operand(e.left, p)} ==> {self.operand(e.right, p, '==>')}"
            # `a - b + c` is `(a - b) + c`: arithmetic of one level needs no parentheses on the left; `&&` and `||`
            # may not be mixed without them
            left_assoc = None if p == _REL else "" if p in (_ADD, _MUL) else e.op
            return f"{self.operand(e.left, p, left_assoc)} {e.op} {self.operand(e.right, p)}"
        if isinstance(e, Chain):
            parts = [self.operand(e.operands[0], _REL)]
            for op, x in zip(e.ops, e.operands[1:], strict=True):
                parts += [op, self.operand(x, _REL)]
            return " ".join(parts)
        if isinstance(e, Ite):
            return f"if {self.show(e.cond)} then {self.show(e.then)} else {self.show(e.els)}"
        if isinstance(e, Let):
            typed = [n + (f": {t}" if t else "") for n, t in itertools.zip_longest(e.names, e.types[: len(e.names)])]
            return f"var {', '.join(typed)} := {self.join(e.values)}; {self.shadowed(e.names).show(e.body)}"
        if isinstance(e, LetSuch):
            inner = self.shadowed((e.var.name,))
            return f"var {self.binders((e.var,))} :| {inner.show(e.cond)}; {inner.show(e.body)}"
        if isinstance(e, Call):
            return f"{e.name}({self.join(e.args)})"
        if isinstance(e, Member):
            return f"{self.primary(e.obj)}.{e.name}"
        if isinstance(e, Index):
            return f"{self.primary(e.seq)}[{self.show(e.index)}]"
        if isinstance(e, Slice):
            lo = "" if e.lo is None else self.show(e.lo)
            hi = "" if e.hi is None else self.show(e.hi)
            return f"{self.primary(e.seq)}[{lo}..{hi}]"
        if isinstance(e, Update):
            return f"{self.primary(e.seq)}[{self.show(e.index)} := {self.show(e.value)}]"
        if isinstance(e, Card):
            return f"|{self.show(e.operand)}|"
        if isinstance(e, Old):
            return f"old({self.show(e.operand)})"
        if isinstance(e, MultisetOf):
            return f"multiset({self.show(e.operand)})"
        if isinstance(e, Display):
            opening, closing = {"seq": ("[", "]"), "set": ("{", "}"), "multiset": ("multiset{", "}")}[e.kind]
            return opening + self.join(e.elems) + closing
        if isinstance(e, TupleE):
            return f"({self.join(e.elems)})"
        if isinstance(e, As):
            return f"{self.operand(e.operand, _AS)} as {e.type_text}"
        scoped = self.shadowed(tuple(v.name for v in e.vars))
        if isinstance(e, Quant):
            rng = "" if e.range is None else f" | {scoped.show(e.range)}"
            return f"{e.kind} {self.binders(e.vars)}{rng} :: {scoped.show(e.body)}"
        term = "" if e.term is None else f" :: {scoped.show(e.term)}"
        return f"set {self.binders(e.vars)} | {scoped.show(e.range)}{term}"
