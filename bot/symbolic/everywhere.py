"""Determinacy on every input: does a method's spec determine its outputs for every input its `requires` admits?
Pure code (the programs, and what their results prove); bot/symbolic/everywhere_run.py asks the verifier.

One program holds two copies of the outputs under one input and asks `Post(i, o1) && Post(i, o2) ==> o1 == o2`
(for sequence outputs also up to order, `multiset(o1) == multiset(o2)`, and as a set). The spec is stated as two
predicates declared beside the program, in the method's own parameter names, so no clause is rewritten:

    predicate P_Pre(x: int) { <requires, conjoined> }
    predicate P_Post(x: int, r: int) requires P_Pre(x) { <ensures, conjoined> }
    method P(x: int, o1_r: int, o2_r: int) requires P_Pre(x) requires P_Post(x, o1_r) && P_Post(x, o2_r)
      ensures o1_r == o2_r

Verified, the spec is *determined* (a proof over every input). A failure proves nothing by itself (the solver may
give up): the counterexample's input and two outputs are read, and each output is then proved accepted on that
input by the ordinary concrete acceptance program (with the precondition's) before the method is called
*not determined*. Anything else is *unknown*, with the reason. Like every verdict, these rest on the background:
they are asked only when it verified with no trusted axiom (an inconsistent background would prove everything).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from bot.dafny.decls import Decl, scope_imports
from bot.dafny.dialect import Dialect, expressions_to_2, unicode_escapes_4
from bot.dafny.lexer import LexError, TokKind, significant, tokenize
from bot.dafny.types import ArrayT, DafnyType, SeqT, StringT, contains_array, unsupported_parts
from bot.dafny.values import Value, element_type, show
from bot.symbolic import bounded
from bot.symbolic.counterexamples import readings, unreadable_types
from bot.symbolic.program import Goal as ProgramGoal
from bot.symbolic.program import Outcome, Program, ProgramKind, Result
from bot.symbolic.results import Everywhere, EverywhereStatus
from bot.symbolic.rounds import show_assignment
from bot.symbolic.witness_search import failed_proof

PREFIX = "SpecScore_Everywhere_"
FIRST, SECOND = "SpecScore_o1_", "SpecScore_o2_"  # the two copies of each output: FIRST + name, SECOND + name
# what a clause may name that makes its meaning depend on a heap the two copies would have to share
_HEAP_WORDS = frozenset({"old", "fresh", "allocated", "unchanged", "new", "reads", "modifies", "this"})
# (an array parameter is read in the one heap both copies share: the predicates say `reads` of it)


class Goal(Enum):
    # the assumptions themselves: `ensures false` must fail. Proved, the spec accepts no output on any input its
    # `requires` admits, or what the program stands on is inconsistent (a declaration no check reaches, such as a
    # constant defined by a function that does not terminate): every other question would be "proved"
    CONSISTENT = "consistent"
    EXACT = "exact"
    MULTISET = "multiset"
    SET = "set"


def unsupported(method: Decl) -> str:
    """Why the method's determinacy is not asked (a limit of this check, said as the reason), or ""."""
    if not method.returns:
        return "the method has no outputs"
    if method.generic:
        return "generic methods are not supported yet"
    if not method.in_module_only:
        return "methods of classes are not supported yet"
    for k, p in enumerate((*method.params, *method.returns)):
        if p.name.startswith("SpecScore_"):  # the questions add parameters named so (bot/symbolic/bounded.py)
            return f"`{p.name}` is a name this check uses"
        bad = unsupported_parts(p.type)
        if bad:
            return f"unsupported type `{p.type_text}` of `{p.name}` ({', '.join(bad)})"
        # an array parameter the method does not modify is read by both copies in one heap; an array output, or
        # arrays inside other values, are not supported yet
        if contains_array(p.type) and (k >= len(method.params) or not isinstance(p.type, ArrayT)):
            return f"`{p.name}` holds arrays: not supported yet"
    for c in method.clauses:
        if c.kind in ("modifies", "reads"):
            return f"the method {c.kind} the heap (`{c.kind} {c.text}`): comparing post-states is not supported yet"
        try:
            words = {t.text for t in significant(tokenize(c.text)) if t.kind is TokKind.IDENT}
        except LexError as e:
            return f"cannot read `{c.kind} {c.text}`: {e}"
        heap = sorted(words & _HEAP_WORDS)
        if heap:
            return f"`{c.kind} {c.text}` uses `{heap[0]}`: specs over the heap are not supported yet"
        clash = sorted(w for w in words if w.startswith(("SpecScore_", FIRST, SECOND)))
        if clash:
            return f"`{clash[0]}` is a name this check uses"
    return ""


def _conj(texts: Sequence[str]) -> str:
    return " && ".join(f"({t})" for t in texts) if texts else "true"


def _sequence(t: DafnyType) -> bool:
    return isinstance(t, SeqT | StringT | ArrayT)


