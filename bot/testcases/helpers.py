"""What the helpers a test file declares mean, read from their bodies: a name is no evidence.

Pure code. A check may call a helper of the test file: `expect abs(r - 1.0) < 0.1;` or `assertEquals(r, 5);`. The
reader takes `abs` for the absolute value, or `assertEquals` for an equality, only when the declaration's body is
one of a short list of forms known to be exactly that (an allow-list: `function abs(x: real): real { x }` is no
absolute value, a method `assertEquals(a, b) { expect a <= b; }` is no equality). Anything else is not read as
either, and a check using it is read as the formula it is, or not at all.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from bot.dafny.decls import DafnyFile, Decl
from bot.dafny.lexer import LexError, Token, TokKind, matching_close, tokenize
from bot.dafny.types import ArrayT, BoolT, RealT


@dataclass(frozen=True)
class Helpers:
    """The test file's helpers, by name, as their bodies read."""

    declared: frozenset[str]  # every callable the file declares (a name here means only what its body says)
    absolute: frozenset[str]  # `function abs(x: real): real`, the absolute value
    comparing: frozenset[str]  # a function (or a method with one bool result) that is `a == b` (arrays: contents)
    asserting: frozenset[str]  # a method whose body is the check `expect a == b;` (or `assert`)
    shadowed: frozenset[str] = frozenset()  # names a parameter or local variable of the test method takes
    # a method whose body checks nothing (`PrintArray(a)`): no `expect`, `assert` or `assume`, and no call of a
    # method of the file (which might); a call given an output passes over it, any other one may check it
    checkless: frozenset[str] = frozenset()

    def is_absolute(self, name: str) -> bool:
        return name in self.absolute

    def without(self, names: Collection[str]) -> Helpers:
        """These helpers where `names` are shadowed (a parameter or local variable of the test method: a call of
        that name reaches it, not the file's helper)."""
        gone = frozenset(names)
        return Helpers(self.declared, self.absolute - gone, self.comparing - gone, self.asserting - gone,
                       self.shadowed | gone, self.checkless - gone)


_FUNCTIONS = frozenset({"function", "function method", "predicate", "predicate method"})


def helpers_of(file: DafnyFile, tokens: Sequence[Token] | None = None) -> Helpers:
    """The helpers `file` declares, read from their bodies. A name declared twice (two modules) is read as neither:
    which one a call reaches is not followed. `tokens`: the whole file's, when the caller has them (each body is then
    found among them by bisection instead of being read again)."""
    bodies = _Bodies(file.source, tokens)
    counts: dict[str, int] = {}
    for d in file.decls:
        counts[d.name] = counts.get(d.name, 0) + 1
    absolute: set[str] = set()
    comparing: set[str] = set()
    asserting: set[str] = set()
    for d in file.decls:
        if counts[d.name] != 1 or d.body is None or d.clauses or d.generic or "{:" in file.source[d.start:d.body[0]]:
            continue  # a contract, an attribute or type parameters: not one of the plain forms below
        if len(d.params) not in (1, 2):
            continue  # each form below has one parameter (the absolute value) or two (an equality)
        body = bodies.of(d.body)
        if body is None:
            continue
        if _is_absolute(d, body):
            absolute.add(d.name)
        kind = _equality_kind(d, body)
        if kind == "comparing":
            comparing.add(d.name)
        elif kind == "asserting":
            asserting.add(d.name)
    return Helpers(frozenset(counts), frozenset(absolute), frozenset(comparing), frozenset(asserting),
                   checkless=_checkless(file, counts, bodies))


_CHECKS = frozenset({"expect", "assert", "assume"})


def _checkless(file: DafnyFile, counts: dict[str, int], bodies: _Bodies) -> frozenset[str]:
    """The methods of `file` declared once whose body holds no check and calls no method of the file."""
    methods = {d.name for d in file.decls if d.kind not in _FUNCTIONS}
    out = set()
    for d in file.decls:
        if counts[d.name] != 1 or d.body is None or d.kind in _FUNCTIONS:
            continue
        body = bodies.of(d.body)
        if body is not None and not any(t in _CHECKS or t in methods for t in body):
            out.add(d.name)
    return frozenset(out)


class _Bodies:
    """Bodies' tokens (without their braces and comments), with the parentheses around an `if`/`while` condition
    dropped (`if (x < 0) {` reads as `if x < 0 {`), or None when a body does not lex. From the whole file's tokens when
    given (tokens are in source order and do not overlap), else each body read on its own."""

    def __init__(self, source: str, tokens: Sequence[Token] | None) -> None:
        self.source = source
        self.tokens = [t for t in tokens if t.kind is not TokKind.COMMENT] if tokens is not None else None
        self.starts = [t.start for t in self.tokens] if self.tokens is not None else []
        self.ends = [t.end for t in self.tokens] if self.tokens is not None else []

    def of(self, span: tuple[int, int]) -> list[str] | None:
        if self.tokens is not None:
            toks = self.tokens[bisect_right(self.starts, span[0]) : bisect_left(self.ends, span[1])]
        else:
            try:
                toks = [t for t in tokenize(self.source[span[0] + 1 : span[1] - 1]) if t.kind is not TokKind.COMMENT]
            except LexError:
                return None
        return _unparenthesised_conditions(toks)


