"""Harness generation: (spec file, method, test case, output values) -> Dafny programs.

Pure code (but for the included files `make_prelude` reads through bot.dafny.includes when given a root).
Every program is one method appended to a shared prelude (the spec file with method bodies removed),
so the engine can verify all programs of a file in one verifier run.

Inputs are stated as direct assumptions (`assume {:axiom} a.Length == 2 && a[0] == 3 && ...;`):
measured on Dafny 2.3: redundant per-index *asserts* after an assumed `a[..] == [..]` are unstable
when many harness methods share a file, while assumed per-index facts gave identical outcomes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path

from bot.dafny.decls import DafnyFile, Decl, scope_imports
from bot.dafny.dialect import Dialect, expressions_to_2, to_dialect, unicode_escapes_4
from bot.dafny.includes import blank, find_includes, included_files
from bot.dafny.lexer import LexError, Token, TokKind, matching_close, significant, tokenize
from bot.dafny.types import (
    ArrayT,
    CharT,
    DafnyType,
    MapT,
    MultisetT,
    RealT,
    SeqT,
    SetT,
    StringT,
    TupleT,
    contains_array,
    unsupported_parts,
)
from bot.dafny.values import ArrayV, MapV, MultisetV, RealV, SeqV, SetV, TupleV, Value, to_dafny
from bot.symbolic.harness.equations import solved_reals
from bot.symbolic.harness.evaluate import ground_facts
from bot.symbolic.harness.hints import fuel_attributes, hints_for
from bot.symbolic.mutants import Mutant
from bot.symbolic.program import Goal, Program, ProgramKind
from bot.testcases.bindings import modified_params
from bot.testcases.cases import TestCase, Tolerance

PREFIX = "SpecScore_"


@dataclass(frozen=True)
class HarnessOptions:
    # relative, for the real outputs the test gives no tolerance of its own; 0 compares them exactly (the test's own,
    # per output, is the case's: TestCase.tolerances, used exactly as the check states it)
    real_tolerance: float = 0.0
    ground_limit: int = 200  # most ground instances emitted per quantifier hint
    max_fuel: int = 40  # most unfoldings asked for a recursive function
    ground_budget: int = 10_000  # most evaluation steps spent on ground facts per program
    # the verifier's syntax: for Dafny 2.x the spec's clauses copied into a harness get the prelude's rewrites of
    # the expression forms it does not parse (`match` on literals, `seq(n, f)`: bot/dafny/dialect.py)
    dialect: Dialect = Dialect.DAFNY2
    # proof hints (ground facts, mentions, case splits) in the programs; off for a case asked again after a hint the
    # tool wrote failed to resolve (bot/symbolic/rounds.py): a hint never turns a case into an error
    hints: bool = True


@dataclass(frozen=True)
class Planned:
    """A program and what its lines mean: only a failure on a goal line can count against the spec."""

    program: Program
    kind: ProgramKind
    case: TestCase
    mutant: Mutant | None = None
    goal: Goal = Goal.ACCEPT
    clause: int | None = None  # the ensures clause a REJECT_CLAUSE program is about
    hint_lines: frozenset[int] = frozenset()  # lines of Program.text() the tool wrote to help the proof
    goal_lines: frozenset[int] = frozenset()  # lines where a failure means the goal was not proved
    limits: tuple[str, ...] = ()  # bounds a hint generator hit (said in the reason, never silent)


class HarnessError(ValueError):
    """The case cannot be turned into a program (a harness limitation, not a spec failure)."""


class UnsupportedType(HarnessError):
    """A parameter or result has a type the tool cannot build values of."""


_STRIP_KINDS = ("method", "lemma", "constructor")


def _is_proc(d: Decl) -> bool:
    # `function method` is a function; plain methods, lemmas and constructors are procedures
    return not d.kind.startswith(("function", "predicate")) and any(k in d.kind for k in _STRIP_KINDS)


def make_prelude(
    file: DafnyFile, dialect: Dialect, include_root: Path | None = None, spec_path: Path | None = None,
    keep_proofs: bool = False, keep_body: str = "",
) -> str:
    """The spec file with every method/lemma body removed, in the verifier's dialect, with the declarations
    of the files it includes after it.

    Bodies are removed first: they hold most of the syntax that differs between Dafny versions,
    and harnesses never call them. `include` directives are followed by bot.dafny.includes (only to files
    inside `include_root`; `spec_path` is where the spec is on disk, default `file.path`): each directive
    becomes blank space and each included file, stripped the same way, is appended once, so the spec's
    lines keep their numbers and no directive reaches the verifier. Raises IncludeError (a ValueError)
    for an include that cannot be followed, and on any include when no root is given.
    `keep_proofs`: the bodies of lemmas and ghost methods stay (the background check verifies them,
    bot/symbolic/background.py); only those of methods and constructors, implementations rather than background, go.
    `keep_body`: the qualified name of one method of `file` whose body stays (the implementation check of a
    suggested clause, bot/symbolic/suggest/search.py).
    """
    parts = (file, *included_files(file, include_root, spec_path))
    texts = [to_dialect(_strip(part, keep_proofs, keep_body if part is file else ""), dialect, path=part.path).text
             for part in parts]
    return "".join(t if t.endswith("\n") else t + "\n" for t in texts[:-1]) + texts[-1]


def _strip(file: DafnyFile, keep_proofs: bool = False, keep_body: str = "") -> str:
    """`file`'s source with procedure bodies (but lemmas' with `keep_proofs`) removed and include directives
    blanked, line numbers unchanged."""
    # blanking keeps every offset, so the declarations' spans still apply
    src = blank(file.source, [(i.start, i.end) for i in find_includes(file.source, file.path)])
    cuts: list[tuple[int, int]] = []
    for d in file.decls:
        if d.body is None or (keep_body and d.qualified == keep_body):
            continue
        if _is_proc(d) and not (keep_proofs and ("lemma" in d.kind or d.ghost)):
            cuts.append((d.body[0], d.body[1]))
        elif d.end > d.body[1] and src[d.body[1] : d.end].lstrip().startswith("by"):
            # `function ... by method { }`: keep the function body, drop the compiled twin
            cuts.append((d.body[1], d.end))
    out: list[str] = []
    pos = 0
    for start, end in sorted(cuts):
        if start < pos:
            continue  # nested (a class member inside a removed span)
        out.append(src[pos:start])
        # keep newlines so line numbers still match the user's file
        out.append("\n" * src.count("\n", start, end))
        pos = end
    out.append(src[pos:])
    return "".join(out)


def input_facts(expr: str, v: Value, t: DafnyType, whole: bool = True) -> list[str]:
    """Boolean facts saying that `expr` (of type t) denotes v; `whole=False`: an array by its elements only."""
    if isinstance(t, ArrayT):
        assert isinstance(v, ArrayV | SeqV)
        facts = [f"{expr}.Length == {len(v.elems)}"]
        for i, e in enumerate(v.elems):
            facts += input_facts(f"{expr}[{i}]", e, t.elem)
        if whole and v.elems and not contains_array(t.elem):
            facts.append(f"{expr}[..] == {to_dafny(SeqV(v.elems), SeqT(t.elem))}")
        return facts
    if isinstance(t, SeqT | StringT):
        assert isinstance(v, SeqV)
        elem: DafnyType = CharT() if isinstance(t, StringT) else t.elem
        facts = [f"|{expr}| == {len(v.elems)}"]
        for i, e in enumerate(v.elems):
            facts += input_facts(f"{expr}[{i}]", e, elem)
        if not contains_array(t):
            # whole-value equality makes `x in s`, `s[1..]` and multisets cheap; per-element
            # quantifiers over such values are split into cases by bot.symbolic.harness.hints (measured both ways)
            facts.append(f"{expr} == {to_dafny(v, t)}")
        return facts
    if isinstance(t, TupleT):
        assert isinstance(v, TupleV)
        out: list[str] = []
        for i, (e, et) in enumerate(zip(v.elems, t.elems, strict=True)):
            out += input_facts(f"{expr}.{i}", e, et)
        return out
    if isinstance(t, SetT | MultisetT | MapT):
        return [f"{expr} == {to_dafny(v, t)}", *_collection_facts(expr, v, t)]
    return [f"{expr} == {to_dafny(v, t)}"]


def _collection_facts(expr: str, v: Value, t: SetT | MultisetT | MapT) -> list[str]:
    """What the solver does not derive from a collection's display alone (each true of the value): its size, a
    multiset's multiplicities, a map's keys and values as sets. Without them `|s|`, `ms[x]` and `m.Values` of an
    input stay unknown (measured: `ensures v == m.Values` on a three-key map)."""
    if isinstance(t, SetT):
        assert isinstance(v, SetV)
        return [f"|{expr}| == {len(v.elems)}"]
    if isinstance(t, MultisetT):
        assert isinstance(v, MultisetV)
        counts = [f"{expr}[{to_dafny(e, t.elem)}] == {n}" for e, n in v.counts]
        return [f"|{expr}| == {len(v.elems)}", *counts]
    assert isinstance(v, MapV)
    keys = SetV(tuple(k for k, _ in v.items))
    values = SetV(tuple(x for _, x in v.items))
    return [f"|{expr}| == {len(v.items)}", f"{expr}.Keys == {to_dafny(keys, SetT(t.key))}",
            f"{expr}.Values == {to_dafny(values, SetT(t.value))}"]


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
    if isinstance(t, SeqT) and contains_array(t.elem):
        assert isinstance(v, SeqV)
        elem_text = _elem_type_text(type_text)
        stmts = []
        parts = []
        for e in v.elems:
            s, x = build_value(e, t.elem, elem_text, fresh)
            stmts += s
            parts.append(x)
        return stmts, "[" + ", ".join(parts) + "]"
    if contains_array(t):
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


def refining_reason(file: DafnyFile, method: Decl) -> str:
    """Why no program states `method`'s spec, when it is a method of a module that refines another (it inherits
    clauses a restatement of its own would leave out: its verdicts would be about a weaker spec), or ""."""
    module = file.refining(method.container)
    return (f"a method of module `{module}`, which refines another: the clauses it inherits are not read, so no "
            "program would state its whole spec") if module else ""


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


def _assumptions(method: Decl, case: TestCase, by_elements: frozenset[str] = frozenset()) -> list[str]:
    """The input facts; the arrays named in `by_elements` are stated by their elements only."""
    if len(case.inputs) != len(method.params):
        raise HarnessError(
            f"the case has {len(case.inputs)} inputs, `{method.name}` has {len(method.params)} parameters"
        )
    lines = []
    arrays: list[tuple[str, DafnyType]] = []
    positions: list[int] = []  # each array's parameter index
    for k, (p, v) in enumerate(zip(method.params, case.inputs, strict=True)):
        facts = input_facts(p.name, v, p.type, whole=p.name not in by_elements)
        lines.append(f"  assume {{:axiom}} {' && '.join(facts)};")
        if isinstance(p.type, ArrayT):
            arrays.append((p.name, p.type))
            positions.append(k)
    # what the test says of the arrays' identities, no more: one array passed twice is one array, arrays it
    # allocated apart are distinct, and the others may or may not be the same
    said = {(i, j): how for i, j, how in case.arrays} if case.arrays is not None else None
    for i, (a, ta) in enumerate(arrays):
        for j, (b, tb) in enumerate(arrays[i + 1 :], i + 1):
            if ta != tb:
                continue
            how = "distinct" if said is None else said.get((positions[i], positions[j]), "unknown")
            if how == "same":
                lines.append(f"  assume {{:axiom}} {a} == {b};")
            elif how == "distinct":
                lines.append(f"  assume {{:axiom}} {a} != {b};")
    return lines


def _module_scope(method: Decl) -> str:
    """The modules around the method (`A.B`), whose names its harness opens; "" at top level."""
    return ".".join(p.split()[-1] for p in method.container.split(".") if p.startswith("module "))


_BINDERS = frozenset({"forall", "exists", "var", "set", "iset", "map", "imap"})


def _bound_names(tokens: Sequence[Token]) -> set[str]:
    """Names an expression binds (quantifiers, set and map comprehensions, `var`, lambdas), over-approximated."""
    bound: set[str] = set()
    for i, tok in enumerate(tokens):
        if tok.text in _BINDERS:
            j = i + 1
            while j < len(tokens) and tokens[j].text not in ("::", ":=", ":|", "|", ";"):
                if tokens[j].kind is TokKind.IDENT:
                    bound.add(tokens[j].text)
                j += 1
        elif tok.text == "=>":
            j = i - 1
            while j >= 0 and tokens[j].text not in ("(",) and tokens[j].kind in (TokKind.IDENT, TokKind.OP):
                if tokens[j].kind is TokKind.IDENT:
                    bound.add(tokens[j].text)
                if tokens[j].text not in (",", ")", ":") and tokens[j].kind is TokKind.OP:
                    break
                j -= 1
    return bound


def _class_constants(file: DafnyFile, method: Decl) -> set[str]:
    """The constants (`const K`, `static const K`) declared in the body of the class or trait holding `method`."""
    try:
        tokens = significant(tokenize(file.source))
    except LexError:
        return set()
    for i, tok in enumerate(tokens):
        if tok.start > method.start:
            break
        if tok.text not in ("class", "trait"):
            continue
        opening = next((j for j in range(i + 1, len(tokens)) if tokens[j].text == "{"), -1)
        closing = matching_close(tokens, opening) if opening >= 0 else -1
        if opening < 0 or closing < 0 or not tokens[opening].start < method.start < tokens[closing].start:
            continue
        # the innermost class around the method: its own constants, not those of a class nested in it
        inner = _class_constants_between(tokens, opening, closing)
        if inner is not None:
            return inner
    return set()


def _class_constants_between(tokens: Sequence[Token], opening: int, closing: int) -> set[str] | None:
    names: set[str] = set()
    depth = 0
    for j in range(opening + 1, closing):
        text = tokens[j].text
        if text in ("{", "{:"):
            depth += 1
        elif text == "}":
            depth -= 1
        elif depth == 0 and text == "const" and j + 1 < closing and tokens[j + 1].kind is TokKind.IDENT:
            names.add(tokens[j + 1].text)
    return names


def _in_own_scope(file: DafnyFile, method: Decl) -> Decl:
    """The method with its clauses written so that they mean at top level (or in its modules, which the harness
    opens) what they mean in its class or trait: a name of a member of that class is qualified (`C.Inc`), so a
    top-level declaration of the same name cannot take its place. A member name the clause binds itself (a
    quantified variable) cannot be told apart here: such a method is not supported (HarnessError)."""
    if method.in_module_only:
        return method
    cls = method.container.split(".")[-1].split()[-1]
    members = {d.name for d in file.decls if d.container == method.container and d is not method}
    own = {p.name for p in (*method.params, *method.returns)}
    members |= _class_constants(file, method) - own  # the parser keeps no declaration for a constant
    inherited = _inherited_names(file, method)
    clauses = []
    for c in method.clauses:
        try:
            toks = significant(tokenize(c.text))
        except LexError as e:
            raise HarnessError(f"cannot read the clause `{c.text}`: {e}") from e
        clash = _bound_names(toks) & members
        if clash:
            raise UnsupportedType(f"`{sorted(clash)[0]}` names both a member of {cls} and a variable of the clause "
                                  f"`{c.kind} {c.text}`")
        named = sorted(t.text for i, t in enumerate(toks) if t.kind is TokKind.IDENT and t.text not in own | members
                       and (t.text in inherited or inherited is _ANY_NAME) and not (i > 0 and toks[i - 1].text == "."))
        if named:
            raise UnsupportedType(f"`{named[0]}` may name a member {cls} inherits from a trait (`{c.kind} {c.text}`): "
                                  "the harness would read it as another declaration of that name")
        out, pos = [], 0
        for i, tok in enumerate(toks):
            if (tok.kind is TokKind.IDENT and tok.text in members and tok.text not in own
                    and not (i > 0 and toks[i - 1].text == ".")):
                out += [c.text[pos : tok.start], f"{cls}.{tok.text}"]
                pos = tok.end
        clauses.append(replace(c, text="".join(out) + c.text[pos:]))
    return replace(method, clauses=tuple(clauses))


_ANY_NAME = frozenset({"*"})


def _inherited_names(file: DafnyFile, method: Decl) -> frozenset[str]:
    """Names a clause of a method of a class that `extends` a trait may mean as an inherited member: the members
    of every trait of the file (which the clause's unqualified name means in Dafny, where a top-level declaration
    of that name would take its place in the harness); every name ("*") when a trait it extends is not declared
    in this file. Empty for a class that extends nothing."""
    holders = [o for o in file.others if o.kind in ("class", "trait") and o.start < method.start < o.end]
    if not holders:
        return frozenset()
    holder = max(holders, key=lambda o: o.start)
    try:
        header = [t.text for t in significant(tokenize(file.source[holder.start : holder.header_end]))]
    except LexError:
        return _ANY_NAME
    if "extends" not in header:
        return frozenset()
    traits = {o.name.split(".")[-1] for o in file.others if o.kind == "trait"}
    extended = {w for w in header[header.index("extends") + 1 :] if w[:1].isalpha() or w[:1] == "_"}
    if not extended <= traits:
        return _ANY_NAME
    inside = [o for o in file.others if o.kind == "trait"]
    return frozenset(d.name for d in (*file.decls, *file.others)
                     if any(t.start < d.start < t.end for t in inside) and d is not method)


def _hash_name(kind: ProgramKind, goal: Goal, text: str) -> str:
    digest = hashlib.sha256(f"{kind.value}\0{goal.value}\0{text}".encode()).hexdigest()[:16]
    return f"{PREFIX}{digest}"  # what the program asks is its `kind` and `goal`, not a part of its name


_PLAIN, _HINT, _GOAL = "plain", "hint", "goal"
_SELECTOR = f"{PREFIX}k"  # the parameter choosing the branch of a conjoined rejection (CaseHarness.rejections)


def _program(
    prelude: str,
    kind: ProgramKind,
    goal: Goal,
    header: str,
    attrs: str,
    spec: list[tuple[str, str]],
    body: list[tuple[str, str]],
    scope: str = "",
    dialect: Dialect = Dialect.DAFNY2,
    opened: Sequence[str] = (),
) -> tuple[Program, frozenset[int], frozenset[int]]:
    """The program, and the lines of its text that are hints and goals.

    Spec and body lines are tagged: a failure on a hint line is the tool's, never the spec's.
    Dafny 2.3 reports nothing for a method without proof obligations (no ensures, scalar inputs):
    a closing `assert true` always leaves one, so every program gets an outcome. A method declared in
    a module (`scope`) is tested from a module of its own that opens it, so the names the spec uses
    resolve as they do in the spec.
    """
    # Dafny 2.3's /xml report places a failed postcondition on the opening brace, its console output
    # on the closing one: both are goal lines
    parts: list[tuple[str, str]] = [*spec, ("{", _GOAL), *body, ("  assert true;", _PLAIN), ("}", _GOAL)]
    rest = "\n".join(text for text, _ in parts)
    # the name is a hash of the rest, so an unchanged program keeps its name (and cache entry)
    # however cases are added or reordered
    imports = scope_imports(scope, opened) if scope else ""
    name = _hash_name(kind, goal, imports + "\0" + header + attrs + rest)
    head = header.replace("method @NAME@", f"method {attrs}{name}", 1).replace("@HAVOC@", f"{name}_Havoc")
    rest = rest.replace("@HAVOC@", f"{name}_Havoc")
    if scope:
        head = f"module {name}_Scope {{\n{imports}\n{head}"
        rest += "\n}"
    method = head + "\n" + rest
    if dialect is Dialect.DAFNY2:
        # line numbers unchanged; a `seq(n, f)` gets a function of this program's own (programs share a file)
        method = expressions_to_2(method, prelude, seq_name=f"{name}_SeqInit")
    else:
        method = unicode_escapes_4(method)
    line = prelude.rstrip().count("\n") + 4 + head.count("\n")  # first line after the header
    hints: set[int] = set()
    goals: set[int] = set()
    for text, tag in parts:
        span = range(line, line + text.count("\n") + 1)
        if tag == _HINT:
            hints.update(span)
        elif tag == _GOAL:
            goals.update(span)
        line = span.stop
    return Program(prelude=prelude, name=name, method=method, kind=kind, goal=goal), frozenset(hints), frozenset(goals)


def _tagged(lines: Sequence[str], tag: str) -> list[tuple[str, str]]:
    return [(text, tag) for text in lines]


def _conj(texts: Sequence[str]) -> str:
    return " && ".join(f"({t})" for t in texts) if texts else "true"


@dataclass(frozen=True)
class _Help:
    """What the verifier gets besides the question, for one program."""

    facts: tuple[str, ...]  # ground facts (`  assert ...;`), true by evaluation of the concrete values
    mentions: tuple[str, ...]  # tautologies whose terms the solver needs (witnesses, unfoldings)
    splits: tuple[str, ...]  # case-split statements that prove a clause outright: acceptance only
    limits: tuple[str, ...]

    def body(self, accepting: bool) -> list[tuple[str, str]]:
        lines = _tagged(self.facts, _HINT)
        if accepting:
            # a case split restates its clause: its failure is the clause's, so it is a goal line
            lines += _tagged([f"  assert {m};" for m in self.mentions], _HINT) + _tagged(self.splits, _GOAL)
        return lines

    def claim(self, claim: str, accepting: bool) -> str:
        """A rejection carries its mentions inside the goal: there the verifier does not check their
        well-formedness, and an instance may index past the end of a wrong (shorter) output."""
        if accepting or not self.mentions:
            return claim
        # a conjunction, not an implication: a mention that is not a tautology must fail the goal,
        # never make it hold vacuously
        return f"{_conj(self.mentions)} && {claim}"


class CaseHarness:
    """Programs about one test case: each states the inputs and asks one question of the spec.

    Built once per case; every program shares the input assumptions, the fuel attributes and the
    way hints are made, so acceptance and rejection are asked under exactly the same facts.
    """

    def __init__(
        self, prelude: str, file: DafnyFile, method: Decl, case: TestCase, options: HarnessOptions
    ) -> None:
        _check_supported(method)
        refined = refining_reason(file, method)
        if refined:
            raise UnsupportedType(refined)
        method = _in_own_scope(file, method)
        self.prelude, self.file, self.method, self.case, self.options = prelude, file, method, case, options
        self.seen = file.seen_from(method.container)  # the functions the clauses' names mean, for evaluation
        self.inputs = {p.name: v for p, v in zip(method.params, case.inputs, strict=False)}
        self.types = {p.name: p.type for p in (*method.params, *method.returns)}
        every_value = [*case.inputs, *case.expected, *(v for _, v in case.post)]
        self.attrs = fuel_attributes(file, method, every_value, options.max_fuel)
        self.assume = _tagged(_assumptions(method, case), _PLAIN)
        self.requires = _clauses(method, ("requires",))
        self.modifies = _clauses(method, ("modifies",))
        self.req_texts = method.clause_texts("requires")
        self.ens_texts = method.clause_texts("ensures")

    def _help(self, texts: Sequence[str], env: dict[str, Value]) -> _Help:
        if not self.options.hints:
            return _Help((), (), (), ())
        stmts = hints_for(self.seen, self.method, texts, env, self.options.ground_limit)
        facts = ground_facts(self.seen, texts, env, self.inputs, self.types, self.options.ground_budget)
        splits: list[str] = []
        mentions: list[str] = []
        depth = 0
        for line in stmts:
            if depth or line.startswith("  forall"):
                splits.append(line)
                depth += line.count("{") - line.count("}")
            elif line.startswith("  assert ") and line.endswith(";"):
                mentions.append(line[len("  assert "):-1])
        return _Help(facts.statements, tuple(mentions), tuple(splits), facts.limits)

    def _planned(
        self,
        kind: ProgramKind,
        goal: Goal,
        header: str,
        spec: list[tuple[str, str]],
        body: list[tuple[str, str]],
        *,
        attrs: str | None = None,
        mutant: Mutant | None = None,
        clause: int | None = None,
        limits: tuple[str, ...] = (),
    ) -> Planned:
        scope = _module_scope(self.method)
        prog, hints, goals = _program(
            self.prelude, kind, goal, header, self.attrs if attrs is None else attrs, spec, body, scope,
            self.options.dialect, self.file.opened_in(self.method.container),
        )
        return Planned(prog, kind, self.case, mutant, goal, clause, hints, goals, limits)

    def precondition(self, goal: Goal, clause: int | None = None) -> Planned | None:
        """Do the inputs satisfy `requires` (ACCEPT), or violate it (REJECT; with `clause`, that `requires` clause
        alone: which one rejects the inputs)? None without requires."""
        if not self.req_texts:
            return None
        texts = self.req_texts if clause is None else [self.req_texts[clause]]
        help = self._help(texts, dict(self.inputs))
        claim = _conj(texts)
        accepting = goal is Goal.ACCEPT
        ensures = f"  ensures {help.claim(claim if accepting else f'!({claim})', accepting)}"
        header = _signature(self.method, "@NAME@", False)
        body = [*self.assume, *help.body(accepting)]
        return self._planned(ProgramKind.PRECONDITION, goal, header, [(ensures, _GOAL)], body, clause=clause,
                             limits=help.limits)

    def vacuity(self) -> Planned:
        header = _signature(self.method, "@NAME@", False)
        spec = _tagged(self.requires + self.modifies, _PLAIN)
        body = [*self.assume, ("  assert false;", _GOAL)]
        return self._planned(ProgramKind.VACUITY, Goal.ACCEPT, header, spec, body, attrs="")

    def _havoc(self, indexes: Sequence[int]) -> tuple[list[str], list[tuple[str, str]]]:
        """Declarations and calls of body-less methods that leave these array parameters arbitrary."""
        decls, calls = [], []
        for idx in indexes:
            p = self.method.params[idx]
            decls.append(f"method @HAVOC@{idx}({p.name}: {p.type_text}) modifies {p.name}")
            calls.append((f"  @HAVOC@{idx}({p.name});", _PLAIN))
        return decls, calls

    def _unstated(self) -> list[int]:
        """The arrays the method modifies whose state after the call the test does not give: after the call they
        are arbitrary in every program (not unchanged, which the test never said)."""
        given = {idx for idx, _ in self.case.post}
        return [i for i in modified_params(self.method)
                if i not in given and isinstance(self.method.params[i].type, ArrayT)]

    @property
    def unstated_note(self) -> str:
        """What the case's note says of the arrays the test leaves open after the call ("" when none)."""
        names = [f"`{self.method.params[i].name}`" for i in self._unstated()]
        if not names:
            return ""
        return f"the state of {', '.join(names)} after the call is not given by the test: arbitrary in every program"

    def _after_call(self) -> tuple[str, list[tuple[str, str]]]:
        """The program's header and the body's first lines: the inputs, then the call's effect on the arrays whose
        state after it the test leaves open."""
        decls, calls = self._havoc(self._unstated())
        return "\n".join([*decls, _signature(self.method, "@NAME@", True)]), [*self.assume, *calls]

    def consistency(self) -> Planned:
        """Is `false` provable once the spec is assumed of the expected output? It must not be: an inconsistent
        background (trusted axioms whose terms the `ensures` brings in) makes every claim provable."""
        header, start = self._after_call()
        header = "\n".join([*_arbitrary_references(self.method, self.case.unchecked)[0], header])
        body = [
            *start,
            *_tagged(_outputs(self.method, self.case, self.case.expected, self.case.post, arbitrary=True), _PLAIN),
            *([(f"  assume {{:axiom}} {_conj(self.ens_texts)};", _PLAIN)] if self.ens_texts else []),
            ("  assert false;", _GOAL),
        ]
        spec = _tagged(self.requires + self.modifies, _PLAIN)
        return self._planned(ProgramKind.VACUITY, Goal.ACCEPT, header, spec, body)

    def output(
        self,
        goal: Goal,
        expected: tuple[Value, ...],
        post: tuple[tuple[int, Value], ...],
        *,
        mutant: Mutant | None = None,
        clause: int | None = None,
    ) -> Planned:
        """Accept or reject concrete outputs (the expected ones, or a mutant's)."""
        kind = ProgramKind.CORRECTNESS if mutant is None else ProgramKind.MUTANT
        accepting = goal in (Goal.ACCEPT, Goal.ACCEPT_CLAUSE)
        env = self._output_env(expected, post, accepting)
        prop = [self.case.property] if self.case.property else []
        texts, assume = [*self.ens_texts, *prop], self.assume
        if goal is Goal.ACCEPT_CLAUSE:
            if clause is None or not 0 <= clause < len(texts):
                raise HarnessError(f"no ensures clause #{clause} to accept alone")
            texts = [self.ens_texts[clause]]
            # Measured (Dafny 2.3, an in-place array spec with `multiset(arr[..]) == multiset(old(arr[..]))`):
            # that clause alone took 19.8 s or timed out at 20 s when the array's old state was also assumed as a
            # whole literal (`arr[..] == [..]`), and 0.25-0.6 s with its elements only: here the arrays the
            # program assigns (their state after the call) are stated by their elements
            assigned = frozenset(self.method.params[idx].name for idx, _ in post)
            assume = _tagged(_assumptions(self.method, self.case, assigned), _PLAIN)
        help = self._help(texts, env)
        header, start = self._after_call()
        if not accepting and _array_outputs(self.method, self.case):
            # a rejection holds for every array with the expected contents, not only for a new one
            header = "\n".join([*_array_output_decls(self.method, self.case), header])
        if not accepting:
            header = "\n".join([*_arbitrary_references(self.method, self.case.unchecked)[0], header])
        body = [
            *assume,
            *start[len(self.assume):],
            *_tagged(_outputs(self.method, self.case, expected, post, by_contents=not accepting), _PLAIN),
            # an unchecked output is arbitrary in a rejection: no fact of the value it has in `expected`
            *_tagged(_output_facts(self.method, expected, () if accepting else self.case.unchecked), _HINT),
            *help.body(accepting),
        ]
        if goal is Goal.ACCEPT_CLAUSE:
            ensures = [(f"  ensures {texts[0]}", _GOAL)]
        elif accepting:
            # a property expectation is one more clause the output must meet
            ensures = _tagged(_clauses(self.method, ("ensures",)) + [f"  ensures {p}" for p in prop], _GOAL)
        else:
            assert goal in (Goal.REJECT, Goal.REJECT_CLAUSE)
            rejected = _conj([*self.ens_texts, *prop]) if clause is None else self.ens_texts[clause]
            ensures = [(f"  ensures {help.claim(f'!({rejected})', False)}", _GOAL)]
        spec = _tagged(self.requires + self.modifies, _PLAIN) + ensures
        return self._planned(kind, goal, header, spec, body, mutant=mutant, clause=clause, limits=help.limits)

    def _output_env(self, expected: tuple[Value, ...], post: tuple[tuple[int, Value], ...],
                    accepting: bool) -> dict[str, Value]:
        """The values the facts of an output program may use: the inputs, the outputs, the post-states."""
        env = dict(self.inputs)
        # an output the test does not check is arbitrary in a rejection: no fact may use the placeholder value
        env.update({p.name: v for k, (p, v) in enumerate(zip(self.method.returns, expected, strict=False))
                    if accepting or k not in self.case.unchecked})
        for idx, v in post:
            env[self.method.params[idx].name] = v
        for idx in self._unstated():
            # arbitrary after the call: its state before it says nothing of its state after (`old(..)` still does)
            env.pop(self.method.params[idx].name, None)
        return env

    def rejections(self, outputs: Sequence[tuple[tuple[Value, ...], tuple[tuple[int, Value], ...]]]) -> Planned:
        """One program proving the rejection of every one of `outputs` (each as `output`'s expected and post):
        a branch per output, chosen by an extra parameter (`SpecScore_k`, 0 to n - 1), each assigning its output
        under the facts its own rejection program would have, and a postcondition per branch,
        `ensures SpecScore_k == i ==> !(E1 && ... && En)` with that program's mentions. Verified, it proves each
        rejection (each branch is the path of one value of the parameter); otherwise it proves nothing, and each
        is asked alone. The claims are postconditions, as in `output`: there the verifier does not check their
        well-formedness, and a mention may index past the end of a shorter output (in an `assert` it would fail)."""
        decls, start = self._havoc(self._unstated())
        if _array_outputs(self.method, self.case):
            decls = [*_array_output_decls(self.method, self.case), *decls]
        decls = [*_arbitrary_references(self.method, self.case.unchecked)[0], *decls]
        params = ", ".join([*(f"{p.name}: {p.type_text}" for p in self.method.params), f"{_SELECTOR}: int"])
        returns = ", ".join(f"{p.name}: {p.type_text}" for p in self.method.returns)
        header = "\n".join([*decls, f"method @NAME@({params})" + (f" returns ({returns})" if returns else "")])
        prop = [self.case.property] if self.case.property else []
        rejected = _conj([*self.ens_texts, *prop])
        body = [*self.assume, *start]
        ensures: list[tuple[str, str]] = []
        limits: list[str] = []
        for k, (expected, post) in enumerate(outputs):
            help = self._help([*self.ens_texts, *prop], self._output_env(expected, post, accepting=False))
            limits += help.limits
            # the last branch is an `else` (the selector's range makes it branch n - 1): every path assigns the
            # outputs, as Dafny 4's definite assignment of an array out-parameter asks
            opening = (f"  if {_SELECTOR} == {k} {{" if k == 0 else "  } else {" if k == len(outputs) - 1
                       else f"  }} else if {_SELECTOR} == {k} {{")
            branch = [
                *_tagged(_outputs(self.method, self.case, expected, post, by_contents=True), _PLAIN),
                *_tagged(_output_facts(self.method, expected, self.case.unchecked), _HINT),
                *help.body(False),
            ]
            body += [(opening, _PLAIN), *((f"  {line}", tag) for line, tag in branch)]
            ensures.append((f"  ensures {_SELECTOR} == {k} ==> ({help.claim(f'!({rejected})', False)})", _GOAL))
        body.append(("  }", _PLAIN))
        chosen = f"  requires 0 <= {_SELECTOR} < {len(outputs)}"
        spec = _tagged([*self.requires, chosen, *self.modifies], _PLAIN) + ensures
        return self._planned(ProgramKind.MUTANT, Goal.REJECT, header, spec, body, limits=tuple(dict.fromkeys(limits)))

    def pin(self, goal: Goal, clauses: int | None = None) -> Planned | None:
        """Does the spec admit only the expected output on these inputs (PIN), or only outputs with the
        expected elements in some order (PIN_MULTISET; None when no output is a sequence or array)?
        With `clauses`, only the first that many ensures clauses are assumed: proved, the pin holds of the
        whole postcondition too (it admits no more than its part); failed, it says nothing, and gives no model.

        The outputs are left arbitrary (unassigned out-parameters; arrays changed in place are havocked
        by a call of a body-less method), the spec is assumed of them, and the goal says they equal the
        expected values. A failure proves nothing: the solver may give up. Only a witness confirmed by
        an ordinary acceptance program shows the spec is weak (see bot/symbolic/rounds.py).
        """
        m, case = self.method, self.case
        targets: list[tuple[str, DafnyType, Value]] = [
            (p.name, p.type, v) for k, (p, v) in enumerate(zip(m.returns, case.expected, strict=True))
            if k not in case.unchecked  # the pin check pins what the test checks
        ]
        targets += [(m.params[idx].name, m.params[idx].type, v) for idx, v in case.post]
        order_free = goal in (Goal.PIN_MULTISET, Goal.PIN_SET)
        if order_free and not any(isinstance(t, SeqT | StringT | ArrayT) for _, t, _ in targets):
            return None
        mode = {Goal.PIN_MULTISET: "multiset", Goal.PIN_SET: "set"}.get(goal, "")
        claims = [self._pin_claim(name, t, v, mode) for name, t, v in targets]
        if case.property and goal is Goal.PIN:
            claims.append(f"({case.property})")  # determined: every output the spec admits has the property
        if not claims:
            return None
        havoc, calls = self._havoc(sorted([idx for idx, _ in case.post] + self._unstated()))
        fresh_decls, fresh_calls = _arbitrary_references(m, range(len(m.returns)))
        body = [*self.assume, *calls, *fresh_calls]
        havoc = [*havoc, *fresh_decls]
        assumed = self.ens_texts if clauses is None else self.ens_texts[:clauses]
        if assumed:
            body.append((f"  assume {{:axiom}} {_conj(assumed)};", _PLAIN))
        body += _tagged(self._help(self.req_texts, dict(self.inputs)).facts, _HINT)
        if goal is Goal.PIN_MULTISET:
            # distinct elements and a pinned set pin the multiset: the step the solver does not take alone
            body += _tagged(_same_elements_steps(targets), _HINT)
            havoc = [*havoc, SAME_ELEMENTS_LEMMA]
        header = "\n".join([*havoc, _signature(m, "@NAME@", True)])
        spec = _tagged(self.requires + self.modifies, _PLAIN) + [(f"  ensures {' && '.join(claims)}", _GOAL)]
        planned = self._planned(ProgramKind.PIN, goal, header, spec, body)
        # the solver's counterexample to the exact pin names another output the spec may accept
        wanted = goal is Goal.PIN and clauses is None
        return replace(planned, program=replace(planned.program, want_model=True)) if wanted else planned

    def _pin_claim(self, name: str, t: DafnyType, v: Value, mode: str) -> str:
        if isinstance(t, RealT) and isinstance(v, RealV) and self._tolerates(name):
            # with a tolerance, every real within it counts as the expected output
            return self._within(name, v.v)
        return _pin_claim(name, t, v, mode)

    def _test_tolerance(self, name: str) -> Tolerance | None:
        """The test's own tolerance for out-parameter `name` (None: none, or no out-parameter of that name)."""
        k = next((k for k, p in enumerate(self.method.returns) if p.name == name), None)
        return None if k is None else self.case.tolerance_of(k)

    def _tolerates(self, name: str) -> bool:
        """A real output `name` is compared within a tolerance: the test's own for it, else the tool's relative one."""
        return self._test_tolerance(name) is not None or self.options.real_tolerance > 0

    def _bounds(self, name: str, v: Fraction) -> tuple[Fraction, Fraction]:
        own = self._test_tolerance(name)
        return (v - own.bound, v + own.bound) if own is not None else _tolerance_bounds(v, self.options.real_tolerance)

    def _within(self, name: str, v: Fraction) -> str:
        """`name` lies within its tolerance of v, exactly as the test states it: its own tolerance with its own
        operator (`abs(r - x) < e`: the open interval, `<= e`: the closed one), so that an acceptance or a pin stays
        among the outputs the test passes and a rejection covers all of them; the tool's relative one closed."""
        lo, hi = self._bounds(name, v)
        own = self._test_tolerance(name)
        op = "<" if own is not None and own.strict else "<="
        return f"{_real(lo)} {op} {name} {op} {_real(hi)}"

    def within_tolerance(self, goal: Goal) -> list[Planned]:
        """Programs asking whether some real output within the tolerance is accepted (ACCEPT_WITHIN: any
        one proved is enough) or every one is rejected (REJECT_WITHIN: one program).

        Asked only when the exact expected value is not accepted; empty when no output is a real.
        Acceptance is asked of each value the spec's equations pin down within the tolerance (solved
        from the inputs: concrete programs, no witness to find), then of `r :| lo <= r <= hi && E`.
        """
        reals = [
            (k, p, v) for k, (p, v) in enumerate(zip(self.method.returns, self.case.expected, strict=False))
            if isinstance(p.type, RealT) and isinstance(v, RealV)
        ]
        if not any(self._tolerates(p.name) for _, p, _ in reals) or self.case.post or self.case.unchecked:
            return []
        names = {p.name for _, p, _ in reals}
        fixed = [(p, v) for p, v in zip(self.method.returns, self.case.expected, strict=True) if p.name not in names]
        env = dict(self.inputs)
        env.update({p.name: v for p, v in fixed})
        bounds: list[str] = []
        within: dict[str, tuple[Fraction, Fraction]] = {}
        accepting = goal is Goal.ACCEPT_WITHIN
        for _, p, rv in reals:
            within[p.name] = self._bounds(p.name, rv.v)
            bounds.append(self._within(p.name, rv.v))
        out: list[Planned] = []
        if accepting and len(reals) == 1:
            k, p, rv = reals[0]
            lo, hi = within[p.name]
            own = self._test_tolerance(p.name)
            strict = own is not None and own.strict
            for c in solved_reals(self.seen, self.ens_texts, p.name, env, self.types):
                if (lo < c < hi if strict else lo <= c <= hi) and c != rv.v:
                    values = list(self.case.expected)
                    values[k] = RealV(c)
                    planned = self.output(Goal.ACCEPT, tuple(values), ())
                    out.append(replace(planned, goal=Goal.ACCEPT_WITHIN))
        help = self._help(self.ens_texts, env)
        lines: list[str] = []
        fresh = [0]
        for p, value in fixed:
            stmts, expr = build_value(value, p.type, p.type_text, fresh)
            lines += [f"  {s}" for s in stmts] + [f"  {p.name} := {expr};"]
        header, start = self._after_call()
        spec = _tagged(self.requires + self.modifies, _PLAIN)
        # no case splits or mentions: they would speak of the output before it is chosen
        body = [*start, *_tagged(lines, _PLAIN), *_tagged(help.facts, _HINT)]
        if goal is Goal.ACCEPT_WITHIN:
            wanted = " && ".join(bounds + [f"({t})" for t in self.ens_texts])
            body.append((f"  {', '.join(p.name for _, p, _ in reals)} :| {wanted};", _GOAL))
        else:
            # out-parameters left unassigned are arbitrary: proving the ensures proves it for all of them
            claim = " && ".join(bounds + [_conj(self.ens_texts)])
            spec.append((f"  ensures !({claim})", _GOAL))
        out.append(self._planned(ProgramKind.CORRECTNESS, goal, header, spec, body, limits=help.limits))
        return out


