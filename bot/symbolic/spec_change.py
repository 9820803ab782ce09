"""What a pull request changes in a spec, on every input: base's and head's postconditions compared by proof.
Pure code (the programs, and what their results prove); bot/symbolic/spec_change_run.py asks the verifier.

Base's and head's spec files go side by side, each in a module of its own, so that helpers the pull request
changed count too. In each module two predicates restate the method's spec in its own parameter names (as
bot/symbolic/everywhere.py does), and two programs at the top level ask, on the inputs both `requires` admit:

    head within base:  Pre_b(i) && Pre_h(i) && Post_h(i, o) ==> Post_b(i, o)   (fails: head accepts more: weaker)
    base within head:  Pre_b(i) && Pre_h(i) && Post_b(i, o) ==> Post_h(i, o)   (fails: head accepts less: stronger)

and two more relate the `requires` (fails: head admits an input base did not; base admits one head does not).
A proof is an answer. A failure is an answer only with a witness: an input and an output one version accepts and
the other rejects, each proved on the concrete values by the ordinary acceptance and rejection programs of each
version's own file. Otherwise the relation is unknown, with the reason.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from bot.dafny.decls import Decl, scope_imports
from bot.dafny.dialect import Dialect, expressions_to_2, unicode_escapes_4
from bot.dafny.types import DafnyType, DatatypeT, map_parts
from bot.dafny.values import Value
from bot.symbolic import bounded
from bot.symbolic.everywhere import body, predicates, shown_inputs, unsupported
from bot.symbolic.program import Goal, Outcome, Program, ProgramKind, Result
from bot.symbolic.results import Relation, SpecChange
from bot.symbolic.rounds import show_assignment

BASE, HEAD = "SpecScore_Base", "SpecScore_Head"
PRE, POST = "SpecScore_Pre", "SpecScore_Post"
SPEC = "SpecScore_Spec"  # the module beside a method's modules that holds its predicates
PREFIX = "SpecScore_Change_"
DROPPED = "its `requires` no longer admits that input"  # a weakening's reason when head dropped the input


class Direction(Enum):
    """One question: does `inner` imply `outer`?"""

    HEAD_WITHIN_BASE = "head-within-base"  # every output head accepts, base accepts (head not weaker)
    BASE_WITHIN_HEAD = "base-within-head"  # every output base accepts, head accepts (head not stronger)
    HEAD_INPUTS_WITHIN_BASE = "head-inputs-within-base"  # head's requires admits no input base's does not
    BASE_INPUTS_WITHIN_HEAD = "base-inputs-within-head"
    # on an input only base's requires admits, base accepts every output: fails when head dropped an input on which
    # base promised something (a narrower requires weakens the contract: head promises nothing there)
    DROPPED_INPUTS = "dropped-inputs"


def comparable(base: Decl, head: Decl) -> str:
    """Why the two versions cannot be compared (said as the reason), or ""."""
    sig = [(p.name, p.type_text) for p in base.params], [(p.name, p.type_text) for p in base.returns]
    if sig != ([(p.name, p.type_text) for p in head.params], [(p.name, p.type_text) for p in head.returns]):
        return "its parameters or outputs changed"
    if base.scope != head.scope:
        return "it moved to another module"
    declared = next((p for p in (*head.params, *head.returns) if _declared_type(p.type)), None)
    if declared is not None:
        # each version's datatype is a type of its own module: no one value is of both
        return (f"`{declared.name}` is of a type the spec file declares (`{declared.type_text}`): comparing two "
                "versions' own types is not supported yet")
    return unsupported(base) or unsupported(head)  # (a member of a class is not supported there)


def _declared_type(t: DafnyType) -> bool:
    """Whether a value of `t` holds a datatype (declared in a spec file)."""
    found = [False]

    def look(x: DafnyType) -> DafnyType:
        found[0] = found[0] or isinstance(x, DatatypeT)
        return map_parts(x, look) if not isinstance(x, DatatypeT) else x
    look(t)
    return found[0]


def side_by_side(base_prelude: str, head_prelude: str, base: Decl, head: Decl,
                 opened: tuple[Sequence[str], Sequence[str]] = ((), ())) -> str:
    """Both spec files, each in a module of its own with its method's spec as predicates (of a method inside
    modules, in a module beside them that opens the method's, and the modules it opens (`opened`, base's and
    head's): its clauses mean what they mean in its own scope)."""
    def module(name: str, prelude: str, m: Decl, its: Sequence[str]) -> str:
        spec = "\n".join(predicates(m, PRE, POST))
        if m.scope:
            spec = f"module {SPEC} {{\n{scope_imports(m.scope, its)}\n{spec}\n}}"
        return f"module {name} {{\n{prelude.rstrip()}\n{spec}\n}}\n"

    return module(BASE, base_prelude, base, opened[0]) + module(HEAD, head_prelude, head, opened[1])


