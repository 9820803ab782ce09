"""Proof hints for concrete cases: extra facts that help the verifier, never change what is proved.

Pure code. Every hint is an assertion the verifier checks (or a fuel attribute), and each one is
implied by the clause it comes from, so a hint can fail only where the clause fails too:
- instances of a top-level `forall x :: G(x) ==> P(x)` clause: `assert G(k) ==> P(k);` for every k of
  the concrete range (measured: a per-element `forall` over `seq<bv32>` timed out at 20 s without them
  and verified in 0.05 s with them);
- mentions of every other quantifier's body on the concrete range, `assert B(k) || !B(k);`: the ground
  terms are the witnesses an `exists` without a good trigger needs (`exists k :: 2 <= k < n && n % k == 0`);
- mentions of recursive functions on every smaller argument (every prefix of a count, every prefix and
  suffix of a sequence) whose preconditions hold, plus `{:fuel f, N}`, so each unfolding step is available.
The clauses are read by the one expression parser (dafny/expr.py), bounds are valued by the ground
evaluator (evaluate.integer_of) and hints are printed by the parser's printer; a clause the parser does
not read gets none.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from bot.dafny.decls import DafnyFile, Decl
from bot.dafny.expr import (
    Binary,
    Call,
    Chain,
    Expr,
    ExprError,
    Name,
    Quant,
    bound_names,
    children,
    conjuncts,
    parse_expr,
    unparse,
)
from bot.dafny.lexer import LexError, Token, TokKind, tokenize
from bot.dafny.types import DafnyType
from bot.dafny.values import ArrayV, DatatypeV, IntV, SeqV, TupleV, Value
from bot.symbolic.harness.evaluate import NoValue, integer_of, requires_hold


@dataclass(frozen=True)
class Hints:
    attributes: str  # method attributes, e.g. "{:fuel countTo, 6} "
    statements: tuple[str, ...]  # assertions, placed where every name they use has its value


def _toks(text: str) -> list[Token]:
    try:
        return [t for t in tokenize(text) if t.kind is not TokKind.COMMENT]
    except LexError:
        return []


def _idents(text: str) -> set[str]:
    return {t.text for t in _toks(text) if t.kind is TokKind.IDENT}


def _functions(file: DafnyFile) -> dict[str, Decl]:
    return {d.name: d for d in file.decls if d.kind.startswith(("function", "predicate")) and d.body is not None}


def spec_functions(file: DafnyFile, texts: Sequence[str]) -> list[str]:
    """Functions and predicates the texts use, directly or through other functions."""
    funcs = _functions(file)
    todo = sorted(set().union(set(), *(_idents(t) for t in texts)) & funcs.keys())
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


def recursive_functions(file: DafnyFile, names: Sequence[str]) -> list[str]:
    funcs = _functions(file)
    out = []
    for f in names:
        body = funcs[f].body
        assert body is not None
        if f in _idents(file.source[body[0] : body[1]]):
            out.append(f)
    return out


# -- the clauses' structure, read from the one AST (dafny/expr.py) and printed back by its printer


def _parsed(text: str) -> Expr | None:
    """The clause's AST; None when the parser does not read it (such a clause gets no hints)."""
    try:
        return parse_expr(text)
    except ExprError:
        return None


def _walk(e: Expr, bound: frozenset[str] = frozenset()) -> Iterator[tuple[Expr, frozenset[str]]]:
    """Every subexpression in source order, with the names bound around it (not its own)."""
    yield e, bound
    inner = bound | frozenset(bound_names(e))
    for c in children(e):
        yield from _walk(c, inner)


def _outermost(e: Expr, bound: frozenset[str] = frozenset()) -> Iterator[tuple[Quant, frozenset[str]]]:
    """The quantifiers inside e (e excluded) that no other quantifier inside e encloses."""
    inner = bound | frozenset(bound_names(e))
    for c in children(e):
        if isinstance(c, Quant):
            yield c, inner
        else:
            yield from _outermost(c, inner)


def _outside(env: Mapping[str, Value], bound: Iterable[str]) -> dict[str, Value]:
    """The case's values a bound name does not hide."""
    hidden = set(bound)
    return {k: v for k, v in env.items() if k not in hidden}


def _number(v: int) -> str:
    return str(v) if v >= 0 else f"({v})"


def _guard(q: Quant) -> Expr | None:
    """The range (`forall x | R :: P`), a `forall`'s antecedent, or an `exists`' whole body."""
    if q.range is not None:
        return q.range
    if q.kind == "exists":
        return q.body
    return q.body.left if isinstance(q.body, Binary) and q.body.op == "==>" else None


def _comparisons(e: Expr) -> tuple[list[Expr], list[str]] | None:
    """`a < b <= c` as its operands and operators, when every operator is `<` or `<=`."""
    if isinstance(e, Binary) and e.op in ("<", "<="):
        return [e.left, e.right], [e.op]
    if isinstance(e, Chain) and all(op in ("<", "<=") for op in e.ops):
        return list(e.operands), list(e.ops)
    return None