def goals(method: Decl, consistent: bool = False) -> list[Goal]:
    """The questions asked: whether the assumptions are consistent (unless `consistent`: a test case shows it), the
    exact one, and for sequence outputs up to order and as a set."""
    return [*([] if consistent else [Goal.CONSISTENT]), Goal.EXACT,
            *([Goal.MULTISET, Goal.SET] if any(_sequence(p.type) for p in method.returns) else [])]


def _same(name: str, t: DafnyType, goal: Goal) -> str:
    a, b = FIRST + name, SECOND + name
    if goal is Goal.MULTISET and _sequence(t):
        return f"multiset({a}) == multiset({b})"
    if goal is Goal.SET and _sequence(t):
        # the bound variable typed: Dafny 2.3's type inference crashes on an untyped one over `seq<bv32>`
        # (InvalidCastException in Type.JoinX, measured)
        return f"(forall e: {element_type(t)} :: e in {a} <==> e in {b})"
    if isinstance(t, SeqT | StringT):
        # the same as `a == b` for sequences, stated element by element: the solver proves it where it does not
        # prove the equality itself (measured: `|r| == |a| && forall i :: .. r[i] == a[i] ^ b[i]`)
        return f"(|{a}| == |{b}| && forall i :: 0 <= i < |{a}| ==> {a}[i] == {b}[i])"
    return f"{a} == {b}"


def predicates(m: Decl, pre: str, post: str) -> list[str]:
    """`m`'s spec as two predicates in its own parameter names, `pre(params)` its `requires` and `post(params,
    outputs)` its `ensures` (well-formed under `pre`); array parameters are read, in the one heap of the question.
    Restated, not rewritten: the clauses mean what they mean in the method's own scope."""
    params = ", ".join(f"{p.name}: {p.type_text}" for p in m.params)
    outs = ", ".join(f"{p.name}: {p.type_text}" for p in m.returns)
    arrays = [p.name for p in m.params if isinstance(p.type, ArrayT)]
    reads = f" reads {', '.join(arrays)}" if arrays else ""
    return [f"predicate {pre}({params}){reads} {{ {_conj(m.clause_texts('requires'))} }}",
            f"predicate {post}({', '.join(x for x in (params, outs) if x)}){reads} requires "
            f"{pre}({', '.join(p.name for p in m.params)})",
            f"{{ {_conj(m.clause_texts('ensures'))} }}"]


def body(m: Decl) -> list[str]:
    """A question's body: the array parameters' contents mentioned (only then do they reach the counterexample)."""
    arrays = [p.name for p in m.params if isinstance(p.type, ArrayT)]
    return ["{", *(f"  ghost var {PREFIX}seen_{a} := {a}[..];" for a in arrays), "  assert true;", "}"]


def program(prelude: str, method: Decl, goal: Goal, dialect: Dialect, scope: str = "",
            small: bool = False, opened: Sequence[str] = (), time_limit: int | None = None) -> Program:
    """The determinacy program of `method` for `goal` (call `unsupported` first). `scope`: the modules around
    the method, which the program opens (as harnesses do). `small`: its array and sequence inputs short and
    spelled out (bot/symbolic/bounded.py), a question asked only to read a witness, never to decide."""
    params = ", ".join(f"{p.name}: {p.type_text}" for p in method.params)
    args = ", ".join(p.name for p in method.params)
    copies = ", ".join([*(f"{c}{p.name}: {p.type_text}" for c in (FIRST, SECOND) for p in method.returns),
                        *(bounded.extra_params(variables(method)) if small else [])])

    def post(copy: str) -> str:
        return f"@P@_Post({', '.join([*(p.name for p in method.params), *(copy + p.name for p in method.returns)])})"

    claim = "false" if goal is Goal.CONSISTENT else " && ".join(_same(p.name, p.type, goal) for p in method.returns)
    lines = [
        *predicates(method, "@P@_Pre", "@P@_Post"),
        f"method @P@({', '.join(x for x in (params, copies) if x)})",
        *(bounded.assumptions(variables(method)) if small else []),
        f"  requires @P@_Pre({args})",
        f"  requires {post(FIRST)} && {post(SECOND)}",
        f"  ensures {claim}",
        *body(method),
    ]
    text = "\n".join(lines)
    # a name made from the question: the same question keeps its name (and its cache entry)
    name = PREFIX + hashlib.sha256(f"{goal.value}\0{scope}\0{text}".encode()).hexdigest()[:16]
    text = text.replace("@P@", name)
    if scope:
        text = f"module {name}_Scope {{\n{scope_imports(scope, opened)}\n{text}\n}}"
    text = expressions_to_2(text, prelude) if dialect is Dialect.DAFNY2 else unicode_escapes_4(text)
    if goal is Goal.CONSISTENT:  # the assumptions must not prove `false` (asked as a vacuity check)
        return Program(prelude=prelude, name=name, method=text, kind=ProgramKind.VACUITY, goal=ProgramGoal.ACCEPT,
                       time_limit=time_limit)
    # every output the spec admits is one (a pin, over every input)
    return Program(prelude=prelude, name=name, method=text, want_model=goal is Goal.EXACT,
                   kind=ProgramKind.DETERMINACY, goal=ProgramGoal.PIN, time_limit=time_limit)