def _pin_claim(name: str, t: DafnyType, v: Value, mode: str = "") -> str:
    """`name` equals v (arrays: by contents); mode "multiset": has v's elements in some order; "set": has the
    elements of v and no other, in any number."""
    if isinstance(t, ArrayT | SeqT | StringT):
        assert isinstance(v, ArrayV | SeqV)
        whole, seq = _as_sequences(name, t, v)
        if mode == "multiset":
            return f"multiset({whole}) == multiset({seq})"
        if mode == "set":
            return f"(forall x :: x in {whole} <==> x in {seq})"
        if isinstance(t, ArrayT):
            return f"{name}.Length == {len(v.elems)} && {name}[..] == {seq}"
    return f"{name} == {to_dafny(v, t)}"


def _as_sequences(name: str, t: ArrayT | SeqT | StringT, v: ArrayV | SeqV) -> tuple[str, str]:
    """The output `name` and its expected value v, both as sequence expressions (`a[..]` for an array)."""
    elem: DafnyType = CharT() if isinstance(t, StringT) else t.elem
    return (f"{name}[..]" if isinstance(t, ArrayT) else name), to_dafny(SeqV(v.elems), SeqT(elem))


# Proved by induction: tests/verifier/test_pins_real.py verifies it with the real verifier (Dafny 2.x runs verify the
# harness method only, so not in every run). Each multiset pin check declares it under the program's own name and
# calls it only where its preconditions are established
SAME_ELEMENTS_LEMMA = """lemma @HAVOC@SameElements<T>(a: seq<T>, b: seq<T>)
  requires forall i, j :: 0 <= i < j < |a| ==> a[i] != a[j]
  requires forall i, j :: 0 <= i < j < |b| ==> b[i] != b[j]
  requires forall x :: x in a <==> x in b
  ensures multiset(a) == multiset(b)
  decreases |a|
{
  if |a| == 0 {
    if |b| > 0 { assert b[0] in b; }
  } else {
    var x := a[0];
    assert x in b;
    var k :| 0 <= k < |b| && b[k] == x;
    var a' := a[1..];
    var b' := b[..k] + b[k+1..];
    assert a == [x] + a';
    assert b == b[..k] + [x] + b[k+1..];
    forall y ensures y in a' <==> y in b' {
      if y in a' {
        var i :| 0 <= i < |a'| && a'[i] == y;
        assert a[i+1] == y;
        assert y in b;
        var j :| 0 <= j < |b| && b[j] == y;
        if j < k { assert b'[j] == y; } else { assert b'[j-1] == y; }
      }
      if y in b' {
        var j :| 0 <= j < |b'| && b'[j] == y;
        if j < k { assert b[j] == y; } else { assert b[j+1] == y; }
        assert y in a;
      }
    }
    forall i, j | 0 <= i < j < |b'| ensures b'[i] != b'[j] {
      var ii := if i < k then i else i + 1;
      var jj := if j < k then j else j + 1;
      assert b'[i] == b[ii] && b'[j] == b[jj];
    }
    @HAVOC@SameElements(a', b');
    calc {
      multiset(b);
      multiset(b[..k] + [x] + b[k+1..]);
      multiset(b[..k]) + multiset([x]) + multiset(b[k+1..]);
      multiset([x]) + multiset(b[..k] + b[k+1..]);
      multiset([x]) + multiset(a');
      multiset([x] + a');
      multiset(a);
    }
  }
}"""