def _in(version: str, m: Decl) -> str:
    """Where a version's predicates of `m` are declared (`side_by_side`)."""
    return f"{version}.{SPEC}" if m.scope else version


def program(prelude: str, m: Decl, direction: Direction, dialect: Dialect, small: bool = False,
            time_limit: int | None = None) -> Program:
    """The question of `direction` about method `m`'s signature (`prelude`: `side_by_side`). `small`: its array and
    sequence inputs short and spelled out (bot/symbolic/bounded.py), a question asked only to read a witness."""
    # the question is at the top level, outside both versions' modules: each type as what it names (a synonym the
    # spec file declares is not declared there)
    params = ", ".join(f"{p.name}: {p.type}" for p in m.params)
    outs = ", ".join(f"{p.name}: {p.type}" for p in m.returns)
    spelled = variables(m, direction)
    args = ", ".join(p.name for p in m.params)
    both = ", ".join([*(p.name for p in m.params), *(p.name for p in m.returns)])
    base, head = _in(BASE, m), _in(HEAD, m)
    inner, outer = {Direction.HEAD_WITHIN_BASE: (head, base), Direction.BASE_WITHIN_HEAD: (base, head),
                    Direction.HEAD_INPUTS_WITHIN_BASE: (head, base),
                    Direction.BASE_INPUTS_WITHIN_HEAD: (base, head), Direction.DROPPED_INPUTS: (head, base)}[direction]
    if direction in (Direction.HEAD_WITHIN_BASE, Direction.BASE_WITHIN_HEAD):
        signature = ", ".join(x for x in (params, outs) if x)
        spec = [f"  requires {base}.{PRE}({args}) && {head}.{PRE}({args})",
                f"  requires {inner}.{POST}({both})", f"  ensures {outer}.{POST}({both})"]
    elif direction is Direction.DROPPED_INPUTS:
        signature = ", ".join(x for x in (params, outs) if x)
        spec = [f"  requires {base}.{PRE}({args}) && !{head}.{PRE}({args})", f"  ensures {base}.{POST}({both})"]
    else:
        signature = params
        spec = [f"  requires {inner}.{PRE}({args})", f"  ensures {outer}.{PRE}({args})"]
    if small:
        signature = ", ".join(x for x in (signature, *bounded.extra_params(spelled)) if x)
    text = "\n".join([f"method @P@({signature})", *(bounded.assumptions(spelled) if small else []), *spec, *body(m)])
    name = PREFIX + hashlib.sha256(f"{direction.value}\0{text}".encode()).hexdigest()[:16]
    text = text.replace("@P@", name)
    text = expressions_to_2(text, prelude) if dialect is Dialect.DAFNY2 else unicode_escapes_4(text)
    # the other version accepts every output (or input) the first does
    return Program(prelude=prelude, name=name, method=text, want_model=True, kind=ProgramKind.SPEC_CHANGE,
                   goal=Goal.ACCEPT, time_limit=time_limit)


def variables(m: Decl, direction: Direction) -> list[tuple[str, DafnyType]]:
    """The variables of the question of `direction`: the inputs, and the outputs where it has them."""
    outputs = direction in (Direction.HEAD_WITHIN_BASE, Direction.BASE_WITHIN_HEAD, Direction.DROPPED_INPUTS)
    return [(p.name, p.type) for p in (*m.params, *(m.returns if outputs else ()))]


INCONSISTENT = ("base's and head's declarations side by side prove `false` (a declaration no check reaches is "
                "inconsistent): every relation would be proved")


def consistency(prelude: str, dialect: Dialect) -> Program:
    """`ensures false` from both versions' declarations (`prelude`: `side_by_side`): it must fail, or every question
    of the pair is proved for no reason (a constant defined by a function that does not terminate is an axiom no
    background check reaches)."""
    text = "method @P@()\n  ensures false\n{\n}"
    name = PREFIX + hashlib.sha256(f"consistent\0{text}".encode()).hexdigest()[:16]
    text = text.replace("@P@", name)
    text = expressions_to_2(text, prelude) if dialect is Dialect.DAFNY2 else unicode_escapes_4(text)
    return Program(prelude=prelude, name=name, method=text, kind=ProgramKind.VACUITY, goal=Goal.ACCEPT)