def _unparenthesised_conditions(toks: list[Token]) -> list[str] | None:
    drop: set[int] = set()
    for k, t in enumerate(toks):
        if t.text in ("if", "while") and k + 1 < len(toks) and toks[k + 1].text == "(":
            close = matching_close(toks, k + 1)
            if close < 0:
                return None
            if close + 1 < len(toks) and toks[close + 1].text in ("{", "then"):
                drop |= {k + 1, close}
    return [t.text for k, t in enumerate(toks) if k not in drop]


def _is_absolute(d: Decl, body: Sequence[str]) -> bool:
    """`function abs(x: real): real { if x < 0.0 then -x else x }` and the same with the test written the other way
    round (`x >= 0.0 then x else -x`, `0.0 > x`), `<=` for `<` (at 0 both branches agree), `0.0 - x` for `-x`."""
    if d.kind not in _FUNCTIONS or len(d.params) != 1 or len(d.returns) != 1:
        return False
    if not isinstance(d.params[0].type, RealT) or not isinstance(d.returns[0].type, RealT):
        return False
    return " ".join(body) in _absolute_forms(d.params[0].name)


def _absolute_forms(x: str) -> frozenset[str]:
    zero = "0.0"
    negative = [f"{x} < {zero}", f"{x} <= {zero}", f"{zero} > {x}", f"{zero} >= {x}"]
    positive = [f"{x} > {zero}", f"{x} >= {zero}", f"{zero} < {x}", f"{zero} <= {x}"]
    minus = [f"- {x}", f"( - {x} )", f"{zero} - {x}", f"( {zero} - {x} )"]
    out = set()
    for m in minus:
        out |= {f"if {c} then {m} else {x}" for c in negative}
        out |= {f"if ( {c} ) then {m} else {x}" for c in negative}
        out |= {f"if {c} then {x} else {m}" for c in positive}
        out |= {f"if ( {c} ) then {x} else {m}" for c in positive}
    return frozenset(out)


def _equality_kind(d: Decl, body: Sequence[str]) -> str:
    """"comparing" for a function `{ a == b }` (or a method whose one bool result is set to it, or the loop that
    compares two arrays element by element), "asserting" for a method `{ expect a == b; }`, "" for anything else."""
    if len(d.params) != 2 or d.params[0].type != d.params[1].type:
        return ""
    a, b = d.params[0].name, d.params[1].name
    arrays = isinstance(d.params[0].type, ArrayT)
    sides = [(f"{a} [ .. ]", f"{b} [ .. ]")] if arrays else [(a, b)]
    equal = {f"{x} == {y}" for x, y in sides} | {f"{y} == {x}" for x, y in sides}
    equal |= {f"( {e} )" for e in equal}
    text = " ".join(body)
    if d.kind in _FUNCTIONS:
        if len(d.returns) == 1 and isinstance(d.returns[0].type, BoolT) and text in equal:
            return "comparing"
        return ""
    if d.kind != "method":
        return ""
    if not d.returns:
        checks = {f"{kw} {e} ;" for kw in ("expect", "assert") for e in equal}
        return "asserting" if text in checks else ""
    if len(d.returns) != 1 or not isinstance(d.returns[0].type, BoolT):
        return ""
    res = d.returns[0].name
    if text in {f"{res} := {e} ;" for e in equal} or text in {f"return {e} ;" for e in equal}:
        return "comparing"
    if arrays and _is_elementwise_loop(body, a, b, res):
        return "comparing"
    return ""


# The element-by-element comparison of two arrays (`$A`, `$B`) into a bool result (`$R`) with two locals (`$L0` the
# flag, `$L1` the index), as test files write it: lengths first, then each element until one differs.
_ELEMENTWISE = (
    "if $A . Length != $B . Length { $R := false ; } else { var $L0 := true ; var $L1 := 0 ; "
    "while $L1 < $A . Length && $L0 { if $A [ $L1 ] != $B [ $L1 ] { $L0 := false ; } $L1 := $L1 + 1 ; } "
    "$R := $L0 ; }"
)


def _is_elementwise_loop(body: Sequence[str], a: str, b: str, res: str) -> bool:
    names = {a: "$A", b: "$B", res: "$R"}
    locals_: dict[str, str] = {}
    out: list[str] = []
    for k, text in enumerate(body):
        if k > 0 and body[k - 1] == "var" and text not in names and text not in locals_:
            locals_[text] = f"$L{len(locals_)}"
        out.append(names.get(text) or locals_.get(text) or text)
    for text in body:
        if text.isidentifier() and text not in names and text not in locals_ and text not in _KEYWORDS:
            return False  # a name the template does not have: another variable, a call
    return " ".join(out) == _ELEMENTWISE


_KEYWORDS = frozenset({"if", "else", "var", "while", "true", "false", "Length"})