def _same_elements_steps(targets: Sequence[tuple[str, DafnyType, Value]]) -> list[str]:
    """For each sequence or array output of distinct expected elements: when the output's elements are distinct
    and the expected set, the lemma gives the expected multiset."""
    out = []
    for name, t, v in targets:
        if not isinstance(t, ArrayT | SeqT | StringT) or not isinstance(v, ArrayV | SeqV):
            continue
        if len(set(v.elems)) != len(v.elems):
            continue  # repeated expected elements: the set does not give the multiset
        whole, seq = _as_sequences(name, t, v)
        distinct = f"(forall i, j :: 0 <= i < j < |{whole}| ==> {whole}[i] != {whole}[j])"
        out.append(f"  if {distinct} && (forall x :: x in {whole} <==> x in {seq}) "
                   f"{{ @HAVOC@SameElements({whole}, {seq}); }}")
    return out


def _output_facts(method: Decl, expected: tuple[Value, ...], skip: Sequence[int] = ()) -> list[str]:
    """Per-element facts about sequence outputs, asserted (they follow from the assignment); none about the outputs
    in `skip` (those a rejection leaves unassigned: the test does not check them)."""
    out = []
    for k, (p, v) in enumerate(zip(method.returns, expected, strict=False)):
        if k in skip:
            continue
        if isinstance(p.type, SeqT | StringT) and isinstance(v, SeqV) and v.elems and not contains_array(p.type):
            out.append(f"  assert {' && '.join(input_facts(p.name, v, p.type))};")
    return out


