"""Dafny types the tool can build values of, parsed from type text such as `seq<array<int>>`.

Pure code. Anything else parses to `Unsupported`, which the scorer reports per test, naming the type.
A type nested more than `MAX_TYPE_NESTING` levels deep is no type any spec needs: `parse_type` raises
`TypeTooDeep` for it, so that callers report it where it was written.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.dafny.lexer import LexError, Token, TokKind, tokenize


@dataclass(frozen=True)
class IntT:
    def __str__(self) -> str:
        return "int"


@dataclass(frozen=True)
class NatT:
    def __str__(self) -> str:
        return "nat"


@dataclass(frozen=True)
class BoolT:
    def __str__(self) -> str:
        return "bool"


@dataclass(frozen=True)
class CharT:
    def __str__(self) -> str:
        return "char"


@dataclass(frozen=True)
class RealT:
    def __str__(self) -> str:
        return "real"


@dataclass(frozen=True)
class BvT:
    width: int

    def __str__(self) -> str:
        return f"bv{self.width}"


@dataclass(frozen=True)
class StringT:
    """`string`, a synonym of seq<char>, kept apart so values print as string literals."""

    def __str__(self) -> str:
        return "string"


@dataclass(frozen=True)
class SeqT:
    elem: DafnyType

    def __str__(self) -> str:
        return f"seq<{self.elem}>"


@dataclass(frozen=True)
class ArrayT:
    elem: DafnyType

    def __str__(self) -> str:
        return f"array<{self.elem}>"


@dataclass(frozen=True)
class TupleT:
    elems: tuple[DafnyType, ...]

    def __str__(self) -> str:
        return "(" + ", ".join(str(e) for e in self.elems) + ")"


MAX_BV_WIDTH = 4096  # widest bitvector type given values
MAX_TYPE_NESTING = 100  # `seq<`, `array<` and `(` inside each other; far beyond real specs, well within Python's stack
TYPE_TOO_DEEP = "type nested more than {limit} levels deep"


class TypeTooDeep(ValueError):
    """Type text nested more than MAX_TYPE_NESTING levels deep."""

    def __init__(self) -> None:
        super().__init__(TYPE_TOO_DEEP.format(limit=MAX_TYPE_NESTING))


@dataclass(frozen=True)
class Unsupported:
    text: str

    def __str__(self) -> str:
        return self.text


DafnyType = IntT | NatT | BoolT | CharT | RealT | BvT | StringT | SeqT | ArrayT | TupleT | Unsupported


def parse_type(text: str) -> DafnyType:
    """Parse a type as written in a signature: odd text becomes Unsupported; raises TypeTooDeep only."""
    try:
        toks = [t for t in tokenize(text) if t.kind is not TokKind.COMMENT]
    except LexError:
        return Unsupported(text.strip())
    try:
        t, k = _parse(toks, 0, 0)
    except TypeTooDeep:
        raise
    except (IndexError, ValueError):
        return Unsupported(text.strip())
    if k != len(toks):
        return Unsupported(text.strip())
    return t


def _parse(toks: list[Token], k: int, depth: int) -> tuple[DafnyType, int]:
    """The type at toks[k] and the index after it; depth counts the brackets around it."""
    tok = toks[k]
    if tok.kind is TokKind.OP and tok.text == "(":
        if depth >= MAX_TYPE_NESTING:
            raise TypeTooDeep
        elems: list[DafnyType] = []
        k += 1
        while True:
            e, k = _parse(toks, k, depth + 1)
            elems.append(e)
            if toks[k].text == ",":
                k += 1
                continue
            if toks[k].text == ")":
                k += 1
                break
            raise ValueError("bad tuple type")
        if len(elems) == 1:
            return elems[0], k
        return TupleT(tuple(elems)), k
    if tok.kind is not TokKind.IDENT:
        raise ValueError("type expected")
    name = tok.text
    k += 1
    simple: dict[str, DafnyType] = {
        "int": IntT(), "nat": NatT(), "bool": BoolT(), "char": CharT(), "real": RealT(),
        "string": StringT(),
    }
    if name in simple:
        return simple[name], k
    if name.startswith("bv") and name[2:].isdigit():
        # a bitvector wider than any spec needs would make 2**width cost minutes and gigabytes
        width = int(name[2:]) if len(name) <= 12 else MAX_BV_WIDTH + 1
        return (BvT(width) if width <= MAX_BV_WIDTH else Unsupported(name)), k
    if name in ("seq", "array") and k < len(toks) and toks[k].text == "<":
        if depth >= MAX_TYPE_NESTING:
            raise TypeTooDeep
        inner, k = _parse(toks, k + 1, depth + 1)
        if toks[k].text == ">":
            k += 1
        elif toks[k].text == ">>":
            # `seq<seq<int>>`: the lexer made one `>>` token; leave one `>` for the caller
            toks[k] = Token(TokKind.OP, ">", toks[k].start + 1, toks[k].end, toks[k].line, toks[k].col + 1)
        else:
            raise ValueError("'>' expected")
        return (SeqT(inner) if name == "seq" else ArrayT(inner)), k
    # a user type, a generic, array2, set, map ...: skip its arguments and call it unsupported
    start = k - 1
    if k < len(toks) and toks[k].text == "<":
        depth = 0
        while k < len(toks):
            depth += toks[k].text.count("<") - toks[k].text.count(">")
            k += 1
            if depth <= 0:
                break
    return Unsupported(" ".join(t.text for t in toks[start:k]).replace(" < ", "<").replace(" >", ">")), k


def unsupported_parts(t: DafnyType) -> list[str]:
    """Names of the unsupported types inside t (empty when the tool can build values of t)."""
    if isinstance(t, Unsupported):
        return [t.text]
    if isinstance(t, SeqT | ArrayT):
        return unsupported_parts(t.elem)
    if isinstance(t, TupleT):
        return [p for e in t.elems for p in unsupported_parts(e)]
    return []
