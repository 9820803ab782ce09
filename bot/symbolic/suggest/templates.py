"""Candidate clauses that would make a weak spec stronger, from the spec's own clauses and its outputs' types.
Pure code.

A candidate is only a guess: it is offered to a reader only after bot/symbolic/suggest/search.py has proved it
(it accepts every test, rejects every wrong output the spec accepted, and is consistent on every case). Here the
guesses are made and the cheap ones thrown out: a candidate the ground evaluator shows false on a test's expected
output can never pass.

The templates are a table (`TEMPLATES`): a name and a function from the method's context to clause texts. Adding
one is adding a row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from bot.dafny.decls import DafnyFile, Decl
from bot.dafny.expr import Binary, Chain, Expr, ExprError, Lit, Name, Quant, conjuncts, free_vars, parse_expr, unparse
from bot.dafny.types import ArrayT, BoolT, CharT, DafnyType, IntT, NatT, RealT, SeqT, StringT
from bot.dafny.values import BoolV, Value
from bot.symbolic.harness.evaluate import NoValue, evaluate
from bot.testcases.cases import TestCase

MAX_CANDIDATES = 6  # checked per method: each costs a scoring of every case with the verifier


@dataclass(frozen=True)
class Candidate:
    clause: str  # an expression, to be added as `ensures <clause>`
    template: str  # the row of TEMPLATES (or "suggester") it came from


@dataclass(frozen=True)
class Context:
    method: Decl
    ensures: tuple[Expr, ...]  # the method's ensures clauses the expression parser reads
    outputs: Mapping[str, DafnyType]
    inputs: Mapping[str, DafnyType]


def _converse(ctx: Context) -> Iterator[str]:
    """`forall x :: P(x) ==> Q(x)` about an output gives `forall x :: Q(x) ==> P(x)` (and `A ==> B` gives `B ==> A`):
    the running example's `x in result ==> x in a && x in b` says nothing of the shared elements left out. The
    antecedent's range guards (`0 <= i < |s|`) stay where they are: `0 <= i < |s| && P(s[i]) ==> s[i] in r` gives
    `0 <= i < |s| && s[i] in r ==> P(s[i])`, never an unguarded index."""
    for e in ctx.ensures:
        q = e if isinstance(e, Quant) and e.kind == "forall" and e.range is None else None
        body = q.body if q is not None else e
        if not (isinstance(body, Binary) and body.op == "==>" and free_vars(body) & set(ctx.outputs)):
            continue
        bound = {v.name for v in q.vars} if q is not None else set()
        parts = conjuncts(body.left)
        guards = [c for c in parts if _is_guard(c, bound)]
        rest = [c for c in parts if not _is_guard(c, bound)]
        if not rest:
            continue  # `0 <= i < |r| ==> P(r[i])` has no converse worth stating
        converse = Binary("==>", _conj([*guards, body.right]), _conj(rest))
        yield unparse(replace(q, body=converse) if q is not None else converse)


def _is_guard(e: Expr, bound: set[str]) -> bool:
    """A comparison that bounds a quantified variable (`0 <= i < |s|`)."""
    comparison = isinstance(e, Chain) or (isinstance(e, Binary) and e.op in ("<", "<=", ">", ">="))
    return comparison and bool(free_vars(e) & bound)


def _conj(parts: Sequence[Expr]) -> Expr:
    out = parts[0]
    for p in parts[1:]:
        out = Binary("&&", out, p)
    return out


def _iff(ctx: Context) -> Iterator[str]:
    """A boolean output stated with one implication (`r ==> P`, `P ==> r`) gives `r <==> P`; a clause that names no
    output at all (`true <== P`, a property of the inputs) gives `r <==> P` for each boolean output."""
    flags = [n for n, t in ctx.outputs.items() if isinstance(t, BoolT)]
    for e in ctx.ensures:
        if not free_vars(e) & set(ctx.outputs):
            for flag in flags:
                yield f"{flag} <==> ({unparse(_without_true(e))})"
            continue
        if not (isinstance(e, Binary) and e.op in ("==>", "<==")):
            continue
        for side, other in ((e.left, e.right), (e.right, e.left)):
            if isinstance(side, Name) and side.name in flags:
                yield f"{side.name} <==> ({unparse(other)})"


def _without_true(e: Expr) -> Expr:
    """`true <== P` and `P ==> true` are P's shape with nothing said: P."""
    if isinstance(e, Binary) and e.op in ("==>", "<=="):
        premise, conclusion = (e.left, e.right) if e.op == "==>" else (e.right, e.left)
        if isinstance(conclusion, Lit) and conclusion.value == BoolV(True):
            return premise
    return e