def mutation_target(
    method: Decl, case: TestCase
) -> tuple[tuple[Value, ...], tuple[DafnyType, ...], tuple[str, ...]]:
    """What a mutant changes: the out-parameters the test checks, then the expected post-states of in-place
    arrays."""
    checked = [k for k in range(len(method.returns)) if k not in case.unchecked]
    values = [case.expected[k] for k in checked]
    types = [method.returns[k].type for k in checked]
    names = [method.returns[k].name for k in checked]
    for idx, v in case.post:
        values.append(v)
        types.append(method.params[idx].type)
        names.append(method.params[idx].name)
    return tuple(values), tuple(types), tuple(names)


def target_tolerances(method: Decl, case: TestCase) -> tuple[Tolerance | None, ...]:
    """The test's own tolerance of each value `mutation_target` gives (None: none; the post-states have none)."""
    checked = [k for k in range(len(method.returns)) if k not in case.unchecked]
    return (*(case.tolerance_of(k) for k in checked), *(None for _ in case.post))


def split_mutant(
    method: Decl, case: TestCase, m: Mutant
) -> tuple[tuple[Value, ...], tuple[tuple[int, Value], ...]]:
    return split_values(method, case, m.values)


def split_values(
    method: Decl, case: TestCase, values: tuple[Value, ...]
) -> tuple[tuple[Value, ...], tuple[tuple[int, Value], ...]]:
    """A mutation target's values (see mutation_target) as out-parameter values and post-states; an output the
    test does not check keeps the case's value there (its witness, or a placeholder a rejection ignores)."""
    given = iter(values)
    expected = tuple(v if k in case.unchecked else next(given) for k, v in enumerate(case.expected))
    rest = list(given)
    post = tuple((idx, v) for (idx, _), v in zip(case.post, rest, strict=True))
    return expected, post


