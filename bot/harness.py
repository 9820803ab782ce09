"""Harness generation: (spec file, method, test case, output values) -> Dafny programs.

Pure code. Every program is one method appended to a shared prelude (the spec file with method
bodies removed), so the engine can verify all programs of a file in one verifier run.

Inputs are stated as direct assumptions (`assume {:axiom} a.Length == 2 && a[0] == 3 && ...;`):
VERIFIER.md measured redundant per-index *asserts* after an assumed `a[..] == [..]` to be unstable
when many harness methods share a file, while assumed per-index facts gave identical outcomes.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

from bot.dafny.decls import DafnyFile, Decl
from bot.dafny.dialect import Dialect, to_dialect
from bot.dafny.types import (
    ArrayT,
    CharT,
    DafnyType,
    RealT,
    SeqT,
    StringT,
    TupleT,
    unsupported_parts,
)
from bot.dafny.values import ArrayV, RealV, SeqV, TupleV, Value, to_dafny
from bot.hints import fuel_attributes, hints_for
from bot.mutants import Mutant
from bot.outcomes import Program
from bot.tests_io.model import TestCase

PREFIX = "SpecScore_"


class ProgramKind(Enum):
    PRECONDITION = "precondition"  # do the inputs satisfy `requires`?
    VACUITY = "vacuity"  # are the assumptions contradictory? (`assert false` must fail)
    CORRECTNESS = "correctness"  # does the spec accept the expected output?
    MUTANT = "mutant"  # does the spec accept a wrong output?


@dataclass(frozen=True)
class HarnessOptions:
    real_tolerance: float = 0.0  # relative; 0 compares reals exactly
    ground_limit: int = 200  # most ground instances emitted per quantifier hint
    max_fuel: int = 40  # most unfoldings asked for a recursive function


@dataclass(frozen=True)
class Planned:
    program: Program
    kind: ProgramKind
    case: TestCase
    mutant: Mutant | None = None


class HarnessError(ValueError):
    """The case cannot be turned into a program (a harness limitation, not a spec failure)."""


class UnsupportedType(HarnessError):
    """A parameter or result has a type the tool cannot build values of."""


_STRIP_KINDS = ("method", "lemma", "constructor")


def _is_proc(d: Decl) -> bool:
    # `function method` is a function; plain methods, lemmas and constructors are procedures
    return not d.kind.startswith(("function", "predicate")) and any(k in d.kind for k in _STRIP_KINDS)


def make_prelude(file: DafnyFile, dialect: Dialect) -> str:
    """The spec file with every method/lemma body removed, in the verifier's dialect.

    Bodies are removed first: they hold most of the syntax that differs between Dafny versions,
    and harnesses never call them.
    """
    src = file.source
    cuts: list[tuple[int, int, str]] = []
    for d in file.decls:
        if d.body is None:
            continue
        if _is_proc(d):
            cuts.append((d.body[0], d.body[1], ""))
        elif d.end > d.body[1] and src[d.body[1] : d.end].lstrip().startswith("by"):
            # `function ... by method { }`: keep the function body, drop the compiled twin
            cuts.append((d.body[1], d.end, ""))
    out: list[str] = []
    pos = 0
    for start, end, repl in sorted(cuts):
        if start < pos:
            continue  # nested (a class member inside a removed span)
        out.append(src[pos:start])
        # keep newlines so line numbers still match the user's file
        out.append(repl + "\n" * src.count("\n", start, end))
        pos = end
    out.append(src[pos:])
    return to_dialect("".join(out), dialect).text


def input_facts(expr: str, v: Value, t: DafnyType) -> list[str]:
    """Boolean facts saying that `expr` (of type t) denotes v."""
    if isinstance(t, ArrayT):
        assert isinstance(v, ArrayV | SeqV)
        facts = [f"{expr}.Length == {len(v.elems)}"]
        for i, e in enumerate(v.elems):
            facts += input_facts(f"{expr}[{i}]", e, t.elem)
        if v.elems and not _has_array(t.elem):
            facts.append(f"{expr}[..] == {to_dafny(SeqV(v.elems), SeqT(t.elem))}")
        return facts
    if isinstance(t, SeqT | StringT):
        assert isinstance(v, SeqV)
        elem: DafnyType = CharT() if isinstance(t, StringT) else t.elem
        facts = [f"|{expr}| == {len(v.elems)}"]
        for i, e in enumerate(v.elems):
            facts += input_facts(f"{expr}[{i}]", e, elem)
        if not _has_array(t):
            # whole-value equality makes `x in s`, `s[1..]` and multisets cheap; per-element
            # quantifiers over such values are split into cases by bot.hints (measured both ways)
            facts.append(f"{expr} == {to_dafny(v, t)}")
        return facts
    if isinstance(t, TupleT):
        assert isinstance(v, TupleV)
        out: list[str] = []
        for i, (e, et) in enumerate(zip(v.elems, t.elems, strict=True)):
            out += input_facts(f"{expr}.{i}", e, et)
        return out
    return [f"{expr} == {to_dafny(v, t)}"]


def _has_array(t: DafnyType) -> bool:
    if isinstance(t, ArrayT):
        return True
    if isinstance(t, SeqT):
        return _has_array(t.elem)
    if isinstance(t, TupleT):
        return any(_has_array(e) for e in t.elems)
    return False


def build_value(v: Value, t: DafnyType, type_text: str, fresh: list[int]) -> tuple[list[str], str]:
    """Statements and an expression that construct v (fresh arrays where the type has arrays)."""
    if isinstance(t, ArrayT):
        assert isinstance(v, ArrayV | SeqV)
        elem_text = _elem_type_text(type_text)
        stmts: list[str] = []
        parts: list[str] = []
        for e in v.elems:
            s, x = build_value(e, t.elem, elem_text, fresh)
            stmts += s
            parts.append(x)
        fresh[0] += 1
        name = f"{PREFIX}a{fresh[0]}"
        if parts:
            stmts.append(f"var {name} := new {elem_text}[] [{', '.join(parts)}];")
        else:
            stmts.append(f"var {name} := new {elem_text}[0];")
        return stmts, name
    if isinstance(t, SeqT) and _has_array(t.elem):
        assert isinstance(v, SeqV)
        elem_text = _elem_type_text(type_text)
        stmts = []
        parts = []
        for e in v.elems:
            s, x = build_value(e, t.elem, elem_text, fresh)
            stmts += s
            parts.append(x)
        return stmts, "[" + ", ".join(parts) + "]"
    if _has_array(t):
        raise HarnessError(f"cannot build a value of type {t}: arrays inside tuples are not supported")
    return [], to_dafny(v, t)


def _elem_type_text(type_text: str) -> str:
    """`array<seq<int>>` -> `seq<int>`; falls back to the canonical type text."""
    s = type_text.strip()
    lt, gt = s.find("<"), s.rfind(">")
    if lt < 0 or gt < lt:
        raise HarnessError(f"cannot read the element type of `{type_text}`")
    return s[lt + 1 : gt].strip()


def _clauses(d: Decl, kinds: tuple[str, ...]) -> list[str]:
    lines = []
    for c in d.clauses:
        if c.kind in kinds:
            lines.append(f"  {c.kind} {c.text}")
    return lines


def _check_supported(method: Decl) -> None:
    for p in (*method.params, *method.returns):
        bad = unsupported_parts(p.type)
        if bad:
            raise UnsupportedType(
                f"unsupported type `{p.type_text}` of `{p.name}` (not supported: {', '.join(bad)})"
            )


def _signature(method: Decl, name: str, with_returns: bool) -> str:
    params = ", ".join(f"{p.name}: {p.type_text}" for p in method.params)
    sig = f"method {name}({params})"
    if with_returns and method.returns:
        sig += " returns (" + ", ".join(f"{p.name}: {p.type_text}" for p in method.returns) + ")"
    return sig


def _assumptions(method: Decl, case: TestCase) -> list[str]:
    if len(case.inputs) != len(method.params):
        raise HarnessError(
            f"the case has {len(case.inputs)} inputs, `{method.name}` has {len(method.params)} parameters"
        )
    lines = []
    arrays: list[tuple[str, DafnyType]] = []
    for p, v in zip(method.params, case.inputs, strict=True):
        facts = input_facts(p.name, v, p.type)
        lines.append(f"  assume {{:axiom}} {' && '.join(facts)};")
        if isinstance(p.type, ArrayT):
            arrays.append((p.name, p.type))
    # test code allocates each array afresh: rule out aliasing the solver might otherwise pick
    for i, (a, ta) in enumerate(arrays):
        for b, tb in arrays[i + 1 :]:
            if ta == tb:
                lines.append(f"  assume {{:axiom}} {a} != {b};")
    return lines


def _hash_name(kind: ProgramKind, text: str) -> str:
    digest = hashlib.sha256(f"{kind.value}\0{text}".encode()).hexdigest()[:16]
    return f"{PREFIX}{kind.value[0]}{digest}"


def _program(
    prelude: str, kind: ProgramKind, header: str, attrs: str, spec: list[str], body: list[str]
) -> Program:
    # the name is a hash of the rest, so an unchanged program keeps its name (and cache entry)
    # however cases are added or reordered
    # Dafny 2.3 reports nothing for a method without proof obligations (no ensures, scalar inputs):
    # a closing `assert true` always leaves one, so every program gets an outcome
    rest = "\n".join(spec) + "\n{\n" + "\n".join([*body, "  assert true;"]) + "\n}"
    name = _hash_name(kind, header + attrs + rest)
    head = header.replace("method @NAME@", f"method {attrs}{name}", 1)
    return Program(prelude=prelude, name=name, method=head + "\n" + rest)


def plan_case(
    prelude: str,
    file: DafnyFile,
    method: Decl,
    case: TestCase,
    mutants: list[Mutant],
    options: HarnessOptions = HarnessOptions(),
) -> list[Planned]:
    """All programs for one case: precondition check, vacuity probe, correctness, mutants."""
    _check_supported(method)
    inputs = {p.name: v for p, v in zip(method.params, case.inputs, strict=False)}
    every_value = [*case.inputs, *case.expected, *(v for _, v in case.post)]
    attrs = fuel_attributes(file, method, every_value, options.max_fuel)
    assume = _assumptions(method, case)
    requires = _clauses(method, ("requires",))
    modifies = _clauses(method, ("modifies",))
    out: list[Planned] = []

    if requires:
        req_texts = method.clause_texts("requires")
        hints = hints_for(file, method, req_texts, inputs, options.ground_limit)
        body = assume + list(hints) + [f"  assert {t};" for t in req_texts]
        prog = _program(prelude, ProgramKind.PRECONDITION, _signature(method, "@NAME@", False), attrs, [], body)
        out.append(Planned(prog, ProgramKind.PRECONDITION, case))

    vac_body = assume + ["  assert false;"]
    prog = _program(
        prelude, ProgramKind.VACUITY, _signature(method, "@NAME@", False), "", requires + modifies, vac_body
    )
    out.append(Planned(prog, ProgramKind.VACUITY, case))

    spec = requires + modifies + _clauses(method, ("ensures",))
    header = _signature(method, "@NAME@", True)
    ens_texts = method.clause_texts("ensures")

    def body_for(expected: tuple[Value, ...], post: tuple[tuple[int, Value], ...], opts: HarnessOptions) -> list[str]:
        env = dict(inputs)
        env.update({p.name: v for p, v in zip(method.returns, expected, strict=False)})
        hints = hints_for(file, method, ens_texts, env, opts.ground_limit)
        return assume + _outputs(method, case, expected, post, opts) + _output_facts(method, expected) + list(hints)

    body = body_for(case.expected, case.post, options)
    prog = _program(prelude, ProgramKind.CORRECTNESS, header, attrs, spec, body)
    out.append(Planned(prog, ProgramKind.CORRECTNESS, case))
    exact = HarnessOptions(0.0, options.ground_limit, options.max_fuel)
    for m in mutants:
        expected, post = _split_mutant(method, case, m)
        prog = _program(prelude, ProgramKind.MUTANT, header, attrs, spec, body_for(expected, post, exact))
        out.append(Planned(prog, ProgramKind.MUTANT, case, m))
    return out


def _output_facts(method: Decl, expected: tuple[Value, ...]) -> list[str]:
    """Per-element facts about sequence outputs, asserted (they follow from the assignment)."""
    out = []
    for p, v in zip(method.returns, expected, strict=False):
        if isinstance(p.type, SeqT | StringT) and isinstance(v, SeqV) and v.elems and not _has_array(p.type):
            out.append(f"  assert {' && '.join(input_facts(p.name, v, p.type))};")
    return out


def mutation_target(
    method: Decl, case: TestCase
) -> tuple[tuple[Value, ...], tuple[DafnyType, ...], tuple[str, ...]]:
    """What a mutant changes: the out-parameters, then the expected post-states of in-place arrays."""
    values = list(case.expected)
    types = [p.type for p in method.returns]
    names = [p.name for p in method.returns]
    for idx, v in case.post:
        values.append(v)
        types.append(method.params[idx].type)
        names.append(method.params[idx].name)
    return tuple(values), tuple(types), tuple(names)


def _split_mutant(
    method: Decl, case: TestCase, m: Mutant
) -> tuple[tuple[Value, ...], tuple[tuple[int, Value], ...]]:
    n = len(case.expected)
    expected = tuple(m.values[:n])
    post = tuple((idx, v) for (idx, _), v in zip(case.post, m.values[n:], strict=True))
    return expected, post


def _outputs(
    method: Decl,
    case: TestCase,
    expected: tuple[Value, ...],
    post: tuple[tuple[int, Value], ...],
    options: HarnessOptions,
) -> list[str]:
    if len(expected) != len(method.returns):
        raise HarnessError(
            f"the case gives {len(expected)} expected values, `{method.name}` has {len(method.returns)} outputs"
        )
    lines: list[str] = []
    fresh = [0]
    tolerant: list[str] = []
    for p, v in zip(method.returns, expected, strict=True):
        if isinstance(p.type, RealT) and options.real_tolerance > 0 and isinstance(v, RealV):
            tolerant.append(p.name)
            continue
        stmts, expr = build_value(v, p.type, p.type_text, fresh)
        lines += [f"  {s}" for s in stmts] + [f"  {p.name} := {expr};"]
    for idx, v in post:
        p = method.params[idx]
        if not isinstance(p.type, ArrayT):
            raise HarnessError(
                f"an expected state after the call is given for `{p.name}`, which is not an array"
            )
        pre = case.inputs[idx]
        assert isinstance(pre, ArrayV | SeqV) and isinstance(v, ArrayV | SeqV)
        if len(pre.elems) != len(v.elems):
            raise HarnessError(
                f"the expected state of `{p.name}` has {len(v.elems)} elements, the array has {len(pre.elems)}"
            )
        for i, e in enumerate(v.elems):
            stmts, expr = build_value(e, p.type.elem, _elem_type_text(p.type_text), fresh)
            lines += [f"  {s}" for s in stmts] + [f"  {p.name}[{i}] := {expr};"]
    if tolerant:
        # any value within the tolerance that the spec accepts: the verifier must show one exists
        bounds = []
        for name in tolerant:
            v = expected[[p.name for p in method.returns].index(name)]
            assert isinstance(v, RealV)
            lo, hi = _tolerance_bounds(v.v, options.real_tolerance)
            bounds.append(f"{_real(lo)} <= {name} <= {_real(hi)}")
        ens = [f"({c.text})" for c in method.clauses if c.kind == "ensures"]
        lines.append(f"  {', '.join(tolerant)} :| {' && '.join(bounds + ens)};")
    return lines


def _tolerance_bounds(v: Fraction, rel: float) -> tuple[Fraction, Fraction]:
    eps = Fraction(rel) * max(Fraction(1), abs(v))
    eps = eps.limit_denominator(10**9)
    return v - eps, v + eps


def _real(f: Fraction) -> str:
    return to_dafny(RealV(f), RealT())