def _ranges(q: Quant, env: Mapping[str, Value]) -> dict[str, range] | None:
    """Concrete ranges of the bound variables from chained comparisons in the guard."""
    names = [v.name for v in q.vars]
    outer = _outside(env, names)
    lo: dict[str, int] = {}
    hi: dict[str, int] = {}
    links: list[tuple[str, str, int]] = []  # (a, b, d): a + d <= b
    for conj in conjuncts(_guard(q)):
        chain = _comparisons(conj)
        if chain is None:
            continue
        operands, ops = chain
        for left, op, right in zip(operands, ops, operands[1:], strict=False):
            d = 1 if op == "<" else 0
            lname = left.name if isinstance(left, Name) and left.name in names else None
            rname = right.name if isinstance(right, Name) and right.name in names else None
            if lname and rname:
                links.append((lname, rname, d))
                continue
            try:
                if rname:
                    lo[rname] = max(lo.get(rname, -(10**9)), integer_of(left, outer) + d)
                if lname:
                    hi[lname] = min(hi.get(lname, 10**9), integer_of(right, outer) - d + 1)
            except NoValue:
                continue
    for _ in range(len(names)):
        for a, b, d in links:
            if a in lo:
                lo[b] = max(lo.get(b, -(10**9)), lo[a] + d)
            if b in hi:
                hi[a] = min(hi.get(a, 10**9), hi[b] - d)
    out = {}
    for n in names:
        if n not in lo or n not in hi or abs(lo[n]) >= 10**9 or abs(hi[n]) >= 10**9:
            return None
        out[n] = range(lo[n], max(lo[n], hi[n]))
    return out


def _instances(q: Quant, env: Mapping[str, Value], limit: int) -> list[dict[str, int]] | None:
    ranges = _ranges(q, env)
    if ranges is None:
        return None
    total = 1
    for r in ranges.values():
        total *= len(r)
    if total > limit:
        return None
    names = list(ranges)
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*(ranges[n] for n in names))]


def quantifier_hints(clauses: Sequence[str], env: Mapping[str, Value], limit: int) -> list[str]:
    """Case splits for positive top-level `forall`s, mentions for every other outermost quantifier."""
    out: list[str] = []
    for text in clauses:
        e = _parsed(text)
        if e is None:
            continue
        positive = [c for c in conjuncts(e) if isinstance(c, Quant) and c.kind == "forall"]
        outermost = [(e, frozenset[str]())] if isinstance(e, Quant) else list(_outermost(e))
        for q, bound in outermost:
            outer = _outside(env, bound)
            insts = _instances(q, outer, limit)
            if not insts:
                continue
            if any(q is p for p in positive):
                inner = [m for c, inside in _outermost(q) for m in _mentions(c, _outside(outer, inside), limit, "    ")]
                out += _case_split(q, outer, insts, inner)
            else:
                out += _mentions(q, outer, limit)
    return out


def _mentions(q: Quant, env: Mapping[str, Value], limit: int, indent: str = "  ") -> list[str]:
    """`assert B(k) || !B(k);` for each k: ground terms the solver can use as witnesses."""
    out = []
    for subst in _instances(q, env, limit) or []:
        numbers = {n: _number(v) for n, v in subst.items()}
        body = unparse(q.body, numbers)
        formula = f"({unparse(q.range, numbers)}) ==> ({body})" if q.range is not None else f"({body})"
        out.append(f"{indent}assert {formula} || !{formula};")
    return out


def _case_split(
    q: Quant, env: Mapping[str, Value], insts: Sequence[Mapping[str, int]], inner: Sequence[str]
) -> list[str]:
    """A `forall` statement proving the clause by cases over the concrete range.

    Measured: `forall i :: 0 <= i < |r| ==> r[i] == a[i] ^ b[i]` over 4 elements timed out at 20 s
    even with every instance asserted, and verified in 0.05 s when the range was split into cases.
    The statement proves exactly the clause (same range, same body), so it fails only where the
    clause does. `inner` holds mentions for quantifiers nested in the body, which may use q's names.
    """
    guard = _guard(q)
    consequent = q.body if q.range is not None else q.body.right if isinstance(q.body, Binary) else None
    if guard is None or consequent is None:
        return []
    cases = []
    for subst in insts:
        local = dict(env)
        local.update({n: IntV(v) for n, v in subst.items()})
        if _guard_value(guard, local) is False:
            continue
        parts = [f"{n} == {_number(v)}" for n, v in subst.items()]
        cases.append(" && ".join(parts) if len(parts) == 1 else "(" + " && ".join(parts) + ")")
    if not cases:
        return []
    names = ", ".join(v.name for v in q.vars)
    return [
        f"  forall {names} | {unparse(guard)} ensures {unparse(consequent)} {{",
        f"    assert {' || '.join(cases)};",
        *inner,
        "  }",
    ]