def _outputs(
    method: Decl,
    case: TestCase,
    expected: tuple[Value, ...],
    post: tuple[tuple[int, Value], ...],
    by_contents: bool = False,
    arbitrary: bool = False,
) -> list[str]:
    """Statements giving the outputs these values (and the arrays changed in place their expected states). An
    output the test does not check is left arbitrary when `by_contents` or `arbitrary`, else gets the value
    given (a witness of acceptance).

    An array output is a new array unless `by_contents`: then it is any array with these contents (a call of a
    body-less method, `@HAVOC@rK`, see `_array_outputs`), which may be an input array or a new one. The test
    gives the contents only: a rejection must hold for every array with them, an acceptance needs one."""
    if len(expected) != len(method.returns):
        raise HarnessError(
            f"the case gives {len(expected)} expected values, `{method.name}` has {len(method.returns)} outputs"
        )
    lines: list[str] = []
    fresh = [0]
    refs = dict(case.refs)
    chosen = _array_outputs(method, case) if by_contents else set()
    for k, (p, v) in enumerate(zip(method.returns, expected, strict=True)):
        if k in case.unchecked and (by_contents or arbitrary):
            # left unassigned: any value (as in the pin check), and the solver's model names it; but a reference
            # gets any array from a body-less method (see _arbitrary_references)
            lines += [text for text, _ in _arbitrary_references(method, (k,))[1]]
            continue
        if k in refs:  # the test says the output is this argument (`r == a`): exactly that
            lines.append(f"  {p.name} := {method.params[refs[k]].name};")
            continue
        if k in chosen:
            facts = " && ".join(input_facts(p.name, v, p.type))
            lines += [f"  {p.name} := @HAVOC@r{k}();", f"  assume {{:axiom}} {facts};"]
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
    return lines