@dataclass(frozen=True)
class Found:
    """A proved difference: on `inputs`, `output` is accepted by one version and rejected by the other."""

    inputs: str
    output: str
    dropped: bool = False  # on an input head's `requires` no longer admits (Direction.DROPPED_INPUTS)


def shown(m: Decl, inputs: Sequence[Value], output: Sequence[Value]) -> Found:
    """The witness as reports write it: `x = -1`, and the output with its name (`r = 2`)."""
    named = show_assignment([p.name for p in m.returns], output, [p.type for p in m.returns])
    return Found(shown_inputs(m, inputs), named)


def relation(file: str, method: str, results: dict[Direction, Result], weaker: Found | None,
             stronger: Found | None, why: dict[Direction, str], fixes_test: bool = False) -> SpecChange:
    """The relation from the questions' results and the proved witnesses (`weaker`: an output head accepts and base
    rejected, on an input both admit or one only base's `requires` admits; `why`: why a failed question has
    none)."""
    def proved(d: Direction) -> bool:
        r = results.get(d)
        return r is not None and r.outcome is Outcome.VERIFIED

    requires = _requires(results)
    # not weaker: on common inputs head accepts nothing base rejects, and it dropped no input base promised on
    not_weaker = proved(Direction.HEAD_WITHIN_BASE) and proved(Direction.DROPPED_INPUTS)
    not_stronger = proved(Direction.BASE_WITHIN_HEAD)
    base = SpecChange(file, method, Relation.UNKNOWN, requires=requires, fixes_test=fixes_test)
    if not_weaker and not_stronger:
        return SpecChange(file, method, Relation.EQUIVALENT, requires=requires)
    if weaker is not None and stronger is not None:
        return SpecChange(file, method, Relation.INCOMPARABLE, weaker.inputs, weaker.output, "head",
                          f"and for {stronger.inputs} it rejects {stronger.output}, which base accepted",
                          requires, fixes_test)
    if weaker is not None:
        if not_stronger:
            return SpecChange(file, method, Relation.WEAKER, weaker.inputs, weaker.output, "head",
                              DROPPED if weaker.dropped else "", requires, fixes_test)
        return SpecChange(file, method, Relation.UNKNOWN, weaker.inputs, weaker.output, "head",
                          "it accepts an output base rejected; whether it also rejects one base accepted is "
                          f"unknown ({why.get(Direction.BASE_WITHIN_HEAD) or 'not proved either way'})", requires,
                          fixes_test)
    if stronger is not None and not_weaker:
        return SpecChange(file, method, Relation.STRONGER, stronger.inputs, stronger.output, "base", "", requires)
    # each reason said of the question it is about: on the inputs both admit, or on those head no longer admits
    parts = []
    if Direction.HEAD_WITHIN_BASE in why:
        both = " (on inputs both versions admit)" if Direction.DROPPED_INPUTS in why else ""
        parts.append(why[Direction.HEAD_WITHIN_BASE] + both)
    if Direction.DROPPED_INPUTS in why:
        parts.append(f"{why[Direction.DROPPED_INPUTS]} (on inputs only base's `requires` admits)")
    weak_why = "; ".join(parts)
    said = [f"not weaker (proved); stronger: {why.get(Direction.BASE_WITHIN_HEAD) or 'unknown'}" if not_weaker
            else f"weaker: {weak_why or 'not proved either way'}"]
    if not not_weaker and not_stronger:
        said = [f"not stronger (proved); weaker: {weak_why or 'unknown'}"]
    return SpecChange(file, method, Relation.UNKNOWN, reason="; ".join(said), requires=base.requires)


def _requires(results: dict[Direction, Result]) -> str:
    head_in = results.get(Direction.HEAD_INPUTS_WITHIN_BASE)
    base_in = results.get(Direction.BASE_INPUTS_WITHIN_HEAD)
    if head_in is None or base_in is None:
        return ""
    if head_in.outcome is Outcome.VERIFIED and base_in.outcome is Outcome.VERIFIED:
        return "same"
    # a failed question alone proves nothing: only the other direction's proof is said
    if head_in.outcome is Outcome.VERIFIED:
        return "admits no input base did not"
    if base_in.outcome is Outcome.VERIFIED:
        return "admits every input base did"
    return ""