def _guard_value(guard: Expr, env: Mapping[str, Value]) -> bool | None:
    """True/False when every conjunct is a chain of comparisons of known integers, else None."""
    for conj in conjuncts(guard):
        chain = _comparisons(conj)
        if chain is None:
            return None
        operands, ops = chain
        try:
            vals = [integer_of(x, env) for x in operands]
        except NoValue:
            return None
        for a, op, b in zip(vals, ops, vals[1:], strict=False):
            if (op == "<" and not a < b) or (op == "<=" and not a <= b):
                return False
    return True


def recursion_hints(
    clauses: Sequence[str],
    rec: Sequence[str],
    env: Mapping[str, Value],
    limit: int,
    *,
    file: DafnyFile | None = None,
    types: Mapping[str, DafnyType] | None = None,
) -> list[str]:
    """Mention each recursive call on every smaller concrete argument, so every unfolding is at hand.

    With the file, a mention is kept only when the function's `requires` evaluate to true on its
    concrete arguments: `sumTo(a, start, 0)` with `requires start <= end` and start = 1 is itself a
    precondition violation (an assertion failure on the hint's line), and so is any mention whose
    preconditions cannot be evaluated."""
    out: list[str] = []
    seen: set[str] = set()
    for text in clauses:
        e = _parsed(text)
        if e is None:
            continue
        for call, bound in _walk(e):
            if not isinstance(call, Call) or call.name not in rec:
                continue
            outer = _outside(env, bound)
            texts = [unparse(a) for a in call.args]
            for pos, arg in enumerate(call.args):
                variants: list[str] = []
                try:
                    variants = [str(k) for k in range(0, min(integer_of(arg, outer), limit))]
                except NoValue:
                    val = outer.get(arg.name) if isinstance(arg, Name) else None
                    if isinstance(val, SeqV):
                        m = min(len(val.elems), limit)
                        x = unparse(arg)
                        variants = [f"{x}[..{k}]" for k in range(m)] + [f"{x}[{k}..]" for k in range(1, m + 1)]
                for v in variants:
                    mention = f"{call.name}({', '.join(texts[:pos] + [v] + texts[pos + 1:])})"
                    if mention not in seen:
                        seen.add(mention)
                        if file is None or requires_hold(file, mention, env, types or {}):
                            out.append(f"  assert {mention} == {mention};")
    return out[: 4 * limit]


def _size(v: Value) -> int:
    if isinstance(v, SeqV | ArrayV):
        return max([len(v.elems)] + [_size(e) for e in v.elems])
    if isinstance(v, TupleV):
        return max([0] + [_size(e) for e in v.elems])
    if isinstance(v, DatatypeV):  # a recursive datatype unfolds once per level
        return 1 + max([0] + [_size(e) for e in v.fields])
    return 0


def fuel_attributes(file: DafnyFile, method: Decl, values: Sequence[Value], max_fuel: int) -> str:
    """`{:fuel f, N}` for the recursive functions the spec uses: one unfolding per element, plus one."""
    # Dafny 2.3 cannot give a generic function fuel ("type '?' to the function is not determined"): left as it is
    funcs = _functions(file)
    rec = [f for f in recursive_functions(file, spec_functions(file, [c.text for c in method.clauses]))
           if not funcs[f].generic]
    size = max([0] + [_size(v) for v in values] + [v.v for v in values if isinstance(v, IntV) and v.v < 10**6])
    fuel = min(max_fuel, size + 2)
    names = [n for n in (_fuel_name(funcs[f], method) for f in rec) if n is not None]
    if not names or fuel <= 1:
        return ""
    return "".join(f"{{:fuel {n}, {fuel}}} " for n in names)


def _fuel_name(f: Decl, method: Decl) -> str | None:
    """How the harness of `method` names `f` in a `{:fuel}` attribute (measured on Dafny 2.3: a class member's bare
    name does not resolve there, `C.f` does): `f` in the method's own modules, `C.f` for a member of a class or
    trait C of them; None elsewhere (no fuel for it: fewer unfoldings, where a name that did not resolve would make
    every program of the case an error)."""
    def modules(d: Decl) -> list[str]:
        return [p for p in d.container.split(".") if p.startswith("module ")] if d.container else []

    if modules(f) != modules(method):
        return None
    members = [p.split()[-1] for p in (f.container.split(".") if f.container else []) if not p.startswith("module ")]
    if len(members) > 1:
        return None
    return ".".join([*members, f.name])


def hints_for(
    file: DafnyFile,
    method: Decl,
    clauses: Sequence[str],
    env: Mapping[str, Value],
    ground_limit: int,
) -> tuple[str, ...]:
    """Assertions for the given clauses (requires or ensures) under the case's concrete values."""
    rec = recursive_functions(file, spec_functions(file, clauses))
    types = {p.name: p.type for p in (*method.params, *method.returns)}
    stmts = recursion_hints(clauses, rec, env, ground_limit, file=file, types=types) if rec else []
    stmts += quantifier_hints(clauses, env, ground_limit)
    return tuple(stmts)