def _array_outputs(method: Decl, case: TestCase) -> set[int]:
    """The outputs that are arrays (of values without arrays) the test gives by their contents: stated by them in
    rejections (an output the test says is an argument, `r == a`, is that argument)."""
    refs = {k for k, _ in case.refs}
    return {k for k, p in enumerate(method.returns)
            if isinstance(p.type, ArrayT) and not contains_array(p.type.elem)
            and k not in refs and k not in case.unchecked}


def _arbitrary_references(method: Decl, outputs: Sequence[int]) -> tuple[list[str], list[tuple[str, str]]]:
    """Declarations and calls of body-less methods that give these outputs, where they hold arrays, any value: an
    unassigned out-parameter of a reference type is taken to be allocated before the call, so a `fresh(r)` in
    the spec would be false of it and prove anything assumed after it."""
    decls, calls = [], []
    for k in outputs:
        p = method.returns[k]
        if contains_array(p.type):
            decls.append(f"method @HAVOC@a{k}() returns (x: {p.type_text})")
            calls.append((f"  {p.name} := @HAVOC@a{k}();", _PLAIN))
    return decls, calls


def _array_output_decls(method: Decl, case: TestCase) -> list[str]:
    return [f"method @HAVOC@r{k}() returns (x: {method.returns[k].type_text})"
            for k in sorted(_array_outputs(method, case))]


def _tolerance_bounds(v: Fraction, rel: float) -> tuple[Fraction, Fraction]:
    eps = Fraction(rel) * max(Fraction(1), abs(v))
    eps = eps.limit_denominator(10**9)
    return v - eps, v + eps


def _real(f: Fraction) -> str:
    return to_dafny(RealV(f), RealT())