def _distinct(ctx: Context) -> Iterator[str]:
    """A sequence or array output's elements are distinct."""
    for name, t in ctx.outputs.items():
        if isinstance(t, SeqT | StringT):
            yield f"forall i, j :: 0 <= i < j < |{name}| ==> {name}[i] != {name}[j]"
        elif isinstance(t, ArrayT):
            yield f"forall i, j :: 0 <= i < j < {name}.Length ==> {name}[i] != {name}[j]"


_SCALARS = (IntT, NatT, BoolT, CharT, RealT)


def _equals_input(ctx: Context) -> Iterator[str]:
    """A scalar output equals one of the inputs of its type."""
    for name, t in ctx.outputs.items():
        if isinstance(t, _SCALARS):
            for p, pt in ctx.inputs.items():
                if pt == t or {type(pt), type(t)} <= {IntT, NatT}:
                    yield f"{name} == {p}"


def _size(name: str, t: DafnyType) -> str | None:
    if isinstance(t, SeqT | StringT):
        return f"|{name}|"
    if isinstance(t, ArrayT):
        return f"{name}.Length"
    return None


def _length(ctx: Context) -> Iterator[str]:
    """A sequence or array output as long as a sequence or array input."""
    for name, t in ctx.outputs.items():
        out = _size(name, t)
        for p, pt in ctx.inputs.items():
            inp = _size(p, pt)
            if out and inp:
                yield f"{out} == {inp}"


def _tight(ctx: Context) -> Iterator[str]:
    """An inequality between an output and another term (`r <= E`) gives the equality (`r == E`): kept only when
    every test meets the inequality with equality (the evaluator's filter sees to that)."""
    for e in ctx.ensures:
        if isinstance(e, Binary) and e.op in ("<=", ">=", "<", ">"):
            pairs = [(e.left, e.right)]
        elif isinstance(e, Chain):
            pairs = list(zip(e.operands, e.operands[1:], strict=False))
        else:
            continue
        for a, b in pairs:
            for side, other in ((a, b), (b, a)):
                if isinstance(side, Name) and side.name in ctx.outputs:
                    yield f"{side.name} == {unparse(other)}"


Template = Callable[[Context], Iterator[str]]
TEMPLATES: tuple[tuple[str, Template], ...] = (
    ("converse", _converse),
    ("iff", _iff),
    ("distinct", _distinct),
    ("equals-input", _equals_input),
    ("length", _length),
    ("tight-bound", _tight),
)


def context(method: Decl) -> Context:
    ensures = []
    for text in method.clause_texts("ensures"):
        try:
            ensures.append(parse_expr(text))
        except ExprError:
            continue
    return Context(method, tuple(ensures), {p.name: p.type for p in method.returns},
                   {p.name: p.type for p in method.params})


def candidates(file: DafnyFile, method: Decl, cases: Sequence[TestCase], extra: Sequence[Candidate] = ()) -> list[
        Candidate]:
    """The templates' candidates (then `extra`, an external suggester's), without repeats, without clauses the spec
    already has, and without any the evaluator shows false on a test's expected output; at most MAX_CANDIDATES."""
    ctx = context(method)
    have = {unparse(e) for e in ctx.ensures}
    seen: set[str] = set()
    out: list[Candidate] = []
    made = [Candidate(text, name) for name, template in TEMPLATES for text in template(ctx)]
    for cand in [*made, *extra]:
        try:
            canonical = unparse(parse_expr(cand.clause))
        except ExprError:
            continue  # not an expression this tool reads: never offered
        if canonical in have or canonical in seen:
            continue
        seen.add(canonical)
        if all(_may_hold(file, method, canonical, case) for case in cases):
            out.append(Candidate(canonical, cand.template))
        if len(out) >= MAX_CANDIDATES:
            break
    return out


def _may_hold(file: DafnyFile, method: Decl, clause: str, case: TestCase) -> bool:
    """False only when the evaluator shows the clause false on the case's inputs and expected output."""
    if case.post or len(case.expected) != len(method.returns):
        return True  # an in-place case's state after the call is not the outputs: left to the verifier
    env: dict[str, Value] = {p.name: v for p, v in zip(method.params, case.inputs, strict=False)}
    env.update({p.name: v for p, v in zip(method.returns, case.expected, strict=True)})
    types = {p.name: p.type for p in (*method.params, *method.returns)}
    try:
        value = evaluate(file.seen_from(method.container), clause, env, types=types)
    except NoValue:
        return True
    return not (isinstance(value, BoolV) and not value.v)