def variables(method: Decl) -> list[tuple[str, DafnyType]]:
    """The exact question's variables: the inputs, then the two copies of the outputs."""
    return [(p.name, p.type) for p in method.params] + [
        (c + p.name, p.type) for c in (FIRST, SECOND) for p in method.returns]


@dataclass(frozen=True)
class Witness:
    inputs: tuple[Value, ...]
    first: tuple[Value, ...]
    second: tuple[Value, ...]


def witness(method: Decl, result: Result, small: bool = False) -> Witness | str:
    """The input and two outputs of the exact question's counterexample (`small`: of the question with short
    inputs), or why there are none."""
    if result.outcome is not Outcome.REFUTED:
        return failed_proof(result) if result.outcome is not Outcome.VERIFIED else ""
    if not result.model:
        return "the verifier gave no counterexample"
    names = variables(method)
    n, k = len(method.params), len(method.returns)
    for values in bounded.read(result.model, names) if small else readings(result.model, names):
        first, second = values[n : n + k], values[n + k :]
        if first != second:
            return Witness(values[:n], first, second)
    unread = unreadable_types([t for _, t in names])
    if unread:
        return f"values of type {', '.join(unread)} are not read from counterexamples"
    types = ", ".join(sorted({p.type_text for p in (*method.params, *method.returns)}))
    return f"the counterexample could not be read (types: {types})"


def shown_inputs(method: Decl, values: Sequence[Value]) -> str:
    """As reports write a case's inputs (`x = -1, s = [1]`)."""
    return show_assignment([p.name for p in method.params], values, [p.type for p in method.params])


def shown_outputs(method: Decl, values: Sequence[Value]) -> str:
    if len(method.returns) == 1:
        return show(values[0], method.returns[0].type)
    return "(" + show_assignment([p.name for p in method.returns], values, [p.type for p in method.returns]) + ")"


@dataclass(frozen=True)
class Shown:
    """A proved witness of non-determinacy as reports write it: an input and two different outputs the spec was
    each proved to accept there, and where it came from ("" the solver, beyond the tests; else a test case)."""

    inputs: str
    outputs: tuple[str, str]
    case: str = ""


def shown(method: Decl, w: Witness) -> Shown:
    return Shown(shown_inputs(method, w.inputs), (shown_outputs(method, w.first), shown_outputs(method, w.second)))


VACUOUS = ("the spec accepts no output on any input its `requires` admits, or the declarations it stands on are "
           "inconsistent (`false` is proved from them): a proof over every input would prove anything")
CONSISTENCY_UNKNOWN = "whether the spec accepts any output at all is not known"


def judged(results: dict[Goal, Result], proved: Shown | None, why_not: str, consistent: bool = False) -> Everywhere:
    """The answer from the determinacy programs' results and a proved witness (None: none, `why_not` says why)."""
    probe = results.get(Goal.CONSISTENT)
    if not consistent and (probe is None or probe.outcome is Outcome.VERIFIED):
        return Everywhere(EverywhereStatus.UNKNOWN, reason=VACUOUS)
    if not consistent and probe is not None and probe.outcome is not Outcome.REFUTED:
        return Everywhere(EverywhereStatus.UNKNOWN,
                          reason=f"{CONSISTENCY_UNKNOWN} ({failed_proof(probe) or probe.outcome.value})")
    exact = results.get(Goal.EXACT)
    if exact is not None and exact.outcome is Outcome.VERIFIED:
        return Everywhere(EverywhereStatus.DETERMINED)
    partial = ""
    if results.get(Goal.MULTISET) is not None and results[Goal.MULTISET].outcome is Outcome.VERIFIED:
        partial = EverywhereStatus.UP_TO_ORDER.value
    elif results.get(Goal.SET) is not None and results[Goal.SET].outcome is Outcome.VERIFIED:
        partial = EverywhereStatus.AS_SET.value
    if proved is not None:
        where = f"test case {proved.case}" if proved.case else ""
        said = [f"it is {partial.replace('-', ' ')}" if partial else "", f"shown on {where}" if where else ""]
        return Everywhere(EverywhereStatus.NOT_DETERMINED, proved.inputs, proved.outputs,
                          "; ".join(x for x in said if x))
    if partial:
        return Everywhere(EverywhereStatus(partial), reason="the exact outputs are not proved determined")
    return Everywhere(EverywhereStatus.UNKNOWN, reason=why_not or "not proved either way")
