"""Proof hints for concrete cases: extra facts that help the verifier, never change what is proved.

Pure code. Attributes only raise fuel; statements are assertions, themselves checked.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.dafny.decls import DafnyFile, Decl
from bot.dafny.lexer import LexError, TokKind, tokenize
from bot.dafny.values import ArrayV, SeqV, TupleV, Value
from bot.tests_io.model import TestCase


@dataclass(frozen=True)
class Hints:
    attributes: str  # method attributes, e.g. "{:fuel countTo, 6} "
    statements: list[str]  # assertions placed after the outputs are assigned


def _idents(text: str) -> set[str]:
    try:
        return {t.text for t in tokenize(text) if t.kind is TokKind.IDENT}
    except LexError:
        return set()


def _functions(file: DafnyFile) -> dict[str, Decl]:
    return {
        d.name: d for d in file.decls if d.kind.startswith(("function", "predicate")) and d.body is not None
    }


def spec_functions(file: DafnyFile, method: Decl) -> list[str]:
    """Functions and predicates the method's spec uses, directly or through other functions."""
    funcs = _functions(file)
    todo = sorted(set().union(*(_idents(c.text) for c in method.clauses)) & funcs.keys())
    seen: set[str] = set()
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        body = funcs[f].body
        assert body is not None
        todo += sorted((_idents(file.source[body[0] : body[1]]) & funcs.keys()) - seen)
    return sorted(seen)


def recursive_functions(file: DafnyFile, names: list[str]) -> list[str]:
    funcs = _functions(file)
    out = []
    for f in names:
        body = funcs[f].body
        assert body is not None
        if f in _idents(file.source[body[0] : body[1]]):
            out.append(f)
    return out


def _size(v: Value) -> int:
    if isinstance(v, SeqV | ArrayV):
        return max([len(v.elems)] + [_size(e) for e in v.elems])
    if isinstance(v, TupleV):
        return max([0] + [_size(e) for e in v.elems])
    return 0


def hints_for(file: DafnyFile, method: Decl, case: TestCase, ground_limit: int, max_fuel: int) -> Hints:
    values = [*case.inputs, *case.expected, *(v for _, v in case.post)]
    size = max([0] + [_size(v) for v in values])
    # a recursive function over a concrete sequence unfolds once per element (+1 for the base case)
    fuel = min(max_fuel, size + 2)
    attrs = ""
    rec = recursive_functions(file, spec_functions(file, method))
    if rec and fuel > 1:
        attrs = "".join(f"{{:fuel {f}, {fuel}}} " for f in rec)
    return Hints(attributes=attrs, statements=[])
