"""Values of a real output solved from the spec's equations (to be checked by the verifier). Pure code.

With a tolerance, a rounded expected value (1.667 for 1.6665) is not accepted exactly, and asking the
verifier for *some* value within the tolerance (`r :| lo <= r <= hi && E(r)`) leaves it a witness to
find, which it often cannot. An equation of the spec that is linear in the output (`r * 2.0 == a + b`)
names the value: solved here, checked by the verifier like any concrete output.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from bot.dafny.decls import DafnyFile
from bot.dafny.expr import Binary, Chain, Expr, ExprError, Name, parse_expr, unparse
from bot.dafny.types import DafnyType
from bot.dafny.values import RealV, Value
from bot.symbolic.harness.evaluate import NoValue, evaluate


def solved_reals(
    file: DafnyFile, clauses: Sequence[str], name: str, env: Mapping[str, Value], types: Mapping[str, DafnyType]
) -> list[Fraction]:
    """Values of the real output `name` that some equation among the clauses' conjuncts pins down."""
    out: list[Fraction] = []
    for text in clauses:
        try:
            expr = parse_expr(text)
        except ExprError:
            continue
        for left, right in _equations(expr):
            for side, other in ((left, right), (right, left)):
                value = _solve(side, other, name, file, env, types)
                if value is not None and value not in out:
                    out.append(value)
    return out


def _equations(e: Expr) -> list[tuple[Expr, Expr]]:
    if isinstance(e, Binary) and e.op == "&&":
        return _equations(e.left) + _equations(e.right)
    if isinstance(e, Binary) and e.op == "==":
        return [(e.left, e.right)]
    if isinstance(e, Chain) and e.ops == ("==",):
        return [(e.operands[0], e.operands[1])]
    return []


def _mentions(e: Expr, name: str) -> bool:
    return name in unparse(e).replace("(", " ").replace(")", " ").split() or unparse(e) == name


def _solve(
    side: Expr, target: Expr, name: str, file: DafnyFile, env: Mapping[str, Value], types: Mapping[str, DafnyType]
) -> Fraction | None:
    """x such that side(x) == target, when side is the output under + - * / with known operands."""
    if _mentions(target, name):
        return None
    try:
        value = evaluate(file, unparse(target), env, types=types)
    except NoValue:
        return None
    if not isinstance(value, RealV):
        return None
    return _invert(side, value.v, name, file, env, types)


def _invert(
    side: Expr, v: Fraction, name: str, file: DafnyFile, env: Mapping[str, Value], types: Mapping[str, DafnyType]
) -> Fraction | None:
    if isinstance(side, Name):
        return v if side.name == name else None
    if not isinstance(side, Binary) or side.op not in ("+", "-", "*", "/"):
        return None
    left_has, right_has = _mentions(side.left, name), _mentions(side.right, name)
    if left_has == right_has:
        return None
    known = side.right if left_has else side.left
    try:
        c = evaluate(file, unparse(known), env, types=types)
    except NoValue:
        return None
    if not isinstance(c, RealV):
        return None
    k = c.v
    inner = side.left if left_has else side.right
    if side.op == "+":
        return _invert(inner, v - k, name, file, env, types)
    if side.op == "-":
        return _invert(inner, v + k if left_has else k - v, name, file, env, types)
    if side.op == "*":
        return None if k == 0 else _invert(inner, v / k, name, file, env, types)
    if left_has:  # x / k == v
        return None if k == 0 else _invert(inner, v * k, name, file, env, types)
    return None if v == 0 else _invert(inner, k / v, name, file, env, types)  # k / x == v
